// The CLI end to end: JSON on stdout, exit 2 with a JSON error that points at the column.
// Expected values come from the chapter (docs/worked-examples.md), not from the program.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

const bin = process.env.LAYOUTSCOPE_BIN ?? 'build/bin/layoutscope';

function run(...args) {
  const r = spawnSync(bin, args, { encoding: 'utf8' });
  const lines = r.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
  return { code: r.status, lines, stderr: r.stderr };
}

test('eval: fragment cell 43 is lane 21 slot 1', () => {
  const { code, lines } = run('eval', 'S[(8,4,2):(4@laneid,1@laneid,1@reg)]', '--shape', '8,8', '43', '5,3');
  assert.equal(code, 0);
  for (const l of lines) {
    assert.equal(l.index, 43);
    assert.deepEqual(l.coord, [5, 3]);
    assert.deepEqual(l.split, [5, 1, 1]);
    assert.deepEqual(l.positions, [{ laneid: 21, reg: 1 }]);
    assert.match(l.derivation, /unflatten\(43; 8,4,2\) = \(5,1,1\)/);
  }
});

test('eval: mesh element (1,2,3) with replica and offset', () => {
  const base = 'S[(2,4,8):(1@gpuid_y,8@m,1@m)]';
  const r = run('eval', `${base} + R[2:1@gpuid_x]`, '--shape', '2,4,8', '1,2,3');
  assert.deepEqual(r.lines[0].positions, [
    { gpuid_y: 1, m: 19, gpuid_x: 0 },
    { gpuid_y: 1, m: 19, gpuid_x: 1 },
  ]);
  const o = run('eval', `${base} + O[1@gpuid_x]`, '--shape', '2,4,8', '1,2,3');
  assert.deepEqual(o.lines[0].positions, [{ gpuid_y: 1, m: 19, gpuid_x: 1 }]);
});

test('table: tile rows 0 and 1', () => {
  const { code, lines } = run('table', 'S[(4,2,2,4):(16,4,8,1)]', '--shape', '8,8');
  assert.equal(code, 0);
  const m = lines[0].rows.map((r) => r.positions[0].m);
  assert.deepEqual(m.slice(0, 8), [0, 1, 2, 3, 8, 9, 10, 11]);
  assert.deepEqual(m.slice(8, 16), [4, 5, 6, 7, 12, 13, 14, 15]);
});

test('inverse: TMEM lane 32, column 2, byte 2 holds SFA[64,2] as partition 1', () => {
  const { lines } = run('inverse', 'S[(4,32,4):(1@TCol,1@TLane,1@byte)] + R[4:32@TLane]', '--shape', '128,4',
    'TLane=32', 'TCol=2', 'byte=2');
  assert.equal(lines[0].count, 1);
  assert.deepEqual(lines[0].hits[0].coord, [64, 2]);
  assert.equal(lines[0].hits[0].replica, 1);
});

test('check: exit 1 and a finding on the offending axis', () => {
  const { code, lines } = run('check', 'S[(8,4):(4@laneid,1@laneid)] + O[8@laneid]', '--shape', '8,4');
  assert.equal(code, 1);
  assert.equal(lines[0].ok, false);
  assert.ok(lines[0].findings.some((f) => f.code === 'hardware-range' && f.where === 'axis laneid'));
});

test('canon: contiguous modes fuse', () => {
  assert.equal(run('canon', 'S[(2,3,6):(18,6,1)]').lines[0].canonical, 'S[36:1]');
  assert.equal(run('canon', 'S[(8,4):(4@laneid,1@laneid)]').lines[0].canonical, 'S[32:1@laneid]');
});

test('swizzle: SWIZZLE_128B fp16 in elements is Swizzle<3,3,3>', () => {
  // Element 64 = row 1, col 0: the 16 B chunk index 0 is XORed with row 1 -> col 8 (element 72).
  const { lines } = run('swizzle', '--mode', '128B', '--dtype', 'f16', '64', '0');
  assert.equal(lines[0].bytes, 'Swizzle<3,4,3>');
  assert.equal(lines[0].elements, 'Swizzle<3,3,3>');
  assert.equal(lines[0].results[0].swizzled, 72);
  assert.equal(lines[0].results[0].swizzled_byte, 144);
  assert.equal(lines[0].results[1].swizzled, 0);
});

test('banks: 8-way toy column vs XOR-swizzled column', () => {
  const col = [0, 1, 2, 3, 4, 5, 6, 7].map((r) => String((r * 8 + 3) * 4));
  const swz = [0, 1, 2, 3, 4, 5, 6, 7].map((r) => String((r * 8 + (3 ^ r)) * 4));
  assert.equal(run('banks', '--width', '4', '--banks', '8', ...col).lines[0].cycles, 8);
  assert.equal(run('banks', '--width', '4', '--banks', '8', ...swz).lines[0].cycles, 1);
});

test('banks: padded 32x33 tile column read is conflict-free, unpadded is 32-way', () => {
  const padded = run('banks', '--width', '4', '--layout', 'S[(32,32):(33,1)]', '--shape', '32,32', '--step', '32');
  const plain = run('banks', '--width', '4', '--layout', 'S[(32,32):(32,1)]', '--shape', '32,32', '--step', '32');
  assert.equal(padded.lines[0].wavefronts, 1);
  assert.equal(plain.lines[0].wavefronts, 32);
});

test('sectors: AoS 32 vs SoA 4', () => {
  const aos = run('sectors', '--width', '4', '--layout', 'S[(64,8):(8,1)]', '--shape', '64,8', '--step', '8');
  const soa = run('sectors', '--width', '4', '--layout', 'S[(8,64):(64,1)]', '--shape', '8,64');
  assert.equal(aos.lines[0].sectors, 32);
  assert.equal(soa.lines[0].sectors, 4);
});

test('errors: exit 2, JSON error with column and field, caret on stderr', () => {
  const bad = run('eval', 'S[(8,4):(4,1]', '3');
  assert.equal(bad.code, 2);
  assert.equal(bad.lines[0].error.column, 13);
  assert.match(bad.stderr, /\n {2}S\[\(8,4\):\(4,1\]\n {14}\^/);
  const shape = run('eval', 'S[8:1]', '--shape', '4,a', '1');
  assert.equal(shape.code, 2);
  assert.equal(shape.lines[0].error.field, 'shape');
  assert.equal(shape.lines[0].error.column, 3);
  const range = run('eval', 'S[8:1]', '64');
  assert.equal(range.lines[0].error.field, 'index');
  assert.equal(run('frobnicate').code, 2);
  assert.equal(run('banks', '--width', '3', '0').lines[0].error.field, 'width');
});
