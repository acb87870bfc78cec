// Assembles the npm package of the elements, layoutscope-elements, from a built web/dist into web/dist-pkg/:
//   layoutscope.js        every <ls-*> element, Lit included (the browser's module)
//   engine-worker.js      the engine's Web Worker; layoutscope.js starts it with
//                         new Worker(new URL('./engine-worker.js', import.meta.url)), which a site's bundler follows
//   layoutscope.node.js   the same module for a server-side render (the "node" export): importing it in Node
//                         defines the elements into Lit's DOM shim instead of throwing `HTMLElement is not defined`
//   assets/*.wasm         the engine, found with new URL(..., import.meta.url) (bundlers copy it)
//   layoutscope.d.ts      the types; react.d.ts the elements in React's JSX (import type {} from '.../react')
//   custom-elements.json  the Custom Elements Manifest (@custom-elements-manifest/analyzer over the sources; the
//                         attributes are the ones the element classes really declare)
//   LICENSE               the repository's licence
// `npm pack ./dist-pkg` then writes the tarball a docs site installs. Run: npm run pack (builds first).
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const web = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(web, 'dist');
const out = join(web, 'dist-pkg');
const fail = (message) => {
  console.error(`pack-elements: ${message}`);
  process.exit(1);
};
for (const f of ['layoutscope.js', 'engine-worker.js', 'layoutscope.node.js'])
  if (!existsSync(join(dist, f))) fail(`no web/dist/${f} (run npm run build first)`);
rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'assets'), { recursive: true });
for (const f of ['layoutscope.js', 'engine-worker.js', 'layoutscope.node.js'])
  copyFileSync(join(dist, f), join(out, f));
const wasm = readdirSync(join(dist, 'assets')).filter((f) => /^layoutscope-.*\.wasm$/.test(f));
if (wasm.length !== 1) fail(`expected one assets/layoutscope-*.wasm in web/dist, found ${wasm.length}`);
copyFileSync(join(dist, 'assets', wasm[0]), join(out, 'assets', wasm[0]));
// the worker's own reference to the engine must be the file shipped beside it
if (!readFileSync(join(dist, 'engine-worker.js'), 'utf8').includes(`assets/${wasm[0]}`))
  fail(`engine-worker.js does not load assets/${wasm[0]} (rebuild web/dist)`);
for (const f of ['layoutscope.d.ts', 'react.d.ts']) copyFileSync(join(web, 'package', f), join(out, f));
declarations();
copyFileSync(join(web, '..', 'LICENSE'), join(out, 'LICENSE'));
writeFileSync(join(out, 'custom-elements.json'), JSON.stringify(await manifest(), null, 2) + '\n');

const version = JSON.parse(readFileSync(join(web, 'package.json'), 'utf8')).version;
const pkg = {
  name: 'layoutscope-elements',
  version,
  description:
    'The layoutscope figures (<ls-fragment>, <ls-tile-layout>, <ls-bank-conflicts>, ...) as custom elements, with the layout engine in WebAssembly',
  type: 'module',
  main: './layoutscope.js',
  module: './layoutscope.js',
  types: './layoutscope.d.ts',
  exports: {
    '.': {
      types: './layoutscope.d.ts',
      browser: './layoutscope.js',
      node: './layoutscope.node.js',
      default: './layoutscope.js',
    },
    './react': { types: './react.d.ts' },
    './custom-elements.json': './custom-elements.json',
    './engine-worker.js': './engine-worker.js',
  },
  customElements: 'custom-elements.json',
  files: [
    'layoutscope.js',
    'layoutscope.node.js',
    'engine-worker.js',
    'layoutscope.d.ts',
    'react.d.ts',
    'custom-elements.json',
    'types/',
    'assets/',
  ],
  sideEffects: ['./layoutscope.js', './layoutscope.node.js'],
  license: 'MIT',
};
writeFileSync(join(out, 'package.json'), JSON.stringify(pkg, null, 2) + '\n');
writeFileSync(
  join(out, 'README.md'),
  `# layoutscope-elements

\`import 'layoutscope-elements'\` defines the \`<ls-*>\` figures of layoutscope; see docs/embedding.md in the
layoutscope repository for the attributes. Serve the page over HTTP: the engine is a .wasm file next to the module,
and the slow calls run in engine-worker.js, also next to it (bundlers such as Vite and webpack 5 copy both).

- Types: \`layoutscope.d.ts\`; React's JSX: \`import type {} from 'layoutscope-elements/react'\`.
- Editors and catalogues: \`custom-elements.json\` (Custom Elements Manifest).
- Server-side rendering: in Node the module resolves to \`layoutscope.node.js\`, which defines the elements without
  a DOM and draws nothing; the figures render in the browser.

Licence: MIT (LICENSE).
`,
);
console.log(`pack-elements: ${out} (layoutscope-elements ${version}, ${wasm[0]})`);

