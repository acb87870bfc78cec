// firstWalkLanes through the WASM module: the first instruction of the engine's walks, for tiles of any size.
// Expected lanes from access.hpp's definitions of the walks (row: lane l starts at l * v; columns: slot l starts at
// row l % rows, column (l / rows) * v; chunks: v x v chunks down their columns; column-vectors: v elements a lane
// down a column; v = elements per lane), worked out here by hand.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadModule } from './load.mjs';

const m = await loadModule();

test('a 4096x4096 fp32 tile, too large to walk whole: lanes down column 0 are rows 0..31', () => {
  const whole = m.accessCost('S[(4096,4096):(4096,1)]', [4096, 4096], 'f32', 'STG.32', 'columns', null);
  assert.equal(whole.ok, false); // 524,288 instructions: refused
  const w = m.firstWalkLanes([4096, 4096], 'f32', 'STG.32', 'columns');
  assert.equal(w.ok, true, JSON.stringify(w.error));
  assert.deepEqual(
    w.lanes,
    Array.from({ length: 32 }, (_, l) => l * 4096),
  );
  // the engine's cost of those lanes on the layout: 32 rows 16 KiB apart, one 32 B sector each
  const c = m.accessCost('S[(4096,4096):(4096,1)]', [4096, 4096], 'f32', 'STG.32', [w.lanes], null);
  assert.equal(c.total.sectors, 32);
});

test('rows of 16 B lanes over a tall 8-wide tile: lane l at element 4 l (two lanes a row)', () => {
  const w = m.firstWalkLanes([67108864, 8], 'f32', 'LDG.128', 'rows');
  assert.deepEqual(
    w.lanes,
    Array.from({ length: 32 }, (_, l) => 4 * l),
  );
});

test('a tile of fewer than 32 rows: the column walk wraps to the next column; a short tile leaves lanes idle', () => {
  // 3x8 fp32, 4 B lanes: lane l at row l % 3, column floor(l / 3): element 8 (l % 3) + floor(l / 3); 24 slots in all,
  // so lanes 24..31 are idle (-1)
  const w = m.firstWalkLanes([3, 8], 'f32', 'LDS.32', 'columns');
  const want = Array.from({ length: 32 }, (_, l) => (l < 24 ? 8 * (l % 3) + Math.floor(l / 3) : -1));
  assert.deepEqual(w.lanes, want);
});

test('chunks: a 64x64 fp32 tile read as 4 x 4 chunks down their columns, lane l at row 4 (l % 16), column 4 (l / 16)', () => {
  const w = m.firstWalkLanes([64, 64], 'f32', 'LDS.128', 'chunks');
  assert.equal(w.ok, true, JSON.stringify(w.error));
  assert.deepEqual(
    w.lanes,
    Array.from({ length: 32 }, (_, l) => 64 * 4 * (l % 16) + 4 * Math.floor(l / 16)),
  );
  // a tall tile: 32 chunk rows fill the first instruction, all in chunk column 0
  const tall = m.firstWalkLanes([4096, 64], 'f32', 'LDS.128', 'chunks');
  assert.deepEqual(
    tall.lanes,
    Array.from({ length: 32 }, (_, l) => 64 * 4 * l),
  );
  // on the tile padded to 260 words per 4 rows, lane l's word 260 (l % 16) + 4 (l / 16) is in bank
  // 4 ((l % 16) + l / 16) mod 32: 8 lanes a quarter-warp in 8 distinct 4-bank groups, 4 wavefronts
  const c = m.accessCost('S[(16,4,64):(260,64,1)]', [64, 64], 'f32', 'LDS.128', [w.lanes], null);
  assert.equal(c.total.wavefronts, 4);
  assert.equal(c.total.conflicts, 0);
});

test('column-vectors: SoA records, each lane 16 B of one field down a column, costed with vector "column"', () => {
  // (n, 8) records of 8 fp32 fields; lane l at row 4 l, column 0
  const w = m.firstWalkLanes([67108864, 8], 'f32', 'LDG.128', 'column-vectors');
  assert.equal(w.ok, true, JSON.stringify(w.error));
  assert.deepEqual(
    w.lanes,
    Array.from({ length: 32 }, (_, l) => 32 * l),
  );
  // S[(n,8):(1,n)]: field 0 of records 4l..4l+3 at words 4l..4l+3, so 32 x 16 B = 512 B in a run: 16 sectors
  const soa = 'S[(67108864,8):(1,67108864)]';
  const c = m.accessCost(soa, [67108864, 8], 'f32', 'LDG.128', { first: [w.lanes], vector: 'column' }, null);
  assert.equal(c.ok, true, JSON.stringify(c.error));
  assert.equal(c.vector, 'column');
  assert.equal(c.total.sectors, 16);
  // along the row the same first elements would be fields 0..3 of one record, n words apart: refused
  const along = m.accessCost(soa, [67108864, 8], 'f32', 'LDG.128', [w.lanes], null);
  assert.equal(along.ok, false);
  assert.equal(along.error.field, 'layout');
  const bad = m.accessCost(soa, [67108864, 8], 'f32', 'LDG.128', { first: [w.lanes], vector: 'diagonal' }, null);
  assert.equal(bad.error.field, 'lanes.vector');
});

test('bad walk, shape or instruction: an error naming the field', () => {
  assert.equal(m.firstWalkLanes([8, 8], 'f32', 'LDS.32', 'diagonal').error.field, 'walk');
  assert.equal(m.firstWalkLanes([8, 0], 'f32', 'LDS.32', 'rows').error.field, 'shape');
  assert.equal(m.firstWalkLanes([8, 8], 'f32', 'LDS.7', 'rows').ok, false);
  assert.equal(m.firstWalkLanes([8, 6], 'f32', 'LDS.128', 'rows').error.field, 'shape'); // 6 does not split into 4
});

test('windowLanes: a column of 16 B cells of a 32x64 fp16 tile, 4 B lanes: four lanes a cell, eight rows', () => {
  // window [row 0, column 8, 32 rows, 8 columns], 2 elements a lane: lane l at row floor(l / 4), column 8 + 2 (l % 4)
  const w = m.windowLanes([32, 64], 2, [0, 8, 32, 8]);
  assert.equal(w.ok, true, JSON.stringify(w.error));
  assert.deepEqual(
    w.lanes,
    Array.from({ length: 32 }, (_, l) => 64 * Math.floor(l / 4) + 8 + 2 * (l % 4)),
  );
  // one row of the 8x8 toy: eight lanes, elements 8 r .. 8 r + 7
  assert.deepEqual(m.windowLanes([8, 8], 1, [2, 0, 1, 8]).lanes, [16, 17, 18, 19, 20, 21, 22, 23]);
  const bad = m.windowLanes([8, 8], 1, [0, 6, 8, 4]);
  assert.equal(bad.ok, false);
  assert.equal(bad.error.field, 'window');
});
