import { expect, test } from '@playwright/test';
import { accessible, api, disk, shot, url } from './support';

test('a saved view runs as a table', async ({ page }) => {
  await page.goto(url('/views'));
  await page.getByRole('navigation', { name: 'Saved views' }).getByRole('link', { name: 'open-tasks' }).click();
  await expect(page).toHaveURL(/\/views\?name=open-tasks$/);
  const table = page.getByRole('table', { name: 'Rows of open-tasks' });
  await expect(table.locator('thead')).toContainText('priority');
  const rows = table.locator('tbody tr');
  await expect(rows).toHaveCount(3);
  await expect(rows.first()).toContainText('tasks/one');
  await expect(page.getByRole('status')).toHaveText('3 rows');
  await shot(page, 'views');
  await accessible(page);
  await rows.first().getByRole('link').click();
  await expect(page).toHaveURL(/\/page\/tasks\/one\.md$/);
});

test('a grouped view shows its groups', async ({ page }) => {
  await page.goto(url('/views?name=by-status'));
  const table = page.getByRole('table', { name: 'Rows of by-status' });
  const groups = table.locator('tr.group-row');
  await expect(groups).toHaveCount(2);
  await expect(groups.first()).toHaveText('closed (1)');
  await expect(groups.nth(1)).toHaveText('open (2)');
  await expect(table.locator('tbody tr')).toHaveCount(5);
  await accessible(page);
});

test('the workflow board moves cards by select and by drag and drop', async ({ page }) => {
  await page.goto(url('/board'));
  const board = page.getByTestId('board');
  const column = (name: string) => board.getByRole('region', { name: new RegExp(`^${name} `) });
  await expect(column('draft').getByTestId('card')).toHaveCount(2);
  await expect(column('done').getByTestId('card')).toHaveCount(1);
  await shot(page, 'board');
  await accessible(page);

  // Keyboard way: the card's "Move to" select offers the transitions out of its state.
  const select = page.getByLabel('Move Task one to');
  await expect(select.locator('option')).toHaveText(['…', 'review']);
  await select.selectOption('review');
  await expect(page.getByRole('status').filter({ hasText: 'Moved Task one from draft to review.' })).toBeVisible();
  await expect(column('review').getByTestId('card')).toHaveCount(1);
  expect(disk('tasks/one.md')).toContain('state: review');

  // Drag and drop.
  await column('draft').getByTestId('card').filter({ hasText: 'Task two' }).dragTo(column('review'));
  await expect(column('review').getByTestId('card')).toHaveCount(2);
  await expect(column('draft').getByTestId('card')).toHaveCount(0);
  expect(disk('tasks/two.md')).toContain('state: review');
});

test('a canvas renders read-only and its file nodes open pages', async ({ page }) => {
  await page.goto(url('/canvas'));
  await page.getByRole('navigation', { name: 'Canvases' }).getByRole('link', { name: 'maps/ideas' }).click();
  const svg = page.getByRole('group', { name: 'Canvas maps/ideas.canvas.json' });
  await expect(svg.getByTestId('canvas-node')).toHaveCount(4);
  await expect(svg.getByTestId('canvas-edge')).toHaveCount(2);
  await expect(svg).toContainText('A thought about letters');
  await expect(svg.locator('strong')).toHaveText('thought');
  await expect(svg.getByRole('link', { name: 'letters' })).toHaveAttribute('href', '/page/notes/alpha.md');
  await expect(svg).toContainText('Letters');
  await expect(svg).toContainText('see');
  await expect(svg.getByRole('link', { name: 'https://example.org/' })).toHaveAttribute('target', '_blank');
  await shot(page, 'canvas');
  await accessible(page);
  await svg.getByRole('link', { name: 'beta' }).click();
  await expect(page).toHaveURL(/\/page\/notes\/beta\.md$/);
  await expect(page.locator('article.markdown')).toContainText('zebra');
});

test('the new views pass axe in dark mode too', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  for (const [path, ready] of [
    ['/page/embeds/host.md', '.embedded'],
    ['/views?name=open-tasks', 'tbody tr'],
    ['/board', '.board-card'],
    ['/canvas?path=maps%2Fideas.canvas.json', '[data-testid=canvas-node]'],
  ] as const) {
    await page.goto(url(path));
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
    await expect(page.locator(ready).first()).toBeVisible();
    await accessible(page);
  }
  await shot(page, 'canvas-dark');
});

