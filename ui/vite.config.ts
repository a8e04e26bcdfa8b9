/// <reference types="vitest/config" />
import { defineConfig } from 'vite';

// KaTeX's stylesheet names each font three times (woff2, woff, ttf); every browser the UI
// supports reads woff2, so the others are left out of the build.
const woff2Only = {
  name: 'quire-katex-woff2-only',
  enforce: 'pre' as const,
  transform(code: string, id: string) {
    if (!/katex(\.min)?\.css$/.test(id)) return null;
    return code.replace(/,\s*url\([^)]*\.(?:woff|ttf)\)\s*format\("(?:woff|truetype)"\)/g, '');
  },
};

// Deterministic output: content-hashed names only, no timestamps, no source maps. The build in
// dist/ is committed and CI checks that a fresh build is byte-identical.
export default defineConfig({
  plugins: [woff2Only],
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  resolve: {
    alias: { react: 'preact/compat', 'react-dom': 'preact/compat' },
  },
  base: '/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
    chunkSizeWarningLimit: 700,
    rollupOptions: {
      output: {
        entryFileNames: 'assets/[name]-[hash].js',
        chunkFileNames: 'assets/[name]-[hash].js',
        assetFileNames: 'assets/[name]-[hash][extname]',
      },
    },
  },
  server: {
    proxy: { '/api': 'http://127.0.0.1:3333' },
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
  },
});
