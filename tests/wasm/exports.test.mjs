// Every function declared in the hand-written wasm/layoutscope.d.ts exists on the loaded module, and the
// module exports nothing callable that the declarations forget.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { declaredExports, loadModule } from './load.mjs';

test('every declared export exists and is a function', async () => {
  const m = await loadModule();
  const names = declaredExports();
  assert.ok(names.length >= 15, `parsed ${names.length} declarations`);
  for (const name of names) assert.equal(typeof m[name], 'function', `${name} missing from the module`);
});

test('every Embind function of the module is declared', async () => {
  const m = await loadModule();
  const declared = new Set(declaredExports());
  // Embind functions carry argCount; Emscripten runtime helpers do not.
  const embind = Object.keys(m).filter((k) => typeof m[k] === 'function' && typeof m[k].argCount === 'number');
  assert.ok(embind.length > 0);
  for (const name of embind) assert.ok(declared.has(name), `${name} is exported but not declared`);
});