test('the board and a view follow changes made elsewhere without a reload', async ({ page, request }) => {
  await page.goto(url('/board'));
  const board = page.getByTestId('board');
  const column = (name: string) => board.getByRole('region', { name: new RegExp(`^${name} `) });
  await expect(board.getByTestId('card').first()).toBeVisible();
  const drafts = await column('draft').getByTestId('card').count();

  // Another client (an agent, say) adds a task: its card appears in its column.
  const put = await request.put(api('/file?path=tasks/four.md'), {
    data: '---\nstatus: open\npriority: 4\nworkflow: review\nstate: draft\n---\n# Task four\n',
    headers: { 'X-Actor': 'erin' },
  });
  expect(put.status()).toBe(200);
  await expect(column('draft').getByTestId('card')).toHaveCount(drafts + 1);
  await expect(column('draft').getByTestId('card').filter({ hasText: 'Task four' })).toBeVisible();

  // A saved view follows too: open with the new row, then the task is deleted elsewhere.
  await page.goto(url('/views?name=open-tasks'));
  const rows = page.getByRole('table', { name: 'Rows of open-tasks' }).locator('tbody tr');
  await expect(rows).toHaveCount(4);
  expect((await request.delete(api('/file?path=tasks/four.md'), { headers: { 'X-Actor': 'erin' } })).status()).toBe(200);
  await expect(rows).toHaveCount(3);
  await expect(page.getByRole('status')).toHaveText('3 rows');
});

test('a canvas zooms with its buttons and pans by dragging its background', async ({ page }) => {
  await page.goto(url('/canvas?path=maps%2Fideas.canvas.json'));
  const svg = page.getByRole('group', { name: 'Canvas maps/ideas.canvas.json' });
  await expect(svg.getByTestId('canvas-node')).toHaveCount(4);
  const level = page.getByTestId('zoom-level');
  await expect(level).toHaveText('Fit');
  const fitted = (await svg.boundingBox())!.width;

  const zoomIn = page.getByRole('button', { name: 'Zoom in' });
  for (let i = 0; i < 4; i++) await zoomIn.click();
  await expect(level).not.toHaveText('Fit');
  const wide = (await svg.boundingBox())!.width;
  expect(wide).toBeGreaterThan(fitted * 2);

  // Zoomed past the view: dragging the background (not a node: that moves the node) scrolls it.
  const view = page.getByTestId('canvas-scroll');
  const start = await view.evaluate((el) => {
    const r = el.getBoundingClientRect();
    for (let y = r.top + 10; y < r.bottom - 10; y += 15) {
      for (let x = r.right - 20; x > r.left + 150; x -= 15) {
        const hit = document.elementFromPoint(x, y);
        if (hit && el.contains(hit) && !hit.closest('[data-node-id], a')) return { x, y };
      }
    }
    return null;
  });
  expect(start).not.toBeNull();
  const before = await view.evaluate((el) => el.scrollLeft);
  await page.mouse.move(start!.x, start!.y);
  await page.mouse.down();
  await page.mouse.move(start!.x - 120, start!.y, { steps: 5 });
  await page.mouse.up();
  expect(await view.evaluate((el) => el.scrollLeft)).toBeGreaterThan(before);
  await accessible(page);

  await page.getByRole('button', { name: 'Fit' }).click();
  await expect(level).toHaveText('Fit');
  expect(Math.round((await svg.boundingBox())!.width)).toBe(Math.round(fitted));
});

test('a canvas node moves by dragging or by the arrow keys, and the position is saved', async ({ page, request }) => {
  const canvas = {
    nodes: [
      { id: 'one', type: 'text', text: 'First idea', x: 0, y: 0, width: 200, height: 80 },
      { id: 'two', type: 'text', text: 'Second idea', x: 400, y: 0, width: 200, height: 80 },
    ],
    edges: [{ id: 'e', fromNode: 'one', toNode: 'two' }],
  };
  expect((await request.put(api('/canvas?path=maps/moving.canvas.json'), { data: canvas, headers: { 'X-Actor': 'erin' } })).status()).toBe(200);
  const saved = async () => (await (await request.get(api('/canvas?path=maps/moving.canvas.json'))).json()).nodes as { id: string; x: number; y: number }[];

  await page.goto(url('/canvas?path=maps%2Fmoving.canvas.json'));
  const svg = page.getByRole('group', { name: 'Canvas maps/moving.canvas.json' });
  const one = svg.locator('[data-node-id=one]');
  await expect(one).toBeVisible();
  await accessible(page);

  // Drag the first node down by about 40 px on screen.
  const box = (await one.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2 + 40, { steps: 6 });
  await page.mouse.up();
  await expect(page.getByRole('status').filter({ hasText: /Moved First idea to 0, \d+\./ })).toBeVisible();
  await expect.poll(async () => (await saved()).find((n) => n.id === 'one')!.y).toBeGreaterThan(20);
  const afterDrag = (await saved()).find((n) => n.id === 'one')!;
  expect(afterDrag.x).toBe(0);

  // The keyboard way: focus the second node, two steps right (one with Shift).
  await svg.locator('[data-node-id=two]').focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Shift+ArrowRight');
  await expect.poll(async () => (await saved()).find((n) => n.id === 'two')!.x).toBe(460);
  const after = await saved();
  expect(after.find((n) => n.id === 'one')).toEqual(expect.objectContaining({ x: 0, y: afterDrag.y }));
  expect((await (await request.get(api('/canvas?path=maps/moving.canvas.json'))).json()).edges).toHaveLength(1);
});
