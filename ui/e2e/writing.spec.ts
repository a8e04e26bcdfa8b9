import { expect, type Page, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { accessible, disk, onDisk, shot, url } from './support';
import { PNG } from './seed';

test('a new page from a template', async ({ page }) => {
  await page.goto(url('/new'));
  await page.getByLabel('Path of the new page').fill('meetings/standup');
  await page.getByLabel('Template').selectOption('meeting');
  await shot(page, 'new-from-template');
  await accessible(page);
  await page.getByRole('button', { name: 'Create' }).click();
  // Live preview shows the heading as a heading (its `#` hidden off the cursor's line).
  await expect(page.locator('.cm-lp-h1')).toHaveText('standup');
  await expect(page.locator('.cm-content')).toContainText('type: meeting');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('status')).toHaveText('Saved');
  const text = disk('meetings/standup.md');
  expect(text).toContain('type: meeting');
  expect(text).toMatch(/Date: \d{4}-\d{2}-\d{2}/);
});

/** A DataTransfer in the page holding one PNG file named `name`. */
const pngTransfer = (page: Page, name: string) => page.evaluateHandle(([b64, n]) => {
  const dt = new DataTransfer();
  dt.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], n, { type: 'image/png' }));
  return dt;
}, [PNG.toString('base64'), name] as const);

test('files dropped or pasted into the editor are uploaded and linked', async ({ page }) => {
  await page.goto(url('/edit/writing/drop.md'));
  const content = page.locator('.cm-content');
  await expect(content).toContainText('Files land here.');
  const box = (await content.locator('.cm-line').last().boundingBox())!;
  await content.dispatchEvent('drop', { dataTransfer: await pngTransfer(page, 'dropped.png'), clientX: box.x + box.width - 2, clientY: box.y + box.height / 2 });
  await expect(content).toContainText('![dropped.png](../assets/dropped.png)');
  expect(onDisk('assets/dropped.png')).toBe(true);
  expect(readFileSync(join(process.env.QUIRE_ROOT_DIR!, 'assets/dropped.png')).equals(PNG)).toBe(true);

  // Paste at the cursor: the end of the page.
  await content.click();
  await page.keyboard.press('Control+End');
  await page.keyboard.press('Enter');
  const pasted = await pngTransfer(page, 'pasted.png');
  await content.evaluate((el, dt) => el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true })), pasted);
  await expect(content).toContainText('![pasted.png](../assets/pasted.png)');
  expect(onDisk('assets/pasted.png')).toBe(true);

  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('status')).toHaveText('Saved');
  const text = disk('writing/drop.md');
  expect(text).toContain('![dropped.png](../assets/dropped.png)');
  expect(text).toContain('![pasted.png](../assets/pasted.png)');
  await page.goto(url('/page/writing/drop.md'));
  const imgs = page.locator('article.markdown img');
  await expect(imgs).toHaveCount(2);
  await expect(imgs.first()).toHaveJSProperty('naturalWidth', 2);
});
