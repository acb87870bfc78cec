import { defineConfig } from 'vite';

// The page and its elements. `embed` is the one-script bundle docs sites load (issue 6 grows it).
export default defineConfig({
  base: './',
  build: {
    target: 'es2022',
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
  },
});
