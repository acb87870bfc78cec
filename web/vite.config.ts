import { cpSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import { PEER_RUNS, REFERENCE_RUNS } from './src/bench/reference-runs';

// Three HTML pages and one library entry:
//   index.html   the page (figures + benchmark panel, which is loaded on demand)
//   embed.html   iframe mode for docs sites that cannot load scripts: /embed.html#figure=tile&...
//   layoutscope.js (src/embed.ts)  the one module script a docs site loads; it registers every <ls-*>
//                element. Stable name at the root of dist/, next to assets/ (its .wasm).
// web/examples/ is copied as it is to dist/examples/: those pages are written the way a docs author writes
// them (a plain <script type="module" src="../layoutscope.js">), so Vite must not rewrite them.
const here = dirname(fileURLToPath(import.meta.url));

function copyExamples(): Plugin {
  return {
    name: 'layoutscope-copy-examples',
    apply: 'build',
    closeBundle() {
      const from = resolve(here, 'examples');
      if (existsSync(from)) cpSync(from, resolve(here, 'dist', 'examples'), { recursive: true });
    },
  };
}

// The committed H200 runs (docs/results/, agent result documents) go to dist/results/, so that the benchmark
// panel can open them without a GPU (its "H200 reference runs" button).
function copyReferenceRuns(): Plugin {
  return {
    name: 'layoutscope-copy-reference-runs',
    apply: 'build',
    closeBundle() {
      for (const name of [...REFERENCE_RUNS, ...PEER_RUNS]) {
        const from = resolve(here, '..', 'docs', 'results', name);
        if (existsSync(from)) cpSync(from, resolve(here, 'dist', 'results', name));
      }
    },
  };
}

// x.br and x.gz next to every compressible file of dist/, written once at build time, so that a server sends the
// file that matches Accept-Encoding instead of compressing per request (brotli at quality 11 costs hundreds of
// milliseconds for the larger chunks). A compressed copy no smaller than the original is not written.
const COMPRESSIBLE = /\.(html|js|mjs|css|wasm|json|svg|txt|map|ico)$/;
function precompress(): Plugin {
  let outDir = resolve(here, 'dist');
  return {
    name: 'layoutscope-precompress',
    apply: 'build',
    enforce: 'post',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    closeBundle: {
      order: 'post',
      handler() {
        const walk = (dir: string) => {
          for (const name of readdirSync(dir)) {
            const file = join(dir, name);
            if (statSync(file).isDirectory()) walk(file);
            else if (COMPRESSIBLE.test(name)) {
              const body = readFileSync(file);
              const br = brotliCompressSync(body, {
                params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
              });
              const gz = gzipSync(body, { level: 9 });
              if (br.length < body.length) writeFileSync(`${file}.br`, br);
              if (gz.length < body.length) writeFileSync(`${file}.gz`, gz);
            }
          }
        };
        walk(outDir);
      },
    },
  };
}

// The page's first figure waits for the engine: the .wasm is preloaded from the HTML, in parallel with the module
// that will ask for it (same request mode as Emscripten's fetch: cors, same-origin credentials).
function preloadWasm(): Plugin {
  return {
    name: 'layoutscope-preload-wasm',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        if (!ctx.bundle || !/<ls-/.test(html)) return html;
        const wasm = Object.keys(ctx.bundle).find((f) => /^assets\/layoutscope-.*\.wasm$/.test(f));
        if (!wasm) return html;
        return {
          html,
          tags: [
            {
              tag: 'link',
              attrs: { rel: 'preload', href: `./${wasm}`, as: 'fetch', type: 'application/wasm', crossorigin: '' },
              injectTo: 'head',
            },
          ],
        };
      },
    },
  };
}

export default defineConfig({
  base: './',
  plugins: [copyExamples(), copyReferenceRuns(), preloadWasm(), precompress()],
  // the engine's worker (src/engine-worker.ts) is an ES module, as the Emscripten module it imports
  worker: { format: 'es' },
  build: {
    target: 'es2022',
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    rollupOptions: {
      input: {
        index: resolve(here, 'index.html'),
        embed: resolve(here, 'embed.html'),
        layoutscope: resolve(here, 'src/embed.ts'),
      },
      preserveEntrySignatures: 'allow-extension',
      output: {
        entryFileNames: (chunk) => (chunk.name === 'layoutscope' ? 'layoutscope.js' : 'assets/[name]-[hash].js'),
      },
    },
  },
});
