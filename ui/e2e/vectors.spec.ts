// Vector search in the browser: a server with `[search.vector] enabled = true` (the local
// model), the search palette saying results are ranked by words and meaning, and a page's
// "Related pages" naming a page near in meaning that it does not link to.
import { expect, test } from '@playwright/test';
import { accessible, shot } from './support';
import { startServer } from './global-setup';

test('related pages and hybrid search with vector search on', async ({ page }) => {
  test.setTimeout(90_000);
  const server = await startServer({
    '.quire/config.toml': '[search.vector]\nenabled = true\n',
    'kitchen/pasta.md': '# Fresh pasta\n\nKnead flour and eggs into a smooth dough, roll it thin and cut noodles.\n',
    'kitchen/sourdough.md': '# Sourdough bread\n\nFeed the starter with flour and water, let the dough rise overnight, then bake it.\n',
    'astronomy/stars.md': '# Stellar distances\n\nAstronomers measure how far away stars are with parallax, in light years.\n',
  });
  try {
    await page.goto(`${server.url}/page/kitchen/pasta.md`);
    await expect(page.locator('article.markdown')).toContainText('Knead flour');
    const related = page.locator('details.related');
    // Embedding runs behind the writes: the first look may come before it is done.
    await expect(async () => {
      await page.reload();
      await page.locator('details.related summary').click();
      await expect(page.locator('details.related li').first()).toContainText('Sourdough bread', { timeout: 2_000 });
    }).toPass({ timeout: 30_000 });
    await expect(related.locator('li').first().getByRole('link')).toHaveAttribute('href', /sourdough\.md$/);
    // A page on another subject is no suggestion; snippets are text, not markdown.
    await expect(related).not.toContainText('Stellar distances');
    await expect(related.locator('li p').first()).not.toContainText('#');
    await shot(page, 'related-pages');
    await accessible(page);

    await page.keyboard.press('Control+k');
    const input = page.getByRole('combobox', { name: 'Search pages' });
    await input.fill('how far away are the stars');
    const dialog = page.getByRole('dialog');
    await expect(dialog.getByRole('option').first()).toContainText('Stellar distances');
    await expect(dialog.locator('.search-state')).toContainText('ranked by words and meaning');
  } finally {
    await server.stop();
  }
});
