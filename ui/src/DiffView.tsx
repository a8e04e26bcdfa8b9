// A diff as a code review shows it: unified or split (side by side), line numbers, the words
// that changed inside a line highlighted, long lines wrapped (never a sideways scroll).
import { useState } from 'preact/hooks';
import { parseDiff, splitRows, type Row } from './diff';

const MODE = 'quire.diffMode';

function Text({ row }: { row: Row }) {
  if (!row.pieces) return <>{row.text || '\u00a0'}</>;
  return <>{row.pieces.map((p, i) => (p.changed ? (row.kind === 'add' ? <ins key={i}>{p.text}</ins> : <del key={i}>{p.text}</del>) : <span key={i}>{p.text}</span>))}</>;
}

const SIGN: Record<string, string> = { add: '+', del: '−', ctx: ' ', hunk: '', note: '' };
const LABEL: Record<string, string> = { add: 'added', del: 'removed' };

export function DiffView({ diff, label = 'Changes' }: { diff: string; label?: string }) {
  const [mode, setMode] = useState<'unified' | 'split'>(() => (localStorage.getItem(MODE) === 'split' ? 'split' : 'unified'));
  const rows = parseDiff(diff);
  const choose = (m: 'unified' | 'split') => { setMode(m); localStorage.setItem(MODE, m); };
  const added = rows.filter((r) => r.kind === 'add').length;
  const removed = rows.filter((r) => r.kind === 'del').length;
  return (
    <div class="diff-view" role="group" aria-label={label}>
      <div class="diff-bar">
        <span class="muted small"><span class="diff-count add">+{added}</span> <span class="diff-count del">−{removed}</span></span>
        <div class="tabs" role="group" aria-label="Layout of the diff">
          <button aria-pressed={mode === 'unified'} onClick={() => choose('unified')}>Unified</button>
          <button aria-pressed={mode === 'split'} onClick={() => choose('split')}>Split</button>
        </div>
      </div>
      {rows.length === 0 ? <p class="muted">No change to the text.</p> : mode === 'unified' ? (
        <table class="diff-table diff-unified">
          <colgroup><col class="num" /><col class="num" /><col class="sign" /><col /></colgroup>
          <tbody>
            {rows.map((r, i) => r.kind === 'hunk' || r.kind === 'note'
              ? <tr key={i} class={r.kind}><td colSpan={4}>{r.text}</td></tr>
              : (
                <tr key={i} class={r.kind}>
                  <td class="num">{r.old ?? ''}</td>
                  <td class="num">{r.new ?? ''}</td>
                  <td class="sign" aria-label={LABEL[r.kind]}>{SIGN[r.kind]}</td>
                  <td class="code"><Text row={r} /></td>
                </tr>
              ))}
          </tbody>
        </table>
      ) : (
        <table class="diff-table diff-split">
          <colgroup><col class="num" /><col /><col class="num" /><col /></colgroup>
          <tbody>
            {splitRows(rows).map(({ left, right }, i) => left && (left.kind === 'hunk' || left.kind === 'note')
              ? <tr key={i} class={left.kind}><td colSpan={4}>{left.text}</td></tr>
              : (
                <tr key={i}>
                  <td class={`num ${left?.kind ?? 'empty'}`}>{left?.old ?? ''}</td>
                  <td class={`code ${left?.kind ?? 'empty'}`} aria-label={left && left.kind === 'del' ? 'removed' : undefined}>{left && <Text row={left} />}</td>
                  <td class={`num ${right?.kind ?? 'empty'}`}>{right?.new ?? ''}</td>
                  <td class={`code ${right?.kind ?? 'empty'}`} aria-label={right && right.kind === 'add' ? 'added' : undefined}>{right && <Text row={right} />}</td>
                </tr>
              ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
