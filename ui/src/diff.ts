// Unified diffs as rows a reviewer reads: hunks, old and new line numbers, and inside a
// changed line the words that changed (a word-level LCS between each removed line and the
// added line it became).

export type Kind = 'ctx' | 'add' | 'del' | 'hunk' | 'note';
export interface Piece { text: string; changed: boolean }
export interface Row { kind: Kind; text: string; old?: number; new?: number; pieces?: Piece[] }

/** The rows of a unified diff; file headers (`---`, `+++`, `diff --git`, `index`) before the first hunk are left out. */
export function parseDiff(diff: string): Row[] {
  const rows: Row[] = [];
  let oldNo = 0;
  let newNo = 0;
  let inHunk = false;
  for (const line of diff.replace(/\n$/, '').split('\n')) {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (hunk) {
      oldNo = Number(hunk[1]);
      newNo = Number(hunk[2]);
      inHunk = true;
      rows.push({ kind: 'hunk', text: line });
    } else if (!inHunk && /^(---|\+\+\+|diff |index |new file|deleted file|similarity|rename )/.test(line)) {
      continue;
    } else if (line.startsWith('+')) rows.push({ kind: 'add', text: line.slice(1), new: newNo++ });
    else if (line.startsWith('-')) rows.push({ kind: 'del', text: line.slice(1), old: oldNo++ });
    else if (line.startsWith('\\')) rows.push({ kind: 'note', text: line });
    else rows.push({ kind: 'ctx', text: line.startsWith(' ') ? line.slice(1) : line, old: oldNo++, new: newNo++ });
  }
  pairWords(rows);
  return rows;
}

const tokens = (s: string) => s.match(/\s+|[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu) ?? [];

/** The word-level changes between two lines: the pieces of each, changed or not. */
export function wordDiff(a: string, b: string): [Piece[], Piece[]] {
  const x = tokens(a);
  const y = tokens(b);
  // Long lines: no word diff beyond this many token pairs (the whole line is marked).
  if (x.length * y.length > 250_000) return [[{ text: a, changed: true }], [{ text: b, changed: true }]];
  const lcs: Uint32Array[] = Array.from({ length: x.length + 1 }, () => new Uint32Array(y.length + 1));
  for (let i = x.length - 1; i >= 0; i--) {
    for (let j = y.length - 1; j >= 0; j--) {
      lcs[i][j] = x[i] === y[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const left: Piece[] = [];
  const right: Piece[] = [];
  const push = (out: Piece[], text: string, changed: boolean) => {
    const last = out[out.length - 1];
    if (last && last.changed === changed) last.text += text;
    else out.push({ text, changed });
  };
  let i = 0;
  let j = 0;
  while (i < x.length || j < y.length) {
    if (i < x.length && j < y.length && x[i] === y[j]) { push(left, x[i++], false); push(right, y[j++], false); }
    else if (j < y.length && (i >= x.length || lcs[i][j + 1] >= lcs[i + 1][j])) push(right, y[j++], true);
    else push(left, x[i++], true);
  }
  return [left, right];
}

/** Each run of removed lines followed by added ones: the n-th removed line paired with the n-th added. */
function pairWords(rows: Row[]) {
  for (let i = 0; i < rows.length;) {
    if (rows[i].kind !== 'del') { i++; continue; }
    let d = i;
    while (d < rows.length && rows[d].kind === 'del') d++;
    let a = d;
    while (a < rows.length && rows[a].kind === 'add') a++;
    const pairs = Math.min(d - i, a - d);
    for (let k = 0; k < pairs; k++) {
      const [l, r] = wordDiff(rows[i + k].text, rows[d + k].text);
      rows[i + k].pieces = l;
      rows[d + k].pieces = r;
    }
    i = a;
  }
}

/** Rows side by side: removed lines on the left, what they became on the right. */
export function splitRows(rows: Row[]): { left: Row | null; right: Row | null }[] {
  const out: { left: Row | null; right: Row | null }[] = [];
  for (let i = 0; i < rows.length;) {
    const row = rows[i];
    if (row.kind !== 'del' && row.kind !== 'add') { out.push({ left: row, right: row }); i++; continue; }
    const dels: Row[] = [];
    const adds: Row[] = [];
    while (i < rows.length && rows[i].kind === 'del') dels.push(rows[i++]);
    while (i < rows.length && rows[i].kind === 'add') adds.push(rows[i++]);
    for (let k = 0; k < Math.max(dels.length, adds.length); k++) out.push({ left: dels[k] ?? null, right: adds[k] ?? null });
  }
  return out;
}
