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
//                              registers every <ls-*> element and is a single file. Stable name at the root of
//                              dist/, next to assets/.
//   vite build --mode library-worker
//                              engine-worker.js (src/core/engine-worker.ts) next to layoutscope.js: the worker it starts
//                              as new Worker(new URL('./engine-worker.js', import.meta.url)), the form a site's
//                              bundler (Vite, webpack 5) follows, so the site's build bundles the worker and its .wasm.
//   vite build --mode library-node
//                              layoutscope.node.js: the same module for a server-side render (the npm package's
//                              "node" export): Lit's server build, so that importing it in Node defines the elements
//                              into Lit's DOM shim instead of throwing; no figure is drawn there.
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

// The library's worker is a file of its own next to layoutscope.js (engine-worker.js, built by the library-worker
// mode), started by a URL a site's bundler can follow: new URL('./engine-worker.js', import.meta.url). Vite's own
// worker handling would instead emit assets/engine-worker-<hash>.js behind a computed URL, which a site's bundler
// copies as an opaque file (or not at all): its .wasm reference then points nowhere and every slow call falls back
// to the main thread. The comment keeps Vite from resolving the URL in this build; the minifier drops it.
const WORKER_URL = "new URL('./engine-worker.ts', import.meta.url)";
function workerBesideModule(): Plugin {
  let found = false;
  return {
    name: 'layoutscope-worker-beside-module',
    enforce: 'pre',
    transform(code, id) {
      if (!id.startsWith(resolve(here, 'src')) || !code.includes(WORKER_URL)) return null;
      found = true;
      return code.replace(WORKER_URL, "new URL(/* @vite-ignore */ './engine-worker.js', import.meta.url)");
    },
    buildEnd() {
      // a renamed worker must not leave the package with Vite's own, unreachable one
      if (!found) this.error(`no module of src/ starts the engine's worker with ${WORKER_URL}`);
    },
  };
}

// In the server build no file is fetched, and a site's server bundle must not try to resolve the browser's files
// (webpack and Vite follow every new URL('literal', import.meta.url)): the base becomes a value they do not read.
function noFileUrlsOnTheServer(): Plugin {
  const re = /new URL\((\s*(['"`])[^'"`]+\2\s*),\s*import\.meta\.url\s*\)/g;
  return {
    name: 'layoutscope-no-file-urls-on-the-server',
    enforce: 'pre',
    transform(code, id) {
      if (!id.startsWith(resolve(here, 'src'))) return null;
      return code.replace(re, 'new URL($1, String(import.meta.url))');
    },
  };
}

const library: UserConfig = {
  ...shared,
  plugins: [workerBesideModule(), precompress()],
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

const libraryWorker: UserConfig = {
  ...shared,
  plugins: [precompress()],
  publicDir: false,
  build: {
    ...sharedBuild,
    emptyOutDir: false,
    rollupOptions: {
      input: { 'engine-worker': resolve(here, 'src/core/engine-worker.ts') },
      output: { entryFileNames: 'engine-worker.js' },
    },
  },
};

const libraryNode: UserConfig = {
  base: './',
  publicDir: false,
  plugins: [noFileUrlsOnTheServer()],
  // everything bundled (the package has no dependencies), Lit resolved with its "node" condition
  ssr: { noExternal: true, target: 'node' },
  build: {
    ssr: resolve(here, 'src/embed.ts'),
    target: 'es2022',
    outDir: 'dist',
    emptyOutDir: false,
    minify: true,
    rollupOptions: { output: { entryFileNames: 'layoutscope.node.js' } },
  },
};

const MODES: Record<string, UserConfig> = { library, 'library-worker': libraryWorker, 'library-node': libraryNode };
export default defineConfig(({ mode }) => MODES[mode] ?? pages);
