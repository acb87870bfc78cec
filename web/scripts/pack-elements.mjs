// Assembles the npm package of the elements, layoutscope-elements, from a built web/dist into web/dist-pkg/:
// layoutscope.js (every <ls-*> element, Lit included), the engine's .wasm in assets/ next to it (the module
// finds it with new URL(..., import.meta.url), which bundlers such as Vite follow), and the types
// (package/layoutscope.d.ts). `npm pack ./dist-pkg` then writes the tarball a docs site installs.
// Run: npm run pack (builds first).
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const web = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(web, 'dist');
const out = join(web, 'dist-pkg');
if (!existsSync(join(dist, 'layoutscope.js'))) {
  console.error('pack-elements: no web/dist/layoutscope.js (run npm run build first)');
  process.exit(1);
}
rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'assets'), { recursive: true });
copyFileSync(join(dist, 'layoutscope.js'), join(out, 'layoutscope.js'));
const wasm = readdirSync(join(dist, 'assets')).filter((f) => /^layoutscope-.*\.wasm$/.test(f));
if (wasm.length !== 1) {
  console.error(`pack-elements: expected one assets/layoutscope-*.wasm in web/dist, found ${wasm.length}`);
  process.exit(1);
}
copyFileSync(join(dist, 'assets', wasm[0]), join(out, 'assets', wasm[0]));
copyFileSync(join(web, 'package', 'layoutscope.d.ts'), join(out, 'layoutscope.d.ts'));
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
  exports: { '.': { types: './layoutscope.d.ts', default: './layoutscope.js' } },
  files: ['layoutscope.js', 'layoutscope.d.ts', 'assets/'],
  sideEffects: ['./layoutscope.js'],
  license: 'UNLICENSED',
};
writeFileSync(join(out, 'package.json'), JSON.stringify(pkg, null, 2) + '\n');
writeFileSync(
  join(out, 'README.md'),
  "# layoutscope-elements\n\n`import 'layoutscope-elements'` defines the `<ls-*>` figures of layoutscope; see docs/embedding.md in the\nlayoutscope repository for the attributes. Serve the page over HTTP: the engine is a .wasm file next to the module.\n",
);
console.log(`pack-elements: ${out} (layoutscope-elements ${version}, ${wasm[0]})`);
