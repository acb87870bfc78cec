// Loads the Emscripten module for Node tests. Emscripten 3.1.6 under Node 20 cannot fetch its own .wasm, so
// the binary is read here and handed over as wasmBinary (docs/toolchain.md). LAYOUTSCOPE_WASM_DIR overrides the
// build folder (default build-wasm/wasm at the repository root).
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const wasmDir = resolve(process.env.LAYOUTSCOPE_WASM_DIR ?? join(root, 'build-wasm', 'wasm'));

export async function loadModule() {
  const { default: create } = await import(pathToFileURL(join(wasmDir, 'layoutscope.js')).href);
  return create({ wasmBinary: readFileSync(join(wasmDir, 'layoutscope.wasm')) });
}

/** The function names declared in LayoutscopeModule of wasm/layoutscope.d.ts. */
export function declaredExports() {
  const dts = readFileSync(join(root, 'wasm', 'layoutscope.d.ts'), 'utf8');
  const body = dts.match(/export interface LayoutscopeModule \{([\s\S]*?)\n\}/)[1];
  return [...body.matchAll(/^\s+(\w+)\(/gm)].map((m) => m[1]);
}
