// scanTtgir through the WASM module: the same answers as the engine's own tests (tests/engine/scan_test.cpp),
// in the shape wasm/layoutscope.d.ts declares.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadModule } from './load.mjs';

const m = await loadModule();

test('scanTtgir: a store costed, a round trip classified, an unknown op listed', () => {
  const dump = [
    '#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>',
    '#blocked1 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [1, 0]}>',
    '#row = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>',
    '%0 = ttg.local_alloc %x : (tensor<64x64xf32, #blocked>) -> !ttg.memdesc<64x64xf32, #row, #smem>',
    '%1 = ttg.convert_layout %x : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #blocked1>',
    '%2 = my.op %x : tensor<64x64xf32, #blocked>',
  ].join('\n');
  const r = m.scanTtgir(dump);
  assert.equal(r.ok, true);
  assert.equal(r.lines, 6);
  assert.deepEqual(
    r.aliases.map((a) => a.name),
    ['blocked', 'blocked1', 'row'],
  );
  const store = r.ops.find((o) => o.line === 4);
  // STS.128, 8 lanes a wavefront, rows 0 and 1 of a group in the same 16 banks: 8 wavefronts an instruction,
  // 32 instructions for 4096 f32 over 128 threads (see the engine test for the working).
  assert.equal(store.kind, 'shared store');
  assert.equal(store.instruction, 'STS.128');
  assert.equal(store.wavefronts, 256);
  assert.equal(store.conflicts, 128);
  const trip = r.ops.find((o) => o.line === 5);
  assert.equal(trip.kind, 'shared round trip');
  assert.equal(trip.sharedBytes, 64 * 64 * 4);
  assert.match(trip.src.axe, /^S\[/);
  assert.deepEqual(r.unknownOps, [{ op: 'my.op', line: 6, count: 1 }]);
  assert.deepEqual(r.issues, []);
});

test('scanTtgir: garbage is issues, never a throw', () => {
  const r = m.scanTtgir('%0 = ttg.convert_layout %x : tensor<4x\n#a = #ttg.blocked<{\n');
  assert.equal(r.ok, true);
  assert.equal(r.lines, 3);
});
