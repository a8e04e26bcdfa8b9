// Live updates from GET /events. EventSource cannot send an Authorization header, so the
// stream is read with fetch; it reconnects with backoff (1 s doubling to 30 s).
import { BASE, headers } from './api';

export interface ChangeEvent { kind: 'write' | 'delete' | 'bulk'; paths: string[]; actor: string }

/** Parses complete SSE blocks from `buffer`; returns the events and the unparsed rest. */
export function parseSse(buffer: string): { events: { event: string; data: string }[]; rest: string } {
  const events: { event: string; data: string }[] = [];
  const blocks = buffer.replace(/\r\n/g, '\n').split('\n\n');
  const rest = blocks.pop() ?? '';
  for (const block of blocks) {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length) events.push({ event, data: data.join('\n') });
  }
  return { events, rest };
}

export function toChange(event: string, data: string): ChangeEvent | null {
  if (event !== 'write' && event !== 'delete' && event !== 'bulk') return null;
  try {
    const d = JSON.parse(data);
    const paths: string[] = event === 'bulk' ? d.paths ?? [] : [d.path];
    return { kind: event, paths, actor: d.actor ?? '' };
  } catch {
    return null;
  }
}

/** Subscribes; returns a function that stops the stream. */
export function subscribe(onChange: (e: ChangeEvent) => void, onStatus: (live: boolean) => void = () => {}): () => void {
  let stopped = false;
  let controller: AbortController | null = null;
  let delay = 1000;
  const run = async () => {
    while (!stopped) {
      controller = new AbortController();
      try {
        const r = await fetch(`${BASE}/events`, { headers: headers({ Accept: 'text/event-stream' }), signal: controller.signal });
        if (!r.ok || !r.body) throw new Error(String(r.status));
        onStatus(true);
        delay = 1000;
        const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          const parsed = parseSse(buffer + value);
          buffer = parsed.rest;
          for (const e of parsed.events) {
            const change = toChange(e.event, e.data);
            if (change) onChange(change);
          }
        }
      } catch {
        /* reconnect below */
      }
      onStatus(false);
      if (stopped) break;
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 30000);
    }
  };
  void run();
  return () => {
    stopped = true;
    controller?.abort();
  };
}
