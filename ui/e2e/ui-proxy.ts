// For working on the UI without rebuilding the server: with QUIRE_UI_DIST set (a build such as
// `dist`), the end-to-end tests talk to this front instead of to `quire serve` directly. It
// answers the app's own routes from that folder the way crates/quire-ui does (`/`, the client
// routes → index.html, `/assets/…`) and passes everything else (the API, /p/, /readyz…) to
// the server unchanged, streaming (the SSE of /events included). CI does not set it: there the
// binary is built from the committed `ui/dist` and serves the app itself.
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { CLIENT_PREFIXES } from '../src/router';

// The headers quire-http's `security_headers` puts on HTML answers (CONTENT_SECURITY_POLICY
// there), so the app is tested under the policy it is served with.
const HTML_HEADERS = {
  'Content-Security-Policy': "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
};

const TYPES: Record<string, string> = {
  '.js': 'text/javascript', '.css': 'text/css', '.html': 'text/html; charset=utf-8', '.svg': 'image/svg+xml', '.json': 'application/json',
};

export function startUiProxy(dist: string, upstream: string, port: number): Promise<Server> {
  const index = readFileSync(join(dist, 'index.html'));
  const target = new URL(upstream);
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const first = path.split('/')[1] ?? '';
    if (req.method === 'GET' && (path === '/' || path === '/index.html' || CLIENT_PREFIXES.includes(first))) {
      res.writeHead(200, { 'Content-Type': TYPES['.html'], 'Cache-Control': 'no-cache', ...HTML_HEADERS });
      res.end(index);
      return;
    }
    if (req.method === 'GET' && first === 'assets') {
      const file = normalize(join(dist, decodeURIComponent(path)));
      if (!file.startsWith(normalize(dist)) || !existsSync(file)) { res.writeHead(404); res.end(); return; }
      res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' });
      createReadStream(file).pipe(res);
      return;
    }
    const forward = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => { if (!res.headersSent) res.writeHead(502); res.end(); });
    req.pipe(forward);
  });
  return new Promise((ok) => server.listen(port, '127.0.0.1', () => ok(server)));
}
