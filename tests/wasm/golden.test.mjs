// The chapter's worked examples (docs/worked-examples.md), computed by hand from the chapter, through the WASM module.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { loadModule } from './load.mjs';

let m;
before(async () => {
  m = await loadModule();
});

const ok = (r) => {
  assert.equal(r.ok, true, r.ok ? '' : JSON.stringify(r.error));
  return r;
};
const at = (r, axis) => r.positions.map((p) => p[r.axes.indexOf(axis)]);

test('tile 8x8 in 2x4 tiles: memory rows and (5,6) -> 46', () => {
  const L = 'S[(4,2,2,4):(16,4,8,1)]';
  const t = ok(m.table(L, [8, 8], 0));
  assert.deepEqual(t.axes, ['m']);
  // element stored at each address of memory rows 0 and 1
  const elementAt = new Map();
  for (let x = 0; x < 64; ++x) elementAt.set(t.values[x], x);
  const row = (r) => Array.from({ length: 8 }, (_, c) => elementAt.get(r * 8 + c));
  assert.deepEqual(row(0), [0, 1, 2, 3, 8, 9, 10, 11]);
  assert.deepEqual(row(1), [4, 5, 6, 7, 12, 13, 14, 15]);
  const f = ok(m.forwardCoord(L, [8, 8], [5, 6]));
  assert.equal(f.index, 46);
  assert.deepEqual(f.split, [2, 1, 1, 2]);
  assert.deepEqual(at(f, 'm'), [46]);
});

test('m8n8 fragment: cell 43 = (5,3) -> lane 21, slot 1; lane 21 holds 42 and 43', () => {
  const L = 'S[(8,4,2):(4@laneid,1@laneid,1@reg)]';
  const f = ok(m.forwardIndex(L, [8, 8], 43));
  assert.deepEqual(f.coord, [5, 3]);
  assert.deepEqual(at(f, 'laneid'), [21]);
  assert.deepEqual(at(f, 'reg'), [1]);
  const inv = ok(m.inverse(L, [8, 8], { laneid: 21 }, 0));
  assert.deepEqual(
    inv.hits.map((h) => h.index).sort((a, b) => a - b),
    [42, 43],
  );
});

test('TMEM accumulator: (row, col) -> TLane = row, TCol = col', () => {
  const L = 'S[(128,256):(1@TLane,1@TCol)]';
  for (const [r, c] of [
    [0, 0],
    [5, 200],
    [127, 255],
    [64, 3],
  ]) {
    const f = ok(m.forwardCoord(L, [128, 256], [r, c]));
    assert.deepEqual(at(f, 'TLane'), [r]);
    assert.deepEqual(at(f, 'TCol'), [c]);
  }
  const t = ok(m.table(L, [128, 256], 0));
  assert.equal(t.elements, 32768);
  assert.deepEqual(
    t.max,
    t.axes.map((a) => (a === 'TLane' ? 127 : 255)),
  );
});

test('SFA 128x4 .warpx4: SFA[64,2] -> (TLane,TCol,byte) (0,2,2) (32,2,2) (64,2,2) (96,2,2)', () => {
  const L = 'S[(4,32,4):(1@TCol,1@TLane,1@byte)] + R[4:32@TLane]';
  const f = ok(m.forwardCoord(L, [128, 4], [64, 2]));
  const triples = f.positions
    .map((p) => [p[f.axes.indexOf('TLane')], p[f.axes.indexOf('TCol')], p[f.axes.indexOf('byte')]])
    .sort((a, b) => a[0] - b[0]);
  assert.deepEqual(triples, [
    [0, 2, 2],
    [32, 2, 2],
    [64, 2, 2],
    [96, 2, 2],
  ]);
  // byte offset inside the lane: TCol * 4 + byte = 10 (chapter)
  const [, tcol, byte] = triples[0];
  assert.equal(tcol * 4 + byte, 10);
  // SFA[0,2], [32,2], [64,2], [96,2] share local lane 0 but sit in TCol 0..3
  for (let g = 0; g < 4; ++g) {
    const q = ok(m.forwardCoord(L, [128, 4], [32 * g, 2]));
    assert.deepEqual([...new Set(at(q, 'TCol'))], [g]);
    assert.ok(at(q, 'TLane').includes(0));
  }
});

test('mesh: element (1,2,3) -> gpuid_y 1, m 19; replica -> devices (0,1),(1,1); offset -> (1,1)', () => {
  const base = 'S[(2,4,8):(1@gpuid_y,8@m,1@m)]';
  const f = ok(m.forwardCoord(base, [2, 4, 8], [1, 2, 3]));
  assert.deepEqual(at(f, 'gpuid_y'), [1]);
  assert.deepEqual(at(f, 'm'), [19]);
  const dev = (r) =>
    r.positions.map((p) => [p[r.axes.indexOf('gpuid_x')], p[r.axes.indexOf('gpuid_y')], p[r.axes.indexOf('m')]]);
  const rep = ok(m.forwardCoord(base + ' + R[2:1@gpuid_x]', [2, 4, 8], [1, 2, 3]));
  assert.deepEqual(dev(rep).sort(), [
    [0, 1, 19],
    [1, 1, 19],
  ]);
  const off = ok(m.forwardCoord(base + ' + O[1@gpuid_x]', [2, 4, 8], [1, 2, 3]));
  assert.deepEqual(dev(off), [[1, 1, 19]]);
});

