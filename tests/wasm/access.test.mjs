// accessCost and advise through the WASM module: the same engine answers the page gets.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadModule } from './load.mjs';

const m = await loadModule();

test('ldmatrix.x4 over a 64x64 bf16 tile: 8-way unswizzled, conflict-free with the 128B XOR', () => {
  // 16 instructions cover the tile; each phase reads 8 rows of one 16 B column block, 128 B apart:
  // banks 4j..4j+3 eight times -> 8 wavefronts a phase, 32 an instruction, ideal 4.
  const plain = m.accessCost('S[(64,64):(64,1)]', [64, 64], 'bf16', 'ldmatrix.x4.trans', null, null);
  assert.equal(plain.ok, true, JSON.stringify(plain.error));
  assert.equal(plain.ncuOp, 'ldsm');
  assert.equal(plain.instructions.length, 16);
  assert.equal(plain.instructions[0].wavefronts, 32);
  assert.equal(plain.instructions[0].idealWavefronts, 4);
  assert.equal(plain.total.wavefronts, 512);
  assert.equal(plain.total.conflicts, 448);
  assert.equal(plain.metrics.wavefronts, 'sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum');
  const swizzled = m.accessCost('Swizzle<3,3,3> o S[(64,64):(64,1)]', '64,64', 'bf16', 'ldmatrix.x4', null, null);
  assert.equal(swizzled.total.wavefronts, 64);
  assert.equal(swizzled.total.conflicts, 0);
});

test('explicit lanes and lane text', () => {
  // 32x32 fp32 read down column 0: all lanes in bank 0 -> 32; rows padded to 33 words -> 1.
  const column = [Array.from({ length: 32 }, (_, r) => r * 32)];
  assert.equal(m.accessCost('S[(32,32):(32,1)]', [32, 32], 'f32', 'LDS.32', column, null).total.wavefronts, 32);
  assert.equal(m.accessCost('S[(32,32):(33,1)]', [32, 32], 'f32', 'LDS.32', column, null).total.wavefronts, 1);
  const cols = m.accessCost('S[(32,32):(33,1)]', [32, 32], 'f32', 'LDS.32', 'columns', null);
  assert.equal(cols.instructions.length, 32);
  assert.equal(cols.total.conflicts, 0);
  // Global: 32 lanes x 4 B contiguous = 4 sectors, one request; no shared counter.
  const g = m.accessCost('S[(32,32):(32,1)]', [32, 32], 'f32', 'LDG.32', 'rows', null);
  assert.equal(g.instructions[0].sectors, 4);
  assert.equal(g.sharedCounted, false);
  assert.equal(g.metrics, null);
});

test('accessCost errors name the argument and column', () => {
  const instr = m.accessCost('S[(8,8):(8,1)]', [8, 8], 'f32', 'LDS.96', null, null);
  assert.equal(instr.ok, false);
  assert.equal(instr.error.field, 'instr');
  assert.equal(instr.error.column, 5);
  assert.equal(m.accessCost('S[(8,8):(8,1)]', [8, 8], 'f12', 'LDS.32', null, null).error.field, 'dtype');
  assert.equal(m.accessCost('S[(8,8):(8,1)]', [8, 8], 'f32', 'LDS.32', [[64]], null).error.field, 'lanes');
  assert.equal(m.accessCost('S[(8,8):(8,1)]', [8, 8], 'f32', 'LDS.32', [[0.5]], null).error.field, 'lanes');
  const lanes = m.accessCost('S[(8,8):(8,1)]', [8, 8], 'f32', 'LDS.32', '0,8,x', null);
  assert.equal(lanes.error.field, 'lanes');
  assert.equal(lanes.error.column, 5);
});

test('advise finds the XOR with twice the row for a 16x32 fp32 tile', () => {
  // Read by columns two at a time: c ^ r leaves lanes 0..15 and 16..31 on the same 16 banks (2-way);
  // c ^ 2r puts column 2k on even banks and 2k+1 on odd ones.
  const a = m.advise(
    'S[(16,32):(1@reg,1@laneid)];STS.32',
    'S[(16,16,2):(1@laneid,1@reg,16@laneid)];LDS.32',
    'f32',
    [16, 32],
  );
  assert.equal(a.ok, true, JSON.stringify(a.error));
  assert.equal(a.candidates[0].conflictFree, true);
  const byName = Object.fromEntries(a.candidates.map((c) => [c.name, c]));
  assert.equal(byName['Swizzle<4,0,5>'].readWavefronts, 32);
  assert.equal(byName['Swizzle<4,1,4>'].readWavefronts, 16);
  assert.equal(byName['row-major'].readWavefronts, 256);
  assert.deepEqual(
    a.rules.map((r) => r.choice),
    ['SW128', '128B'],
  );
  const bad = m.advise('rows;LDS.32', 'columns;4', 'f32', '16,32');
  assert.equal(bad.ok, false);
  assert.equal(bad.error.field, 'writer');
  assert.equal(bad.error.column, 6);
});

test('bytesPerLane is the instruction width a lane moves (PTX: an ldmatrix lane gives one 16 B row of 8 b16)', () => {
  const cost = (instr, dtype = 'f32') => m.accessCost('S[(64,64):(64,1)]', [64, 64], dtype, instr, null, null);
  assert.equal(cost('LDS.32').bytesPerLane, 4);
  assert.equal(cost('LDS.128').bytesPerLane, 16);
  assert.equal(cost('ldmatrix.x4', 'bf16').bytesPerLane, 16);
  assert.equal(cost('ldmatrix.x1', 'bf16').bytesPerLane, 16);
});
