import { expect, test } from '@playwright/test';
import { accessible, api, disk, onDisk, shot, url } from './support';

test('comments in the margin: add on a block, resolve, delete', async ({ page, request }) => {
  await page.goto(url('/page/collab/discuss.md'));
  const article = page.locator('article.markdown');
  await article.getByText('The second paragraph needs work.').click();
  const panel = page.getByRole('region', { name: /Comments/ });
  await expect(panel.getByLabel('On')).toHaveValue('5');
  await panel.getByLabel('Comment', { exact: true }).fill('Say what needs work.');
  await panel.getByRole('button', { name: 'Add comment' }).click();
  const comment = panel.getByTestId('comment');
  await expect(comment).toContainText('Say what needs work.');
  await expect(comment).toContainText('line 5');
  await expect(comment.locator('.anchor')).toHaveText('The second paragraph needs work.');
  await expect(article.locator('p.commented')).toHaveAttribute('data-comments', '1');
  expect(onDisk('.quire/comments/collab/discuss.md.json')).toBe(true);
  // A comment on the whole page, chosen with the keyboard.
  await panel.getByLabel('On').selectOption('0');
  await panel.getByLabel('Comment', { exact: true }).fill('Looks good overall.');
  await panel.getByLabel('Comment', { exact: true }).press('Tab');
  await page.keyboard.press('Enter');
  await expect(panel.getByRole('list', { name: 'Open comments' }).getByTestId('comment')).toHaveCount(2);
  await expect(panel.getByRole('heading')).toHaveText('Comments (2)');
  await shot(page, 'comments');
  await accessible(page);

  await comment.filter({ hasText: 'Say what' }).getByRole('button', { name: 'Resolve' }).click();
  await expect(panel.getByRole('heading')).toHaveText('Comments (1)');
  await expect(article.locator('.commented')).toHaveCount(0);
  await panel.getByText('Resolved (1)').click();
  await expect(panel.getByRole('list', { name: 'Resolved comments' })).toContainText('Say what needs work.');
  await panel.getByRole('list', { name: 'Resolved comments' }).getByRole('button', { name: /^Delete/ }).click();
  await expect(panel.getByText('Resolved (1)')).toBeHidden();
  expect(disk('.quire/comments/collab/discuss.md.json')).not.toContain('Say what needs work.');

  // Someone else comments: the margin shows it (live updates) on the block of line 3.
  await expect(page.locator('.live.on')).toBeVisible();
  const posted = await request.post(api('/comments?path=collab/discuss.md'), { data: { body: 'From elsewhere.', line: 3 }, headers: { 'X-Actor': 'dana' } });
  expect(posted.status()).toBe(201);
  await expect(panel.getByRole('list', { name: 'Open comments' })).toContainText('From elsewhere.');
  await expect(article.locator('p.commented').first()).toHaveText('The first paragraph is fine.');
});

test('share links: create, read without a key, revoke', async ({ page, browser }) => {
  await page.goto(url('/page/collab/shared.md'));
  await page.getByRole('button', { name: 'More actions' }).click();
  await page.getByRole('button', { name: 'Share…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Share collab/shared.md' });
  await dialog.getByLabel('Expires after').selectOption({ label: '1 day' });
  await dialog.getByRole('button', { name: 'Create link' }).click();
  const link = await dialog.getByLabel('Public URL').inputValue();
  expect(link).toMatch(/\/public\/[0-9a-f]+$/);
  await expect(dialog.getByTestId('share')).toHaveCount(1);
  await shot(page, 'share');
  await accessible(page);

  // Someone else, with no key and no session, reads it.
  const other = await browser.newContext();
  const reader = await other.newPage();
  const first = await reader.goto(link);
  expect(first?.status()).toBe(200);
  await expect(reader.locator('body')).toContainText('The secret handshake');

  await dialog.getByRole('button', { name: /^Revoke/ }).click();
  await expect(dialog.getByText('This page has no active share link.')).toBeVisible();
  const again = await reader.goto(link);
  expect(again?.status()).toBe(404);

  // With a password: readers without it are refused.
  await dialog.getByLabel('Password (optional)').fill('open sesame');
  await dialog.getByRole('button', { name: 'Create link' }).click();
  const guarded = await dialog.getByLabel('Public URL').inputValue();
  expect(guarded).not.toBe(link);
  await expect(dialog.getByTestId('share')).toContainText('yes');
  // (a browser would ask for the password: the answer carries a WWW-Authenticate challenge)
  expect((await other.request.get(guarded)).status()).toBe(401);
  expect((await reader.goto(`${guarded}?password=open%20sesame`))?.status()).toBe(200);
  await expect(reader.locator('body')).toContainText('The secret handshake');
  await dialog.getByRole('button', { name: /^Revoke/ }).click();
  await expect(dialog.getByTestId('share')).toHaveCount(0);
  await other.close();
});

test('publish and unpublish a page', async ({ page, browser }) => {
  await page.goto(url('/page/collab/shared.md'));
  // By keyboard: the menu opens on its first item, arrows move, Enter acts.
  await page.getByRole('button', { name: 'More actions' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('button', { name: 'Move / Rename…' })).toBeFocused();
  await page.keyboard.press('End');
  await expect(page.getByRole('button', { name: 'Publish' })).toBeFocused();
  await page.keyboard.press('Enter');
  const note = page.locator('.published');
  await expect(note.getByRole('link')).toHaveAttribute('href', '/p/collab/shared');
  expect(disk('collab/shared.md')).toContain('published: true');
  const other = await browser.newContext();
  const reader = await other.newPage();
  expect((await reader.goto(url('/p/collab/shared')))?.status()).toBe(200);
  await expect(reader.locator('body')).toContainText('The secret handshake');

  await page.getByRole('button', { name: 'More actions' }).click();
  await page.getByRole('button', { name: 'Unpublish' }).click();
  await expect(note).toBeHidden();
  expect((await reader.goto(url('/p/collab/shared')))?.status()).toBe(404);
  await other.close();
});