test('8x8 toy banks (8 banks): column 3 row-major 8 cycles, XOR swizzle 1 cycle', () => {
  const model = { banks: 8, wordBytes: 4, wavefrontBytes: 32 };
  const column3 = Array.from({ length: 8 }, (_, r) => r * 8 + 3);
  const plain = ok(m.laneAddresses('S[(8,8):(8,1)]', [8, 8], column3, 4));
  assert.deepEqual(plain.addrs, [12, 44, 76, 108, 140, 172, 204, 236]);
  const a = ok(m.bankAccess(plain.addrs, 4, model));
  assert.equal(a.cycles, 8);
  assert.equal(a.maxWays, 8);
  // mapped_col = col XOR row  ==  Swizzle<3,0,3> on the element offset
  const sw = ok(m.laneAddresses('Swizzle<3,0,3> o S[(8,8):(8,1)]', [8, 8], column3, 4));
  const b = ok(m.bankAccess(sw.addrs, 4, model));
  assert.deepEqual(b.laneBank, [3, 2, 1, 0, 7, 6, 5, 4]);
  assert.equal(b.cycles, 1);
});

test('SWIZZLE_128B fp16: one 16 B column over 8 rows, 8 wavefronts plain, 1 swizzled', () => {
  const atom = ok(m.swizzleAtom('128B', 'f16'));
  assert.deepEqual([atom.bytes.bits, atom.bytes.base, atom.bytes.shift], [3, 4, 3]);
  assert.deepEqual([atom.elements.bits, atom.elements.base, atom.elements.shift], [3, 3, 3]);
  assert.equal(atom.rowBytes, 128);
  // 8 lanes, 16 B each: lane r reads sector column 2 of row r (8 fp16 elements)
  const idx = Array.from({ length: 8 }, (_, r) => r * 64 + 2 * 8);
  const plain = ok(m.laneAddresses('S[(8,64):(64,1)]', [8, 64], idx, 2));
  const a = ok(m.bankAccess(plain.addrs, 16, null));
  assert.equal(a.lanesPerGroup, 8);
  assert.equal(a.cycles, 8);
  const sw = ok(m.laneAddresses('Swizzle<3,3,3> o S[(8,64):(64,1)]', [8, 64], idx, 2));
  const b = ok(m.bankAccess(sw.addrs, 16, null));
  assert.equal(b.cycles, 1);
});

test('errors come back as values with message, column and field', () => {
  const r = m.parseLayout('S[(8,4):(4,1]');
  assert.equal(r.ok, false);
  assert.equal(typeof r.error.message, 'string');
  assert.ok(r.error.message.length > 0);
  assert.equal(r.error.column, 13);
  const s = m.forwardIndex('S[8:1]', [8], 8);
  assert.equal(s.ok, false);
  const bad = m.forwardIndex('S[8:1]', [1.5], 0);
  assert.equal(bad.ok, false);
  assert.equal(bad.error.field, 'shape');
});

test('sectors: AoS struct { float f[8]; } field 0 is 32 sectors, SoA is 4; each lane names its sector', () => {
  const lanes = Array.from({ length: 32 }, (_, i) => i);
  // AoS: lane i reads element i, field 0 = flat index 8 i of S[(1024,8):(8,1)], byte 32 i: sector i.
  const aos = ok(
    m.laneAddresses(
      'S[(1024,8):(8,1)]',
      [1024, 8],
      lanes.map((i) => 8 * i),
      4,
    ),
  );
  const a = ok(m.sectorAccess(aos.addrs, 4));
  assert.equal(a.sectors, 32);
  assert.deepEqual(a.laneSector, lanes);
  // SoA: lane i reads x[i], byte 4 i: sector floor(4 i / 32) = floor(i / 8).
  const soa = ok(m.laneAddresses('S[(8,1024):(1024,1)]', [8, 1024], lanes, 4));
  const s = ok(m.sectorAccess(soa.addrs, 4));
  assert.equal(s.sectors, 4);
  assert.deepEqual(
    s.laneSector,
    lanes.map((i) => Math.floor(i / 8)),
  );
});

test('applySwizzle: the XOR and its inverse', () => {
  // Swizzle<3,4,3> (SWIZZLE_128B in bytes): o ^ (((o >> 7) & 7) << 4); its own inverse (shift >= bits)
  const s = ok(m.applySwizzle(3, 4, 3, true, [128, 144, 5]));
  assert.deepEqual(s.offsets, [144, 128, 5]);
  assert.deepEqual(s.inverse, [144, 128, 5]);
  // Swizzle<3,0,1>: o ^ ((o >> 1) & 7) is not: 14 = 0b1110 -> 14 ^ 7 = 9, and 9 comes from 14
  const t = ok(m.applySwizzle(3, 0, 1, true, [14, 9]));
  assert.equal(t.offsets[0], 9);
  assert.equal(t.inverse[1], 14);
});
