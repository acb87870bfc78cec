// Copies the Emscripten output (build-wasm/wasm/layoutscope.{js,wasm}) and the hand-written declarations
// (wasm/layoutscope.d.ts) into web/src/generated/, which is git-ignored. Run from web/ (npm run gen).
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const buildDir = resolve(process.env.LAYOUTSCOPE_WASM_DIR ?? join(root, 'build-wasm', 'wasm'));
const out = join(root, 'web', 'src', 'generated');
mkdirSync(out, { recursive: true });
const files = [
  [join(buildDir, 'layoutscope.js'), join(out, 'layoutscope.js')],
  [join(buildDir, 'layoutscope.wasm'), join(out, 'layoutscope.wasm')],
  [join(root, 'wasm', 'layoutscope.d.ts'), join(out, 'layoutscope.d.ts')],
];
for (const [from, to] of files) {
  if (!existsSync(from)) {
    console.error(
      `copy-wasm: missing ${from} (build the module first: emcmake cmake -S . -B build-wasm && cmake --build build-wasm)`,
    );
    process.exit(1);
  }
  copyFileSync(from, to);
}
console.log(`copy-wasm: ${files.length} files -> ${out}`);
