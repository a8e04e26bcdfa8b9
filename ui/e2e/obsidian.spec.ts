// An Obsidian-style vault read in the browser at desktop and phone sizes: every construct
// rendered, files that are not pages in their viewers, finding things (quick switcher, tags,
// backlinks, search), and axe in both themes.
import { expect, test, type Page } from '@playwright/test';
import { startServer, type Server } from './global-setup';
import { accessible, shot } from './support';
import { vaultFiles } from './vault';

let server: Server;
test.beforeAll(async () => { server = await startServer(vaultFiles()); });
test.afterAll(async () => { await server.stop(); });

const at = (path: string) => `${server.url}${path}`;
const PHONE = { width: 390, height: 844 };

async function dark(page: Page) {
  await page.getByRole('button', { name: 'Switch to dark mode' }).click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
}

/** Nothing on the page needs sideways scrolling. */
async function noSidewaysScroll(page: Page) {
  const widths = await page.evaluate(() => ({ doc: document.documentElement.scrollWidth, body: document.body.scrollWidth, view: window.innerWidth,
    main: [...document.querySelectorAll('main')].map((m) => m.scrollWidth - m.clientWidth) }));
  expect(widths.doc).toBeLessThanOrEqual(widths.view);
  expect(widths.body).toBeLessThanOrEqual(widths.view);
  for (const extra of widths.main) expect(extra).toBeLessThanOrEqual(1);
}

test('the start screen opens Home.md', async ({ page }) => {
  await page.goto(at('/'));
  await expect(page).toHaveURL(/\/page\/Home\.md$/);
  await expect(page.locator('.page-title')).toHaveText('Home');
});

test('callouts render with type, title, folding and nesting', async ({ page }) => {
  await page.goto(at('/page/Callouts.md'));
  const article = page.locator('article.markdown');
  await expect(article.locator('.callout[data-callout="note"] > .callout-title')).toHaveText('Note');
  await expect(article.locator('.callout[data-callout="warning"] > .callout-title')).toHaveText('Check the oven first');
  await expect(article.locator('.callout[data-callout="warning"] .callout-content p')).toHaveCount(2);
  const folded = article.locator('details.callout[data-callout="tip"]');
  await expect(folded.getByText('Only readers who open')).toBeHidden();
  await folded.locator('summary').click();
  await expect(folded.getByText('Only readers who open')).toBeVisible();
  await expect(article.locator('details.callout[data-callout="success"]')).toHaveAttribute('open', '');
  await expect(article.locator('.callout[data-callout="question"] .callout[data-callout="example"] a', { hasText: 'Home' })).toHaveAttribute('href', '/page/Home.md');
  await expect(article.locator('blockquote')).toHaveText(/A plain quotation/);
  await expect(article).not.toContainText('[!');
  await shot(page, 'obsidian-callouts');
  await accessible(page);
  await dark(page);
  await shot(page, 'obsidian-callouts-dark');
  await accessible(page);
});

test('highlights, comments, footnotes, math, mermaid and task states', async ({ page }) => {
  await page.goto(at('/page/Formatting.md'));
  const article = page.locator('article.markdown');
  await expect(article.locator('mark')).toHaveText('highlighted words');
  await expect(article).not.toContainText('only for editors');
  await expect(article).not.toContainText('hidden paragraph');
  await expect(article.locator('sup.footnote-ref a').first()).toHaveAttribute('href', '#fn-src');
  await expect(article.locator('section.footnotes li')).toHaveCount(2);
  await expect(article.locator('span.math .katex').first()).toBeVisible();
  await expect(article.locator('span.math-display .katex-display')).toHaveCount(1);
  await expect(article).toContainText('$5 and $10');
  await expect(article.locator('figure.diagram svg')).toBeVisible({ timeout: 20_000 });
  await expect(article.locator('li.task')).toHaveCount(5);
  await expect(article.locator('li.task[data-task="/"] .task-box')).toHaveAttribute('aria-label', 'in progress');
  await expect(article.locator('li.task[data-task="x"] input')).toBeChecked();
  await shot(page, 'obsidian-formatting');
  await accessible(page);
  await dark(page);
  await accessible(page);
});

