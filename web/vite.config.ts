import { cpSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { defineConfig, type HtmlTagDescriptor, type Plugin, type UserConfig } from 'vite';
import { PEER_RUNS, REFERENCE_RUNS } from './src/bench/reference-runs';

// Two builds into dist/ (npm run build runs both):
//   vite build                 the pages: index.html (the figures, each figure's code a chunk loaded when it is
//                              needed, and the benchmark panel, loaded on demand) and embed.html (iframe mode for
//                              docs sites that cannot load scripts: /embed.html#figure=tile&...)
//   vite build --mode library  layoutscope.js (src/embed.ts): the one module script a docs site loads; it
//                              registers every <ls-*> element and is a single file (the npm package of the elements
//                              ships it alone, with its .wasm). Stable name at the root of dist/, next to assets/.
// Two builds because one bundle cannot be both: a chunk shared by the page's entries would be imported by
// layoutscope.js too. web/examples/ is copied as it is to dist/examples/: those pages are written the way a docs
// author writes them (a plain <script type="module" src="../layoutscope.js">), so Vite must not rewrite them.
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
// the library build writes into the page build's dist/: what it did not rewrite is not compressed twice
const compressedIsCurrent = (file: string) =>
  ['.br', '.gz'].some((ext) => existsSync(file + ext) && statSync(file + ext).mtimeMs >= statSync(file).mtimeMs);
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
            else if (COMPRESSIBLE.test(name) && !compressedIsCurrent(file)) {
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

// The page's first figure waits for the engine and for its own chunk, which the entry imports dynamically (so that
// the entry is small and runs early): both are preloaded from the HTML, the .wasm in the request mode of the
// engine's fetch (cors, same-origin credentials), the tile figure's chunk and the chunks it imports as module
// preloads. The figure the address scrolls to (#fig=...) is another, and its chunk is fetched when asked for.
function preloadFirstFigure(): Plugin {
  return {
    name: 'layoutscope-preload-first-figure',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        if (!ctx.bundle || !/<ls-/.test(html)) return html;
        const tags: HtmlTagDescriptor[] = [];
        const wasm = Object.keys(ctx.bundle).find((f) => /^assets\/layoutscope-.*\.wasm$/.test(f));
        if (wasm)
          tags.push({
            tag: 'link',
            attrs: { rel: 'preload', href: `./${wasm}`, as: 'fetch', type: 'application/wasm', crossorigin: '' },
            injectTo: 'head',
          });
        if (ctx.chunk && /<ls-tile-layout/.test(html)) {
          const chunks = Object.values(ctx.bundle).filter((c) => c.type === 'chunk');
          const first = chunks.find((c) => c.moduleIds.some((id) => id.endsWith('/src/figures/tile-layout.ts')));
          const files = new Set<string>();
          const add = (name: string) => {
            const c = chunks.find((k) => k.fileName === name);
            if (!c || files.has(name) || ctx.chunk!.imports.includes(name) || name === ctx.chunk!.fileName) return;
            files.add(name);
            c.imports.forEach(add);
          };
          if (first) add(first.fileName);
          for (const f of files)
            tags.push({
              tag: 'link',
              attrs: { rel: 'modulepreload', crossorigin: '', href: `./${f}` },
              injectTo: 'head',
            });
        }
        return { html, tags };
      },
    },
  };
}

// The modules the tile figure needs besides what the page's entry loads (the engine, the URL state).
const FIRST_FIGURE =
  /\/src\/(core\/(figure|scene|theme|dtype|control-styles|save-file|style-props)|i18n\/strings|figures\/(tile-layout|draw))\.ts$|\/node_modules\/(lit|lit-html|lit-element|@lit\/reactive-element)\//;

// What both builds share: relative URLs, the engine's worker (src/core/engine-worker.ts) an ES module as the Emscripten
// module it imports, the .wasm and other assets as files in dist/assets/.
const shared = { base: './', worker: { format: 'es' as const } };
const sharedBuild = { target: 'es2022', outDir: 'dist', assetsInlineLimit: 0 };

const pages: UserConfig = {
  ...shared,
  plugins: [copyExamples(), copyReferenceRuns(), preloadFirstFigure(), precompress()],
  build: {
    ...sharedBuild,
    emptyOutDir: true,
    rollupOptions: {
      input: {
        index: resolve(here, 'index.html'),
        embed: resolve(here, 'embed.html'),
      },
      // the first figure's code in one chunk (the figure base, Lit, the tile figure and its helpers) rather than
      // one per module: fewer requests before the first figure
      output: {
        codeSplitting: {
          groups: [{ name: 'figure', test: FIRST_FIGURE, includeDependenciesRecursively: false }],
        },
      },
    },
  },
};

const library: UserConfig = {
  ...shared,
  plugins: [precompress()],
  // public/ is the page build's
  publicDir: false,
  build: {
    ...sharedBuild,
    emptyOutDir: false,
    rollupOptions: {
      input: { layoutscope: resolve(here, 'src/embed.ts') },
      preserveEntrySignatures: 'allow-extension',
      output: { entryFileNames: 'layoutscope.js' },
    },
  },
};

export default defineConfig(({ mode }) => (mode === 'library' ? library : pages));
