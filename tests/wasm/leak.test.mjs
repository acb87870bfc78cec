// 100k calls do not grow the module's memory: nothing returned to JS holds C++ memory, and every temporary
// is freed. Measured as malloc'd bytes and linear-memory size after a warm-up.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadModule } from './load.mjs';

test('100k calls leave allocated bytes and heap size unchanged', async () => {
  const m = await loadModule();
  const calls = [
    () => m.forwardIndex('S[(8,4,2):(4@laneid,1@laneid,1@reg)]', [8, 8], 43),
    () => m.parseLayout('S[(8,4):(4,1]'),
    () => m.forwardCoord('S[(4,32,4):(1@TCol,1@TLane,1@byte)] + R[4:32@TLane]', [128, 4], [64, 2]),
    () => m.bankAccess([12, 44, 76, 108, 140, 172, 204, 236], 4, { banks: 8, wordBytes: 4, wavefrontBytes: 32 }),
    () => m.table('S[(4,2,2,4):(16,4,8,1)]', [8, 8], 0),
    () => m.inverse('S[(8,4,2):(4@laneid,1@laneid,1@reg)]', '8,8', { laneid: 3 }, 0),
    () => m.validate('S[(8,4):(4@laneid,1@laneid)] + O[8@laneid]', [8, 4], 0),
    () => m.swizzleAtom('64B', 'f32'),
    () => m.forwardIndex('S[8:1]', [8], 99),
  ];
  for (let i = 0; i < 2000; ++i) calls[i % calls.length]();
  const before = m.memoryStats();
  for (let i = 0; i < 100_000; ++i) calls[i % calls.length]();
  const after = m.memoryStats();
  assert.equal(after.allocatedBytes, before.allocatedBytes, 'malloc-held bytes changed');
  assert.equal(after.heapBytes, before.heapBytes, 'linear memory grew');
});
