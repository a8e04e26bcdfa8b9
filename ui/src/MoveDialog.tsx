// Moving or renaming through the planner: plan first, show the link count, apply with the
// digest. "Keep links as written" is the More actions → Move / Rename of the spec: a copy and
// delete that rewrites no link, and the dialog says so.
import { useEffect, useState } from 'preact/hooks';
import { api, freshPlan, moves, rewrittenLinks, type Plan } from './api';
import { PlanView } from './PlanView';
import { ErrorNote, Modal } from './ui';

interface Props {
  from: string;
  isDir: boolean;
  /** Proposed destination (a drop target), or null to let the user type one. */
  to: string | null;
  allowKeepLinks?: boolean;
  onClose: () => void;
  onDone: (to: string) => void;
}

export function MoveDialog({ from, isDir, to: proposed, allowKeepLinks, onClose, onDone }: Props) {
  const [to, setTo] = useState(proposed ?? from);
  const [keepLinks, setKeepLinks] = useState(false);
  const [plan, setPlan] = useState<Plan | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const manifest = () => ({ moves: [{ from: isDir ? `${from}/` : from, to: isDir ? `${to.replace(/\/$/, '')}/` : to }] });

  const review = async () => {
    setBusy(true); setError(null); setPlan(null);
    try { setPlan(await api.planJson(manifest())); } catch (e) { setError(e); }
    setBusy(false);
  };
  // A proposed destination (a drop) is planned at once.
  useEffect(() => { if (proposed !== null) void review(); }, []);

  const apply = async () => {
    setBusy(true); setError(null);
    try {
      if (keepLinks) await moves.renameKeepingLinks(from, to);
      else await api.apply(manifest(), plan!.digest);
      onDone(to);
    } catch (e) { setError(e); setPlan(freshPlan(e) ?? plan); setBusy(false); }
  };

  const links = plan ? rewrittenLinks(plan) : 0;
  return (
    <Modal title={`Move ${isDir ? 'folder' : 'page'} ${from}`} onClose={onClose} wide>
      <form onSubmit={(e) => { e.preventDefault(); if (keepLinks) void apply(); else void review(); }}>
        <label>New path <input name="to" value={to} onInput={(e) => { setTo(e.currentTarget.value); setPlan(null); }} /></label>
        {allowKeepLinks && !isDir && (
          <label class="check">
            <input type="checkbox" checked={keepLinks} onChange={(e) => { setKeepLinks(e.currentTarget.checked); setPlan(null); }} />
            Keep links as written: copy and delete without rewriting any link (links to this page will break)
          </label>
        )}
        {!keepLinks && <button type="submit" disabled={busy || to === from}>Plan the move</button>}
      </form>
      <ErrorNote error={error} />
      {plan && !keepLinks && (
        <>
          <p class="confirm" data-testid="link-count">
            {links === 0 ? 'No link needs rewriting.' : `${links} link${links === 1 ? '' : 's'} will be rewritten so they keep working.`}
          </p>
          <PlanView plan={plan} />
        </>
      )}
      <div class="actions">
        <button onClick={onClose} type="button">Cancel</button>
        {keepLinks
          ? <button class="primary danger" type="button" disabled={busy || to === from} onClick={apply}>Move without rewriting links</button>
          : <button class="primary" type="button" disabled={busy || !plan || plan.errors.length > 0} onClick={apply}>Apply move</button>}
      </div>
    </Modal>
  );
}
