import { render } from '@testing-library/preact';
import { describe, expect, it } from 'vitest';
import { ApiError, freshPlan, type Plan } from './api';
import { PlanView, planSummary } from './PlanView';

const plan: Plan = {
  digest: 'abcdef0123456789abcdef',
  moves: [{ from: 'a.md', to: 'b/a.md' }],
  merges: [],
  edits: [{ path: 'c.md', links: [{ line: 3, old: '[[a]]', new: '[[b/a]]' }, { line: 4, old: '[x](a.md)', new: '[x](b/a.md)' }] }],
  content_edits: [],
  errors: [],
  rejected: [],
  conflicts: [{ path: 'b/a.md', detail: 'exists', code: 'exists' }],
  plan_only: [],
  warnings: ['a warning'],
  integrity: { unresolved: [], orphaned: [], complete: true },
  stats: { pages: 3, links: 5, rewritten: 2, unresolved: 0 },
  diffs: [{ path: 'c.md', diff: '--- a/c.md\n+++ b/c.md\n@@ -3 +3 @@\n-[[a]]\n+[[b/a]]' }],
};

describe('<PlanView>', () => {
  it('summarises moves and rewritten links', () => {
    expect(planSummary(plan)).toBe('1 file moved, 2 links rewritten in 1 page');
  });
  it('shows moves, rewrites, conflicts, warnings and diffs', () => {
    const { getByRole, container } = render(<PlanView plan={plan} />);
    expect(getByRole('region', { name: 'Moves' }).textContent).toContain('b/a.md');
    expect(getByRole('region', { name: 'Link rewrites' }).textContent).toContain('[[b/a]]');
    expect(getByRole('region', { name: 'Conflicts' }).textContent).toContain('exists');
    expect(getByRole('region', { name: 'Warnings' }).textContent).toContain('a warning');
    expect(container.querySelector('.diff-table tr.add ins')?.textContent).toBe('b/');
    expect(container.querySelector('.diff-table tr.del')?.textContent).toContain('[[a]]');
  });
});

describe('a refused apply', () => {
  it('carries the fresh plan only when the workspace changed (409 with a plan)', () => {
    expect(freshPlan(new ApiError(409, 'stale', { error: 'stale', plan }))).toEqual(plan);
    expect(freshPlan(new ApiError(409, 'modified', { error: 'modified' }))).toBeNull();
    expect(freshPlan(new ApiError(422, 'errors', { error: 'errors', plan }))).toBeNull();
    expect(freshPlan(new Error('network'))).toBeNull();
  });
});
