import { defineConfig } from '@playwright/test';
import base from '../playwright.config';

// `QUIRE_BENCH_PAGES=10000 npx playwright test -c bench/playwright.bench.config.ts`: the
// browser-side figures of docs/PERFORMANCE.md. Not a CI test.
export default defineConfig({
  ...base,
  testDir: '.',
  testMatch: /.*\.bench\.ts/,
  globalSetup: '../e2e/global-setup.ts',
  timeout: 600_000,
});