test('block ids, block and heading embeds, sized images, PDF and players', async ({ page }) => {
  await page.goto(at('/page/Blocks.md'));
  await expect(page.locator('article.markdown p[id="^central-claim"]')).toContainText('The central claim');
  await expect(page.locator('article.markdown')).not.toContainText('^central-claim');
  await page.goto(at('/page/Embeds.md'));
  const article = page.locator('article.markdown');
  await expect(article.getByRole('group', { name: 'Embedded from Blocks.md › ^central-claim' })).toContainText('word for word.');
  await expect(article.getByRole('group', { name: 'Embedded from Blocks.md › ^key-item' })).toContainText('the list item others embed');
  const section = article.getByRole('group', { name: 'Embedded from Blocks.md › Procedure' });
  await expect(section).toContainText('Stir gently');
  await expect(section).not.toContainText('Nothing to see');
  const img = article.locator('img[data-asset="assets/diagram.png"]');
  await expect(img).toHaveAttribute('width', '300');
  await expect.poll(() => img.evaluate((i: HTMLImageElement) => i.naturalWidth)).toBe(40);
  await expect(article.locator('iframe.embed-pdf')).toHaveAttribute('src', /paper\.pdf/);
  await expect(article.locator('audio.embed-audio')).toHaveAttribute('src', /tone\.wav/);
  await expect(article.locator('video.embed-video')).toHaveAttribute('src', /clip\.webm/);
  await shot(page, 'obsidian-embeds');
  await accessible(page);
});

test('files that are not pages open in viewers without an Edit button', async ({ page }) => {
  await page.goto(at('/page/assets/diagram.png'));
  await expect(page.getByRole('heading', { level: 1, name: 'diagram.png' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Image diagram.png' }).locator('img')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Edit' })).toHaveCount(0);
  await expect(page.getByText('40 × 20 px')).toBeVisible();
  await shot(page, 'file-image');
  await accessible(page);
  await page.goto(at('/page/code/app.js'));
  const code = page.getByRole('region', { name: 'Contents of app.js' }).or(page.locator('pre.file-text'));
  await expect(code.locator('.hljs-keyword').first()).toBeVisible();
  await expect(page.getByRole('link', { name: 'Edit' })).toHaveCount(0);
  await expect(page.locator('article.markdown')).toHaveCount(0);
  await shot(page, 'file-code');
  await accessible(page);
  await page.goto(at('/page/assets/paper.pdf'));
  await expect(page.locator('iframe.file-pdf')).toHaveAttribute('src', /paper\.pdf/);
  await page.goto(at('/page/assets/archive.zip'));
  await expect(page.getByRole('button', { name: 'Download archive.zip' })).toBeVisible();
});

test('the quick switcher finds pages fuzzily by title, alias and path', async ({ page }) => {
  await page.goto(at('/page/Home.md'));
  await expect(page.locator('.page-title')).toHaveText('Home');
  await page.keyboard.press('Control+O');
  const dialog = page.getByRole('dialog', { name: 'Open a page' });
  const input = dialog.getByRole('combobox');
  await input.fill('canvs');
  await expect(dialog.getByRole('option').first()).toContainText('Canvas ideas');
  await input.fill('board sketch');
  await expect(dialog.getByRole('option').first()).toContainText('Board sketches');
  await input.fill('prjalph');
  await expect(dialog.getByRole('option').first()).toContainText('Alpha plan');
  await shot(page, 'quick-switcher');
  await accessible(page);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/page\/projects\/Alpha%20plan\.md$/);
});

