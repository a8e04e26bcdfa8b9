// The Obsidian-style vault of e2e/vault/ (pages written for these tests, with every construct
// the reader renders, and a few files that are not pages), as files for `startServer`.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const DIR = fileURLToPath(new URL('./vault/', import.meta.url));

export function vaultFiles(): Record<string, Uint8Array> {
  const out: Record<string, Uint8Array> = {};
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else out[relative(DIR, full).split('\\').join('/')] = readFileSync(full);
    }
  };
  walk(DIR);
  return out;
}