// types/: the declarations tsc generates for src/engine.ts (the Engine class engine() resolves to) and the ones it
// imports, next to the module's hand-written declarations (wasm/layoutscope.d.ts, as types/generated/).
function declarations() {
  const engineTs = join(web, 'src', 'core', 'engine.ts');
  if (!existsSync(engineTs)) fail(`no ${engineTs} (the module that exports engine() and loadEngine())`);
  const config = join(out, '.tsconfig.json');
  writeFileSync(
    config,
    JSON.stringify({
      extends: join(web, 'tsconfig.json'),
      compilerOptions: {
        declaration: true,
        emitDeclarationOnly: true,
        noEmit: false,
        rootDir: join(web, 'src'),
        outDir: join(out, 'types'),
      },
      files: [engineTs],
      include: [],
    }),
  );
  try {
    execFileSync(process.execPath, [join(web, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', config], {
      stdio: 'pipe',
    });
  } catch (e) {
    fail(`tsc could not write the engine's declarations: ${e.stdout}`);
  } finally {
    rmSync(config);
  }
  mkdirSync(join(out, 'types', 'generated'), { recursive: true });
  copyFileSync(join(web, '..', 'wasm', 'layoutscope.d.ts'), join(out, 'types', 'generated', 'layoutscope.d.ts'));
  // the stable name layoutscope.d.ts imports, wherever the sources keep engine.ts
  const at = relative(join(web, 'src'), engineTs).replace(/\.ts$/, '.js');
  writeFileSync(join(out, 'types', 'engine.d.ts'), `export * from './${at}';\n`);
}

// The analyzer reads the element classes' sources (tag names, properties, their types and comments). Its Lit
// support counts every entry of `static properties` as an attribute, internal state too: the attributes are set to
// the ones the classes declare at run time (Lit's elementProperties of the defined elements, attribute !== false,
// not state), which layoutscope.node.js gives without a browser. The package is one module, so every declaration
// moves to layoutscope.js.
async function manifest() {
  // the analyzer writes its --outdir relative to the working directory
  const work = join('dist-pkg', '.cem');
  // every module of the page's sources but the benchmark panel's and the dump scanner's (page views, not in the
  // package) and the generated ones
  const sources = ['src/**/*.ts'];
  const excluded = ['src/bench/**', 'src/scan/**', 'src/generated/**', 'src/main.ts', 'src/embed-frame.ts'];
  mkdirSync(join(web, work), { recursive: true });
  // packagejson: false, or the analyzer writes its output's path into web/package.json
  writeFileSync(join(web, work, 'cem.config.mjs'), 'export default { packagejson: false };\n');
  try {
    execFileSync(
      process.execPath,
      [
        join(web, 'node_modules', '@custom-elements-manifest', 'analyzer', 'cem.js'),
        'analyze',
        '--config',
        join(work, 'cem.config.mjs'),
        '--litelement',
        '--quiet',
        '--globs',
        ...sources,
        '--exclude',
        ...excluded,
        '--outdir',
        work,
      ],
      { cwd: web, stdio: 'pipe' },
    );
    const analyzed = JSON.parse(readFileSync(join(web, work, 'custom-elements.json'), 'utf8'));
    const mod = await import(pathToFileURL(join(dist, 'layoutscope.node.js')).href);
    const attributesOf = (tag) => {
      const cls = globalThis.customElements.get(tag);
      if (!cls) fail(`layoutscope.node.js defines no <${tag}>`);
      const names = new Map();
      for (const [prop, opts] of cls.elementProperties)
        if (!opts.state && opts.attribute !== false)
          names.set(typeof opts.attribute === 'string' ? opts.attribute : String(prop).toLowerCase(), prop);
      return names;
    };
    const declarations = [];
    const exports = [];
    const here = { name: '', module: 'layoutscope.js' };
    const moveRef = (ref) => (ref && (ref.module || ref.package !== 'lit') ? { ...ref, module: here.module } : ref);
    for (const m of analyzed.modules) {
      for (const d of m.declarations ?? []) {
        if (d.kind !== 'class' || !(d.customElement || d.name === 'LsFigure')) continue;
        const copy = { ...d, superclass: moveRef(d.superclass) };
        if (d.tagName) {
          if (!mod.ELEMENTS.includes(d.tagName)) fail(`<${d.tagName}> is not in ELEMENTS`);
          const real = attributesOf(d.tagName);
          copy.attributes = [...real].map(([name, field]) => {
            const a = (d.attributes ?? []).find((x) => x.fieldName === field) ?? {};
            return { ...a, name, fieldName: field, inheritedFrom: moveRef(a.inheritedFrom) };
          });
          const fields = new Set(real.values());
          copy.members = (d.members ?? [])
            .filter((x) => x.privacy !== 'private' && x.privacy !== 'protected' && !x.static)
            .filter((x) => x.kind === 'method' || fields.has(x.name))
            .map((x) => ({ ...x, inheritedFrom: moveRef(x.inheritedFrom) }));
          exports.push({ kind: 'custom-element-definition', name: d.tagName, declaration: { ...here, name: d.name } });
        } else {
          copy.attributes = [];
          copy.members = (d.members ?? []).filter((x) => x.privacy === 'public' || x.privacy === undefined);
          exports.push({ kind: 'js', name: d.name, declaration: { ...here, name: d.name } });
        }
        declarations.push(copy);
      }
    }
    const tags = exports.filter((e) => e.kind === 'custom-element-definition').map((e) => e.name);
    const missing = mod.ELEMENTS.filter((t) => !tags.includes(t));
    if (missing.length) fail(`the analyzer found no class for ${missing.join(', ')}`);
    return {
      schemaVersion: analyzed.schemaVersion,
      readme: 'README.md',
      modules: [{ kind: 'javascript-module', path: 'layoutscope.js', declarations, exports }],
    };
  } finally {
    rmSync(join(web, work), { recursive: true, force: true });
  }
}