test('search snippets show quotes and signs as written, without flicker', async ({ page }) => {
  await page.goto(at('/page/Home.md'));
  await expect(page.locator('.page-title')).toHaveText('Home');
  await page.keyboard.press('Control+K');
  const dialog = page.getByRole('dialog', { name: 'Search' });
  await expect(dialog.locator('.search-state')).toBeAttached();
  const states: string[] = [];
  await page.exposeFunction('seen', (t: string) => states.push(t));
  await page.evaluate(() => {
    const el = document.querySelector('.search-state')!;
    new MutationObserver(() => (window as unknown as { seen: (t: string) => void }).seen(el.textContent ?? '')).observe(el, { childList: true, characterData: true, subtree: true });
  });
  await dialog.getByRole('combobox').pressSequentially('panic', { delay: 30 });
  const snippet = dialog.locator('.snippet').first();
  await expect(snippet).toContainText('He said "don\'t panic" & wrote 3 > 2');
  await expect(snippet.locator('mark')).toHaveText('panic');
  expect(await snippet.innerHTML()).not.toContain('&amp;quot;');
  expect(states).not.toContain('No results.');
  await accessible(page);
});

test('tags nest with counts and list their pages', async ({ page }) => {
  await page.goto(at('/page/projects/Beta%20plan.md'));
  await page.locator('ul.tags').getByRole('link', { name: '#project/beta' }).click();
  await expect(page).toHaveURL(/\/tags\?tag=project%2Fbeta$/);
  const tags = page.getByRole('navigation', { name: 'All tags' });
  await expect(tags.getByRole('link', { name: '#project' }).locator('xpath=following-sibling::span[1]')).toHaveText('2');
  await expect(tags.getByRole('link', { name: '#beta' })).toBeVisible();
  await expect(page.getByRole('heading', { name: /#project\/beta/ })).toBeVisible();
  await expect(page.locator('.page-list')).toContainText('Beta plan');
  await tags.getByRole('link', { name: '#project', exact: true }).click();
  await expect(page.locator('.page-list li')).toHaveCount(2);
  await shot(page, 'tags');
  await accessible(page);
});

test('backlinks come once per page, rendered, with unlinked mentions', async ({ page }) => {
  await page.goto(at('/page/Blocks.md'));
  const side = page.getByRole('region', { name: /Backlinks/ }).or(page.locator('section.backlinks'));
  await expect(page.locator('#backlinks-title')).toHaveText('Backlinks (3)');
  const quotes = side.locator('li.backlink', { hasText: 'Quotes' });
  await expect(quotes).toHaveCount(1);
  await expect(quotes.locator('.context').first()).not.toContainText('[[');
  await page.goto(at('/page/Callouts.md'));
  await page.locator('details.mentions summary').click();
  await expect(page.locator('details.mentions li', { hasText: 'Quotes' })).toBeVisible();
});

test.describe('at phone size', () => {
  test.use({ viewport: PHONE });

  test('pages reflow, wide content scrolls inside itself, actions stay on screen', async ({ page }) => {
    await page.goto(at('/page/Wide%20things.md'));
    await expect(page.locator('article.markdown table')).toBeVisible();
    await noSidewaysScroll(page);
    for (const name of ['Edit', 'History']) {
      const box = await page.getByRole('link', { name, exact: true }).boundingBox();
      expect(box!.x + box!.width).toBeLessThanOrEqual(PHONE.width);
    }
    const table = page.getByRole('region', { name: 'Table (scrolls sideways)' });
    await expect(table).toHaveAttribute('tabindex', '0');
    expect(await table.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    await expect(page.locator('article pre')).toHaveAttribute('tabindex', '0');
    await shot(page, 'phone-wide');
    await accessible(page);
    // The page's side panel is a drawer.
    await expect(page.locator('#page-side')).toBeHidden();
    await page.getByRole('button', { name: 'Page info' }).click();
    await expect(page.locator('#page-side')).toBeVisible();
    await shot(page, 'phone-drawer');
    await page.getByRole('button', { name: 'Close' }).click();
    await expect(page.locator('#page-side')).toBeHidden();
  });

  test('the main flows work on a phone', async ({ page }) => {
    test.setTimeout(90_000);
    for (const path of ['/page/Callouts.md', '/page/Formatting.md', '/page/Embeds.md', '/tags', '/page/assets/diagram.png', '/history/Home.md']) {
      await page.goto(at(path));
      await expect(page.locator('main')).toBeVisible();
      await expect(page.locator('main[aria-busy="true"]')).toHaveCount(0);
      await page.waitForTimeout(500);
      await noSidewaysScroll(page);
    }
    await page.goto(at('/page/Callouts.md'));
    await page.getByRole('button', { name: 'Pages' }).click();
    await page.getByRole('treeitem', { name: 'Formatting' }).click();
    await expect(page).toHaveURL(/Formatting\.md$/);
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByRole('combobox').fill('embd');
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/Embeds\.md$/);
    await shot(page, 'phone-embeds');
    await accessible(page);
    await dark(page);
    await accessible(page);
  });
});

test('the editor, restructure view, history and graph pass axe in both themes', async ({ page }) => {
  test.setTimeout(120_000);
  for (const theme of ['light', 'dark']) {
    await page.goto(at('/page/Home.md'));
    await expect(page.locator('.page-title')).toHaveText('Home');
    if (theme === 'dark') await dark(page);
    for (const path of ['/edit/Formatting.md', '/restructure', '/history/Home.md', '/graph', '/tags', '/']) {
      await page.goto(at(path));
      await expect(page.locator('main')).toBeVisible();
      if (path.startsWith('/edit')) await expect(page.locator('.cm-content')).toBeVisible();
      if (path.startsWith('/history')) await expect(page.locator('.diff-view')).toBeVisible();
      await page.waitForTimeout(300);
      await accessible(page);
    }
    await page.goto(at('/edit/Formatting.md'));
    await expect(page.locator('.cm-content')).toBeVisible();
    await shot(page, `editor-${theme}`);
  }
});

test('the local graph of a page, filtered by folder, search and orphans', async ({ page }) => {
  await page.goto(at('/page/Blocks.md'));
  await expect(page.locator('.page-title')).toHaveText('Blocks');
  await page.getByRole('button', { name: 'More actions' }).click();
  await page.locator('#more-actions').getByRole('button', { name: 'Local graph' }).click();
  await expect(page).toHaveURL(/\/graph\?path=Blocks\.md&depth=1$/);
  const canvas = page.locator('.graph-canvas');
  // Blocks and the three pages that link to it.
  await expect(canvas).toHaveAttribute('data-drawn', '4');
  await page.getByLabel('Depth').selectOption('2');
  await expect(canvas).not.toHaveAttribute('data-drawn', '4');
  await shot(page, 'graph-local');
  await accessible(page);
  const local = Number(await canvas.getAttribute('data-drawn'));
  await page.getByRole('link', { name: 'Whole vault' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'pages' })).toContainText(/\d+ pages/);
  // The whole vault is drawn once the count passes the local graph's (not before the redraw).
  await expect.poll(async () => Number(await canvas.getAttribute('data-drawn'))).toBeGreaterThan(local);
  const all = Number(await canvas.getAttribute('data-drawn'));
  await page.getByLabel('Folder').selectOption('projects');
  await expect(canvas).toHaveAttribute('data-drawn', '2');
  await page.getByLabel('Folder').selectOption('');
  await page.getByLabel('Orphans').uncheck();
  await expect.poll(async () => Number(await canvas.getAttribute('data-drawn'))).toBeLessThan(all);
  await page.getByLabel('Search').fill('plan');
  await expect(canvas).toHaveAttribute('data-drawn', '2');
  await shot(page, 'graph-filtered');
});

test('the editor previews markup off the cursor line and toggles to source', async ({ page }) => {
  await page.goto(at('/edit/Formatting.md'));
  const content = page.locator('.cm-content');
  await expect(content).toBeVisible();
  await expect(page.locator('.cm-lp-h1')).toHaveText('Formatting');
  await expect(page.locator('.cm-lp-mark').first()).toHaveText('highlighted words');
  const toggle = page.getByRole('button', { name: 'Live preview' });
  await expect(toggle).toHaveAttribute('aria-pressed', 'true');
  await shot(page, 'editor-live-preview');
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-pressed', 'false');
  await expect(page.locator('.cm-lp-mark')).toHaveCount(0);
  await expect(content).toContainText('==highlighted words==');
  await toggle.click();
});
