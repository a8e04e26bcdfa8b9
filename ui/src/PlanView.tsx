// A plan as a person reviews it: what moves, which links are rewritten (with diffs),
// conflicts, errors, warnings and integrity.
import { rewrittenLinks, type Plan } from './api';
import { DiffView } from './DiffView';

export function planSummary(plan: Plan): string {
  const links = rewrittenLinks(plan);
  const pages = plan.edits.filter((e) => e.links.length).length;
  const parts = [];
  // One per file moved (a folder move lists each of its files).
  if (plan.moves.length) parts.push(`${plan.moves.length} file${plan.moves.length === 1 ? '' : 's'} moved`);
  if (plan.merges.length) parts.push(`${plan.merges.length} merge${plan.merges.length === 1 ? '' : 's'}`);
  parts.push(`${links} link${links === 1 ? '' : 's'} rewritten in ${pages} page${pages === 1 ? '' : 's'}`);
  if (plan.content_edits.length) parts.push(`${plan.content_edits.length} page${plan.content_edits.length === 1 ? '' : 's'} edited`);
  return parts.join(', ');
}

/** The old path of a file the plan moves to `path`. */
function movedFrom(plan: Plan, path: string): string | undefined {
  return plan.moves.find((m) => m.to === path || m.from === path)?.from;
}

export function DiffText({ diff }: { diff: string }) {
  return (
    // Focusable, so a diff wider than the screen can be scrolled with the keyboard.
    <pre class="diff" tabIndex={0}>
      {diff.split('\n').map((line, i) => (
        <span key={i} class={line.startsWith('+') && !line.startsWith('+++') ? 'add' : line.startsWith('-') && !line.startsWith('---') ? 'del' : line.startsWith('@@') ? 'hunk' : ''}>
          {line}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}

export function PlanView({ plan }: { plan: Plan }) {
  return (
    <div class="plan" data-testid="plan">
      <p class="summary"><strong>{planSummary(plan)}</strong></p>
      {plan.errors.length > 0 && (
        <section class="errors" aria-label="Errors">
          <h3>Errors (the plan cannot be applied)</h3>
          <ul>{plan.errors.map((e) => <li key={e}>{e}</li>)}</ul>
        </section>
      )}
      {plan.conflicts.length > 0 && (
        <section aria-label="Conflicts">
          <h3>Conflicts</h3>
          <ul>{plan.conflicts.map((c, i) => <li key={i}><code>{c.code}</code> {c.path}: {c.detail}</li>)}</ul>
        </section>
      )}
      {plan.rejected.length > 0 && (
        <section aria-label="Rejected">
          <h3>Rejected</h3>
          <ul>{plan.rejected.map((r, i) => <li key={i}>{r.path}: {r.error}</li>)}</ul>
        </section>
      )}
      {plan.plan_only.length > 0 && (
        <section aria-label="Plan only">
          <h3>Cannot be applied yet</h3>
          <ul>{plan.plan_only.map((w) => <li key={w}>{w}</li>)}</ul>
        </section>
      )}
      {plan.warnings.length > 0 && (
        <section aria-label="Warnings">
          <h3>Warnings</h3>
          <ul>{plan.warnings.map((w) => <li key={w}>{w}</li>)}</ul>
        </section>
      )}
      {plan.approval?.required && <p class="note">Needs approval for agents: {plan.approval.reason}</p>}
      {(plan.moves.length > 0 || plan.merges.length > 0) && (
        <section aria-label="Moves">
          <h3>Moves</h3>
          <table>
            <thead><tr><th scope="col">From</th><th scope="col">To</th></tr></thead>
            <tbody>
              {plan.moves.map((m) => <tr key={m.from}><td>{m.from}</td><td>→ {m.to}</td></tr>)}
              {plan.merges.map((m) => <tr key={`merge:${m.from}`}><td>{m.from}</td><td>merged into {m.to}</td></tr>)}
            </tbody>
          </table>
        </section>
      )}
      {plan.edits.some((e) => e.links.length) && (
        <section aria-label="Link rewrites">
          <h3>Link rewrites</h3>
          <ul class="edits">
            {plan.edits.filter((e) => e.links.length).map((e) => (
              <li key={e.path}>
                <strong>{e.path}</strong>
                <ul>{e.links.map((l, i) => <li key={i}>line {l.line}: <code>{l.old}</code> → <code>{l.new}</code></li>)}</ul>
              </li>
            ))}
          </ul>
        </section>
      )}
      {plan.diffs && plan.diffs.length > 0 && (
        <section aria-label="Diffs">
          <h3>Diffs</h3>
          {plan.diffs.map((d) => (
            <details key={d.path}>
              <summary>{movedFrom(plan, d.path) ? <span class="move-row"><code>{movedFrom(plan, d.path)}</code> → <code>{d.path}</code></span> : d.path}</summary>
              <DiffView diff={d.diff} label={`Changes to ${d.path}`} />
            </details>
          ))}
        </section>
      )}
      <section aria-label="Integrity" class="integrity">
        <h3>Integrity</h3>
        <p>
          {plan.stats.pages} pages, {plan.stats.links} links checked;{' '}
          {plan.integrity.unresolved.length} already unresolved; {plan.integrity.orphaned.length} would lose every inbound link
          {plan.integrity.complete ? '' : '; not every page was read'}.
        </p>
      </section>
      <p class="digest">Digest <code>{plan.digest.slice(0, 16)}</code></p>
    </div>
  );
}
