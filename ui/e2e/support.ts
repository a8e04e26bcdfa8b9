import { fileURLToPath } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';
import { readFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const HERE = fileURLToPath(new URL('.', import.meta.url));

export const url = (path: string) => `${process.env.QUIRE_URL}${path}`;
export const api = (path: string) => url(`/api/quire${path}`);
export const disk = (path: string) => readFileSync(join(process.env.QUIRE_ROOT_DIR!, path), 'utf8');
export const onDisk = (path: string) => existsSync(join(process.env.QUIRE_ROOT_DIR!, path));

const SHOTS = process.env.QUIRE_SCREENSHOTS ?? resolve(HERE, '../screenshots');

/** Saves a screenshot of a main view (an artefact: CI does not compare it). */
export async function shot(page: Page, name: string) {
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

/** axe-core finds no violation of WCAG 2 A/AA rules on what is shown. */
export async function accessible(page: Page) {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  expect(results.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`)).toEqual([]);
}

/** Replaces the text of the CodeMirror editor on the page. */
export async function setEditorText(page: Page, text: string) {
  const content = page.locator('.cm-content');
  await content.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}
