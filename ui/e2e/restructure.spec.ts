import { mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { expect, type Locator, test } from '@playwright/test';
import { accessible, api, disk, onDisk, setEditorText, shot, url } from './support';

test('drag and drop moves a page and rewrites the links to it', async ({ page }) => {
  await page.goto(url('/page/index.md'));
  const source = page.getByRole('treeitem', { name: 'move-me' });
  const target = page.getByRole('treeitem', { name: 'archive' });
  await source.dragTo(target);
  const dialog = page.getByRole('dialog');
  // The markdown link changes; `[[move-me]]` still names the page uniquely and stays.
  await expect(dialog.getByTestId('link-count')).toHaveText('1 link will be rewritten so they keep working.');
  await shot(page, 'move-dialog');
  await accessible(page);
  await dialog.getByRole('button', { name: 'Apply move' }).click();
  await expect(dialog).toBeHidden();
  expect(onDisk('archive/move-me.md')).toBe(true);
  expect(onDisk('move-me.md')).toBe(false);
  const gamma = disk('notes/gamma.md');
  expect(gamma).toContain('[the page](../archive/move-me.md)');
  expect(gamma).toContain('[[move-me]]');
  // The tree follows: the page is now inside the folder.
  await page.getByRole('treeitem', { name: 'archive' }).click();
  await expect(page.getByRole('treeitem', { name: 'move-me' })).toHaveAttribute('aria-level', '2');
});

test('plans and applies a manifest in the Restructure view', async ({ page }) => {
  await page.goto(url('/restructure'));
  await expect(page.locator('.cm-content')).toBeVisible();
  await setEditorText(page, 'moves:\n  - from: notes/zeta.md\n    to: letters/zeta.md\n');
  await page.getByRole('button', { name: 'Plan', exact: true }).click();
  const plan = page.getByTestId('plan');
  await expect(plan).toContainText('1 file moved');
  await expect(plan.getByRole('region', { name: 'Moves' })).toContainText('letters/zeta.md');
  await expect(plan.getByRole('region', { name: 'Link rewrites' })).toContainText('index.md');
  await shot(page, 'restructure-plan');
  await accessible(page);
  await page.getByRole('button', { name: 'Apply plan' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Applied as commit' })).toBeVisible();
  expect(onDisk('letters/zeta.md')).toBe(true);
  expect(onDisk('notes/zeta.md')).toBe(false);
  expect(disk('index.md')).toContain('[zeta](letters/zeta.md)');
});

test('the manifest editor completes manifest keys', async ({ page }) => {
  await page.goto(url('/restructure'));
  await expect(page.locator('.cm-content')).toBeVisible();
  await setEditorText(page, 'rename_tags:\n  - from: old\n    ');
  await page.keyboard.type('t');
  const options = page.getByRole('listbox');
  await expect(options).toContainText('to');
  await expect(options).not.toContainText('from');
  // CodeMirror ignores Enter for a moment after the list opens (its `interactionDelay`).
  await page.waitForTimeout(200);
  await page.keyboard.press('Enter');
  await expect(page.locator('.cm-content')).toContainText('to:');
  await setEditorText(page, '');
  await page.keyboard.type('rel');
  await expect(page.getByRole('option', { name: /relinks/ })).toBeVisible();

  // Values that name paths complete from the pages and their folders.
  await setEditorText(page, 'moves:\n  - from: ');
  await page.keyboard.type('note');
  await expect(page.getByRole('option', { name: 'notes/', exact: true })).toBeVisible();
  await page.waitForTimeout(200);
  await page.keyboard.press('Enter');
  await expect(page.locator('.cm-content')).toContainText('from: notes/');
});

test('a person approves an agent plan that is over the limits', async ({ page, request }) => {
  const manifest = { moves: [{ from: 'plans/one.md', to: 'plans/first.md' }] };
  const agent = { 'X-Quire-Client': 'mcp-e2e', 'X-Actor': 'agent' };
  const plan = await (await request.post(api('/refactor/plan'), { data: manifest, headers: agent })).json();
  const refused = await request.post(api('/refactor/apply'), { data: { manifest, digest: plan.digest }, headers: agent });
  expect(refused.status()).toBe(428);

  await page.goto(url('/approvals'));
  const card = page.getByTestId('pending').first();
  await expect(card).toContainText('agent');
  await card.getByRole('button', { name: 'Review plan' }).click();
  await expect(card.getByTestId('plan')).toContainText('plans/first.md');
  await shot(page, 'approvals');
  await accessible(page);
  await card.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Approved the plan of agent' })).toBeVisible();

  const applied = await request.post(api('/refactor/apply'), { data: { manifest, digest: plan.digest }, headers: agent });
  expect(applied.status()).toBe(200);
  expect(onDisk('plans/first.md')).toBe(true);
});

test('history shows diffs and reverts a commit', async ({ page, request }) => {
  const put = await request.put(api('/file?path=revert-me.md'), { data: '# Revert me\n\nChanged text.\n', headers: { 'X-Actor': 'carol' } });
  expect(put.ok()).toBeTruthy();
  await page.goto(url('/history/revert-me.md'));
  const diff = page.locator('.diff-view').first();
  await expect(diff.locator('tr.add')).toContainText('Changed text.');
  await expect(diff.locator('tr.del')).toContainText('Original text.');
  // Only the changed word is marked inside the line.
  await expect(diff.locator('tr.add ins')).toHaveText('Changed');
  await expect(diff.locator('tr.del del')).toHaveText('Original');
  await shot(page, 'history-diff');
  await accessible(page);
  await diff.getByRole('button', { name: 'Split' }).click();
  await expect(diff.locator('table.diff-split td.code.add')).toContainText('Changed text.');
  await shot(page, 'history-diff-split');
  await accessible(page);
  await diff.getByRole('button', { name: 'Unified' }).click();
  await page.getByRole('button', { name: 'Revert this commit…' }).click();
  await expect(page.getByTestId('plan')).toBeVisible();
  await page.getByRole('button', { name: 'Revert', exact: true }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Reverted as commit' })).toBeVisible();
  expect(disk('revert-me.md')).toBe('# Revert me\n\nOriginal text.\n');
});

test('broken links are listed and repaired', async ({ page }) => {
  await page.goto(url('/links'));
  await expect(page.getByRole('table')).toContainText('Nowhere');
  await shot(page, 'broken-links');
  await accessible(page);
});

test('a page moved on disk is listed as a raw move and its links are fixed in one click', async ({ page, request }) => {
  for (const [path, text] of [
    ['rawmv/target.md', '# Raw target\n\nMoved by hand.\n'],
    ['rawmv/linker.md', '# Linker\n\nSee [the target](target.md) and [[rawmv/target]].\n'],
  ]) {
    const put = await request.put(api(`/file?path=${path}`), { data: text, headers: { 'X-Actor': 'dora' } });
    expect(put.ok()).toBeTruthy();
  }
  // Moved outside quire: the watcher records it, the links are not rewritten.
  const root = process.env.QUIRE_ROOT_DIR!;
  mkdirSync(join(root, 'rawmv-new'), { recursive: true });
  renameSync(join(root, 'rawmv/target.md'), join(root, 'rawmv-new/target.md'));

  await page.goto(url('/restructure'));
  const card = page.getByTestId('raw-move').filter({ hasText: 'rawmv/target.md' });
  await expect(async () => {
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect(card).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  await expect(card).toContainText('rawmv-new/target.md');
  await expect(card).toContainText('moved on disk');
  await card.getByRole('button', { name: 'Fix links to rawmv/target.md' }).click();
  await expect(card.getByTestId('plan')).toContainText('rawmv/linker.md');
  await card.getByRole('button', { name: 'Apply repair' }).scrollIntoViewIfNeeded();
  await shot(page, 'raw-moves');
  await accessible(page);
  await applyRepair(card, page.getByRole('status').filter({ hasText: 'Repaired 2 links to rawmv-new/target.md' }));
  const linker = disk('rawmv/linker.md');
  expect(linker).toContain('(../rawmv-new/target.md)');
  expect(linker).toContain('rawmv-new/target');
  expect(linker).not.toContain('[[rawmv/target]]');
  // Repaired: the move is no longer listed.
  await expect(card).toBeHidden();
});

test('several raw moves are fixed at once in one plan', async ({ page, request }) => {
  for (const [path, text] of [
    ['rawall/one.md', '# One\n'],
    ['rawall/two.md', '# Two\n'],
    ['rawall/index.md', '# Index\n\n[[rawall/one]] and [[rawall/two]].\n'],
  ]) {
    expect((await request.put(api(`/file?path=${path}`), { data: text, headers: { 'X-Actor': 'dora' } })).ok()).toBeTruthy();
  }
  const root = process.env.QUIRE_ROOT_DIR!;
  mkdirSync(join(root, 'rawall-new'), { recursive: true });
  renameSync(join(root, 'rawall/one.md'), join(root, 'rawall-new/one.md'));
  renameSync(join(root, 'rawall/two.md'), join(root, 'rawall-new/two.md'));

  await page.goto(url('/restructure'));
  const all = page.getByTestId('raw-moves-all');
  await expect(async () => {
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect(page.getByTestId('raw-move')).toHaveCount(2, { timeout: 1000 });
    await expect(all).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  await all.getByRole('button', { name: 'Fix links to every raw move' }).click();
  await expect(all.getByTestId('plan')).toContainText('rawall/index.md');
  await accessible(page);
  await applyRepair(all, page.getByRole('status').filter({ hasText: 'Repaired 2 links to 2 moved files' }));
  const index = disk('rawall/index.md');
  expect(index).toContain('[[rawall-new/one]]');
  expect(index).toContain('[[rawall-new/two]]');
  await expect(page.getByTestId('raw-move')).toHaveCount(0);
  await expect(all).toBeHidden();
});

/**
 * Applies a reviewed repair until `done` shows. The watcher may still be recording the files
 * moved on disk when the plan is made; the apply is then refused (409) and the fresh plan is
 * shown in place of the stale one, to be applied again, as a person would.
 */
async function applyRepair(scope: Locator, done: Locator) {
  const apply = scope.getByRole('button', { name: 'Apply repair' });
  await apply.click();
  await expect(async () => {
    if (await apply.isVisible()) {
      await expect(scope.getByRole('alert')).toContainText('review the fresh plan', { timeout: 1000 });
      await apply.click();
    }
    await expect(done).toBeVisible({ timeout: 2000 });
  }).toPass({ timeout: 20_000 });
}
