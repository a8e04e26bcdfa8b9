/** A 2×2 PNG (red), for the image tests. */
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEklEQVR4nGP4z8DAwMDAxMDAAAAmigL/+1Nr6QAAAABJRU5ErkJggg==', 'base64');

// The knowledge root the end-to-end tests start from.
export const SEED: Record<string, string | Uint8Array> = {
  '.quire/config.toml': '[refactor]\napproval_files = 2\n',
  'index.md': '# Welcome\n\nStart with [[Alpha]] or [the beta page](notes/beta.md). #start\n\nAlso [zeta](notes/zeta.md).\n',
  'notes/zeta.md': '# Zeta\n\nMoved by a manifest.\n',
  'notes/epsilon.md': '# Epsilon\n\nEdited in the browser.\n',
  'notes/alpha.md':
    '---\ntitle: Alpha\nstatus: draft\ntags: [greek, letters]\n---\n# Alpha\n\nFirst letter. Links to [[beta]] and [[Nowhere]].\n\n## Details\n\nMore about alpha.\n\n## See also\n\n- [[gamma#Part one|gamma, part one]]\n',
  'notes/beta.md': '# Beta\n\nThe zebra crossing is mentioned only here. Back to [[Alpha]].\n',
  'notes/gamma.md': '# Gamma\n\n## Part one\n\nLinks to [[move-me]] and [the page](../move-me.md).\n',
  'move-me.md': '# Move me\n\nDrag this page into a folder.\n',
  'archive/old.md': '# Old\n\nAn archived page.\n',
  'plans/one.md': '# One\n\nSee [[two]].\n',
  'plans/two.md': '# Two\n\nSee [[one]] and [[three]].\n',
  'plans/three.md': '# Three\n\nSee [[one]].\n',
  'collab/discuss.md': '# Discuss\n\nThe first paragraph is fine.\n\nThe second paragraph needs work.\n',
  'collab/shared.md': '# Shared\n\nThe secret handshake is shown to share-link readers.\n',
  'embeds/host.md': '# Host\n\nBefore the embeds.\n\n![[embeds/part]]\n\n![[embeds/sectioned#Second]]\n\n![[embeds/loop-a]]\n\n![[pic.png]]\n\n![a diagram](pic.png)\n\n```rust\nfn main() { let answer = 42; }\n```\n',
  'embeds/part.md': '# Part\n\nEmbedded body text.\n',
  'embeds/sectioned.md': '# Sectioned\n\n## First\n\nNot this.\n\n## Second\n\nOnly the second section.\n\n## Third\n\nNot this either.\n',
  'embeds/loop-a.md': '# Loop A\n\nA embeds ![[loop-b]]\n',
  'embeds/loop-b.md': '# Loop B\n\nB embeds ![[loop-a]]\n',
  'embeds/pic.png': PNG,
  '.quire/templates/meeting.md': '---\ntype: meeting\n---\n# {{title}}\n\nDate: {{date}}\n\n## Notes\n',
  'writing/drop.md': '# Drop\n\nFiles land here.\n',
  '.quire/views/open-tasks.json': JSON.stringify({ name: 'open-tasks', query: 'TABLE status, priority FROM "tasks" SORT priority DESC', layout: 'table' }),
  '.quire/views/by-status.json': JSON.stringify({ name: 'by-status', query: 'TABLE status, priority FROM "tasks"', group_by: 'status' }),
  '.quire/workflows/review.json': JSON.stringify({
    name: 'review',
    states: [{ name: 'draft' }, { name: 'review' }, { name: 'done', terminal: true }],
    transitions: [{ from: 'draft', to: 'review' }, { from: 'review', to: 'done' }, { from: 'review', to: 'draft' }],
  }),
  'tasks/one.md': '---\nstatus: open\npriority: 3\nworkflow: review\nstate: draft\n---\n# Task one\n',
  'tasks/two.md': '---\nstatus: open\npriority: 1\nworkflow: review\nstate: draft\n---\n# Task two\n',
  'tasks/three.md': '---\nstatus: closed\npriority: 2\nworkflow: review\nstate: done\n---\n# Task three\n',
  'maps/ideas.canvas.json': JSON.stringify({
    nodes: [
      { id: 'g', type: 'group', label: 'Letters', x: -20, y: -40, width: 560, height: 160 },
      { id: 'a', type: 'text', text: 'A **thought** about [[Alpha|letters]]', x: 0, y: 0, width: 220, height: 80 },
      { id: 'b', type: 'file', file: 'notes/beta.md', x: 300, y: 0, width: 200, height: 80 },
      { id: 'c', type: 'link', url: 'https://example.org/', x: 0, y: 220, width: 220, height: 60, color: '4' },
    ],
    edges: [{ id: 'ab', fromNode: 'a', toNode: 'b', label: 'see' }, { id: 'ac', fromNode: 'a', fromSide: 'bottom', toNode: 'c', toSide: 'top' }],
  }),
  'revert-me.md': '# Revert me\n\nOriginal text.\n',
};

/** A vault of `count` pages in folders of 100, each linking to five others (the benchmark). */
export function benchVault(count: number): Record<string, string> {
  const out: Record<string, string> = {};
  const name = (i: number) => `topic-${Math.floor(i / 100)}/page-${i}`;
  for (let i = 0; i < count; i++) {
    const links = [1, 7, 31, 101, 997].map((d) => `[[page-${(i + d) % count}]]`).join(', ');
    const sections = Array.from({ length: 4 }, (_, s) => `## Section ${s}\n\nText of page ${i}, section ${s}, words words words. See ${links}.\n`).join('\n');
    out[`${name(i)}.md`] = `---\ntitle: Page ${i}\ntags: [bench, t${i % 10}]\n---\n# Page ${i}\n\n${sections}`;
  }
  return out;
}
