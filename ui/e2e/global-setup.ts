// Starts `target/debug/quire serve` on a fresh knowledge root (seeded with files before the
// start, so the first commit holds them) and a free loopback port; stops it afterwards.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchVault, SEED } from './seed';
import { startUiProxy } from './ui-proxy';

const HERE = fileURLToPath(new URL('.', import.meta.url));

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => ok(port));
    });
    s.on('error', fail);
  });
}

export interface Server { url: string; root: string; stop: () => Promise<void> }

/** A `quire serve` on a fresh root holding `files`, ready to answer searches (with `key`, when auth is on). */
export async function startServer(files: Record<string, string | Uint8Array>, key?: string): Promise<Server> {
  const bin = process.env.QUIRE_BIN ?? resolve(HERE, '../../target/debug/quire');
  const dir = mkdtempSync(join(tmpdir(), 'quire-e2e-'));
  const root = join(dir, 'kb');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const port = await freePort();
  const child = spawn(bin, ['serve', '--root', root, '--host', '127.0.0.1', '--port', String(port), '--no-mcp'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, QUIRE_LOG: 'warn' },
  });
  let log = '';
  child.stderr.on('data', (d) => { log += d; });
  const url = `http://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`quire serve exited: ${log}`);
    try {
      const r = await fetch(`${url}/readyz`);
      if (r.ok) {
        // Searches answer 503 until the first index pass ends.
        const s = await fetch(`${url}/api/quire/search?q=welcome`, { headers: key ? { Authorization: `Bearer ${key}` } : {} });
        if (s.ok) break;
      }
    } catch { /* not listening yet */ }
    if (Date.now() - started > 600_000) throw new Error(`quire serve did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  // QUIRE_UI_DIST: the app from that build instead of the one compiled into the binary.
  const proxy = process.env.QUIRE_UI_DIST ? await startUiProxy(resolve(HERE, '..', process.env.QUIRE_UI_DIST), url, await freePort()) : null;
  return {
    url: proxy ? `http://127.0.0.1:${(proxy.address() as { port: number }).port}` : url,
    root,
    stop: async () => {
      proxy?.close();
      proxy?.closeAllConnections();
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export default async function globalSetup() {
  const pages = Number(process.env.QUIRE_BENCH_PAGES ?? 0);
  const server = await startServer(pages ? benchVault(pages) : SEED);
  process.env.QUIRE_URL = server.url;
  process.env.QUIRE_ROOT_DIR = server.root;
  return server.stop;
}
