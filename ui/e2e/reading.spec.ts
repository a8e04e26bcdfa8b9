import { expect, test } from '@playwright/test';
import { accessible, shot, url } from './support';
import { startServer } from './global-setup';
import { PNG } from './seed';

test('embeds, images and highlighted code', async ({ page }) => {
  await page.goto(url('/page/embeds/host.md'));
  const article = page.locator('article.markdown');
  await expect(article.getByRole('group', { name: 'Embedded from embeds/part.md' })).toContainText('Embedded body text.');
  const section = article.getByRole('group', { name: 'Embedded from embeds/sectioned.md › Second' });
  await expect(section).toContainText('Only the second section.');
  await expect(section).not.toContainText('Not this');
  // A embeds B, B would embed A again: it stays a link.
  const loopB = article.getByRole('group', { name: 'Embedded from embeds/loop-b.md' });
  await expect(loopB).toContainText('B embeds');
  await expect(loopB.locator('.transclusion[data-state="skipped"]')).toHaveCount(1);
  for (const img of await article.locator('img').all()) {
    await expect(img).toHaveJSProperty('complete', true);
    expect(await img.evaluate((i: HTMLImageElement) => i.naturalWidth)).toBe(2);
  }
  await expect(article.locator('img')).toHaveCount(2);
  const code = article.locator('pre code.hljs');
  await expect(code).toHaveAttribute('data-highlighted', 'yes');
  await expect(code.locator('.hljs-keyword').first()).toHaveText('fn');
  await shot(page, 'embeds-and-code');
  await accessible(page);
});

test('images are fetched with the API key when there is one', async ({ page }) => {
  await page.goto(url('/'));
  await page.evaluate(() => sessionStorage.setItem('quire.apiKey', 'a-key'));
  const asked: (string | null)[] = [];
  page.on('request', (r) => { if (r.url().includes('pic.png')) asked.push(r.headers().authorization ?? null); });
  await page.goto(url('/page/embeds/host.md'));
  const img = page.locator('article.markdown img').first();
  await expect(img).toHaveAttribute('src', /^data:image\/png;base64,/);
  expect(await img.evaluate((i: HTMLImageElement) => i.naturalWidth)).toBe(2);
  expect(asked.length).toBeGreaterThan(0);
  expect(asked.every((a) => a === 'Bearer a-key')).toBe(true);
});

test('history has a blame view', async ({ page }) => {
  await page.goto(url('/history/embeds/part.md'));
  await page.getByRole('button', { name: 'Blame' }).click();
  const table = page.getByRole('table', { name: 'Blame of embeds/part.md' });
  await expect(table).toContainText('Embedded body text.');
  await expect(table.locator('tbody tr')).toHaveCount(3);
  await expect(page.getByRole('button', { name: 'Blame' })).toHaveAttribute('aria-pressed', 'true');
  await shot(page, 'blame');
  await accessible(page);
  // A commit of the blame opens its changes.
  await table.locator('tbody tr').first().getByRole('button').click();
  await expect(page.getByRole('button', { name: 'Changes' })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.locator('.diff-view tr.add', { hasText: 'Embedded body text.' })).toHaveCount(1);
});

test('with auth on, the key prompt lets pages and their images in', async ({ page }) => {
  const key = 'e2e-secret-key-0123456789';
  const server = await startServer({
    '.quire/config.toml': `[auth]\ntype = "apikey"\napi_key = "${key}"\n`,
    'index.md': '# Welcome\n\nA picture: ![red square](pic.png)\n',
    'pic.png': PNG,
  }, key);
  try {
    expect((await fetch(`${server.url}/api/quire/file?path=pic.png`)).status).toBe(401);
    await page.goto(`${server.url}/page/index.md`);
    const prompt = page.getByRole('dialog', { name: 'API key needed' });
    await prompt.getByLabel('API key').fill(key);
    await prompt.getByRole('button', { name: 'Use key' }).click();
    const img = page.locator('article.markdown img');
    await expect(img).toHaveAttribute('src', /^data:image\/png;base64,/);
    expect(await img.evaluate((i: HTMLImageElement) => i.naturalWidth)).toBe(2);
  } finally {
    await server.stop();
  }
});
