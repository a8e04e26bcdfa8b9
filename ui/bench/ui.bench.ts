// Page open time (navigation → page rendered, measured in the page with performance.now())
// and tree scrolling frame times on the benchmark vault.
import { expect, test } from '@playwright/test';
import { url } from '../e2e/support';

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

test('page open and tree scroll', async ({ page }) => {
  const pages = Number(process.env.QUIRE_BENCH_PAGES ?? 0);
  await page.goto(url('/page/topic-0/page-0.md'));
  await expect(page.locator('article.markdown')).toContainText('Section 3');

  // Page opens: click a link in the page, wait until the new title is rendered.
  // "Open": title and body rendered; "complete": backlinks and properties in as well.
  const times: number[] = [];
  const complete: number[] = [];
  for (let i = 0; i < 40; i++) {
    const target = (i * 37 + 1) % pages;
    const ms = await page.evaluate(async (target) => {
      const start = performance.now();
      history.pushState(null, '', `/page/topic-${Math.floor(target / 100)}/page-${target}.md`);
      window.dispatchEvent(new Event('quire:navigate'));
      let open = 0;
      for (;;) {
        const h = document.querySelector('.page-title');
        const article = document.querySelector('article.markdown');
        if (!open && h?.textContent === `Page ${target}` && article?.textContent?.includes(`Text of page ${target},`)) open = performance.now() - start;
        const backlinks = document.querySelector('#backlinks-title')?.textContent ?? '…';
        if (open && !backlinks.includes('…') && document.querySelector('.properties, .page-side .small')) break;
        await new Promise((r) => requestAnimationFrame(r));
      }
      return [open, performance.now() - start];
    }, target);
    times.push(ms[0]);
    complete.push(ms[1]);
  }
  console.log(`page open over ${pages} pages: median ${pct(times, 0.5).toFixed(1)} ms, p95 ${pct(times, 0.95).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms`);
  console.log(`page complete (backlinks, properties): median ${pct(complete, 0.5).toFixed(1)} ms, p95 ${pct(complete, 0.95).toFixed(1)} ms`);
  // Where the time goes: the API calls of those opens, by endpoint (Resource Timing).
  const calls = await page.evaluate(() => performance.getEntriesByType('resource')
    .filter((e) => e.name.includes('/api/quire/'))
    .map((e) => ({ route: new URL(e.name).pathname.replace('/api/quire', ''), ms: e.duration })));
  const byRoute = new Map<string, number[]>();
  for (const c of calls) byRoute.set(c.route, [...(byRoute.get(c.route) ?? []), c.ms]);
  for (const [route, ms] of byRoute) console.log(`  ${route}: ${ms.length} calls, median ${pct(ms, 0.5).toFixed(1)} ms, p95 ${pct(ms, 0.95).toFixed(1)} ms`);

  // Tree: expand every folder (the whole vault in the list), then scroll and time frames.
  const frames = await page.evaluate(async () => {
    const tree = document.querySelector('.tree') as HTMLElement;
    const dirs = () => [...tree.querySelectorAll<HTMLElement>('[role=treeitem][aria-expanded=false]')];
    for (let guard = 0; guard < 500; guard++) {
      const closed = dirs();
      if (!closed.length) { tree.scrollTop += tree.clientHeight; await new Promise((r) => requestAnimationFrame(r)); if (tree.scrollTop + tree.clientHeight >= tree.scrollHeight) break; continue; }
      closed.forEach((d) => d.click());
      await new Promise((r) => requestAnimationFrame(r));
    }
    tree.scrollTop = 0;
    const deltas: number[] = [];
    let last = performance.now();
    for (let i = 0; i < 300; i++) {
      tree.scrollTop += 120;
      await new Promise((r) => requestAnimationFrame(r));
      const now = performance.now();
      deltas.push(now - last);
      last = now;
    }
    return { deltas, rows: Number(tree.querySelector('[role=treeitem]')?.getAttribute('aria-setsize')) };
  });
  const over = frames.deltas.filter((d) => d > 1000 / 60 * 1.5).length;
  console.log(`tree of ${frames.rows} rows, 300 scroll steps: median frame ${pct(frames.deltas, 0.5).toFixed(1)} ms, p95 ${pct(frames.deltas, 0.95).toFixed(1)} ms, ${over} frames over 25 ms`);
});

test('graph of the whole vault: time to first frame', async ({ page }) => {
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    await page.goto(url('/graph'));
    await expect(page.locator('.graph-canvas[data-drawn]')).toBeAttached({ timeout: 300_000 });
    const ms = await page.evaluate(() => performance.getEntriesByName('quire:graph-first-frame').map((e) => e.duration)[0]);
    const shown = await page.locator('.graph-canvas').getAttribute('data-drawn');
    const parts = await page.evaluate(() => ({
      draw: performance.getEntriesByName('quire:graph-draw').map((e) => e.duration)[0],
      calls: performance.getEntriesByType('resource').filter((e) => /\/api\/quire\/(graph|query)/.test(e.name)).map((e) => `${new URL(e.name).pathname.replace('/api/quire', '')} ${e.duration.toFixed(0)} ms`),
    }));
    times.push(ms);
    console.log(`graph: ${shown} nodes, first frame ${ms.toFixed(0)} ms after the view opened (drawing ${parts.draw.toFixed(0)} ms; ${parts.calls.join(', ')})`);
  }
  console.log(`graph first frame: median ${pct(times, 0.5).toFixed(0)} ms`);
  // Panning a frame later: edges hidden while moving, labels placed after.
  const pan = await page.evaluate(async () => {
    const start = performance.now();
    const el = document.querySelector('.graph-canvas canvas') as HTMLCanvasElement;
    el.dispatchEvent(new WheelEvent('wheel', { deltaY: -200, clientX: 300, clientY: 300, bubbles: true }));
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    return performance.now() - start;
  });
  console.log(`graph zoom step to the second frame: ${pan.toFixed(0)} ms`);
});
