// Integers cross the boundary exactly, one position per replica, P[...] holders, and applySwizzle under the
// parser's own checks. Expected values are worked out by hand from the definitions (layout.hpp).
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
const fails = (r, code) => {
  assert.equal(r.ok, false, 'expected an error');
  assert.equal(r.error.code, code, JSON.stringify(r.error));
  return r.error;
};

test('positions beyond 2^53 - 1 are refused, never rounded, in forward, inverse and table alike', () => {
  // S[4:2^52], element 2: m = 2 * 2^52 = 2^53 = 9007199254740992, one past Number.MAX_SAFE_INTEGER.
  const L = 'S[4:4503599627370496]';
  const safe = ok(m.forwardIndex(L, [4], 1));
  assert.deepEqual(safe.positions, [[4503599627370496]]);
  const e = fails(m.forwardIndex(L, [4], 2), 'precision');
  assert.match(e.message, /9007199254740992/);
  fails(m.table(L, [4], 0), 'precision');
  // The offset puts every position above 2^53: forward and inverse both refuse; neither shows a rounded value.
  const O = 'S[2:1] + O[9007199254740993]';
  fails(m.forwardIndex(O, [2], 0), 'precision');
  fails(m.inverse(O, [2], { m: 9007199254740993n }, 0), 'precision');
  fails(m.inverse(O, [2], { m: '9007199254740994' }, 0), 'precision');
});

test('integer arguments: safe numbers, BigInts and decimal strings', () => {
  const L = 'S[(8,4,2):(4@laneid,1@laneid,1@reg)]';
  const byBig = ok(m.inverse(L, [8, 8], { laneid: 21n }, 0));
  assert.deepEqual(
    byBig.hits.map((h) => h.index),
    [42, 43],
  );
  const byText = ok(m.inverse(L, [8, 8], { laneid: '21', reg: '1' }, 0));
  assert.deepEqual(
    byText.hits.map((h) => h.index),
    [43],
  );
  assert.deepEqual(ok(m.forwardIndex(L, [8, 8], 43n)).positions, [[21, 1]]);
  assert.deepEqual(ok(m.forwardCoord(L, [8, 8], ['5', 3n])).positions, [[21, 1]]);
  // A number past 2^53 may already be a rounding of its neighbour: refused, with the way out in the message.
  const e = fails(m.inverse(L, [8, 8], { laneid: 2 ** 53 + 2 }, 0), 'precision');
  assert.equal(e.field, 'laneid');
  assert.match(e.message, /BigInt/);
  assert.equal(fails(m.inverse(L, [8, 8], { laneid: '99999999999999999999' }, 0), 'overflow').field, 'laneid');
  assert.equal(fails(m.inverse(L, [8, 8], { laneid: '2x' }, 0), 'syntax').column, 2);
  fails(m.forwardIndex(L, [8, 8], 1.5), 'range');
});

test('one position per replica, in replica order, also on one spot', () => {
  assert.deepEqual(ok(m.forwardIndex('S[2:1] + R[2:0]', [2], 0)).positions, [[0], [0]]);
  // R[2:5] + R[2:-3]: replica (d0, d1) adds 5 d0 - 3 d1: 0, -3, 5, 2 (not sorted).
  assert.deepEqual(ok(m.forwardIndex('S[2:1] + R[2:5] + R[2:-3]', [2], 1)).positions, [[1], [-2], [6], [3]]);
  const inv = ok(m.inverse('S[2:1] + R[2:0]', [2], { m: 0 }, 0));
  assert.deepEqual(
    inv.hits.map((h) => [h.index, h.replica, h.partial]),
    [
      [0, 0, -1],
      [0, 1, -1],
    ],
  );
});

test('P[...] partial-sum holders: positions like replicas, flagged', () => {
  const L = 'S[4:1] + R[2:1@y] + P[2:1@z]';
  const p = ok(m.parseLayout(L));
  assert.equal(p.text, L);
  assert.equal(p.partialCount, 2);
  assert.deepEqual(
    p.partials.map((g) => g.map((x) => [x.extent, x.k, x.axis])),
    [[[2, 1, 'z']]],
  );
  const f = ok(m.forwardIndex(L, null, 1));
  assert.deepEqual(f.axes, ['m', 'y', 'z']);
  assert.equal(f.replicas, 2);
  assert.equal(f.partials, 2);
  // holder h = r * 2 + p: (r, p) = (0,0) (0,1) (1,0) (1,1) adds r on y and p on z
  assert.deepEqual(f.positions, [
    [1, 0, 0],
    [1, 0, 1],
    [1, 1, 0],
    [1, 1, 1],
  ]);
  assert.deepEqual(
    f.replicaSteps.map((s) => [s.replica, s.partial]),
    [
      [0, 0],
      [0, 1],
      [1, 0],
      [1, 1],
    ],
  );
  const t = ok(m.table(L, null, 0));
  assert.equal(t.partials, 2);
  assert.equal(t.values.length, 4 * 4 * 3);
  const v = ok(m.validate(L, null, 0));
  const info = v.findings.find((x) => x.code === 'partial-sum');
  assert.equal(info.severity, 'info');
  assert.equal(info.where, 'P 0');
});

test('applySwizzle takes only swizzles the parser takes; CuTe negative shift', () => {
  assert.equal(fails(m.applySwizzle(1, 0, 64, true, [1]), 'range').field, 'swizzle');
  fails(m.applySwizzle(30, 30, 30, true, [1]), 'range');
  fails(m.applySwizzle(2, 0, 0, true, [1]), 'range');
  fails(m.applySwizzle(-1, 0, 3, true, [1]), 'range');
  fails(m.applySwizzle(3, 4, -3, false, [1]), 'range');
  // Swizzle<3,4,-3>: bits 4..6 XORed into bits 7..9: 16 -> 144, 48 -> 432, 128 stays.
  const s = ok(m.applySwizzle(3, 4, -3, true, [16, 48, 128]));
  assert.deepEqual(s.offsets, [144, 432, 128]);
  assert.deepEqual(s.inverse, [144, 432, 128]);
  // The same function as inner = false with a positive shift (TIRx swizzle_inner=False).
  assert.deepEqual(ok(m.applySwizzle(3, 4, 3, false, [16, 48, 128])).offsets, [144, 432, 128]);
  // Shifts far outside any int are refused, not wrapped: -2^63 as a BigInt.
  fails(m.applySwizzle(3, 4, -(2n ** 63n), true, [1]), 'range');
  const p = ok(m.parseLayout('Swizzle<3,4,-3> o S[(8,128):(128,1)]'));
  assert.deepEqual([p.swizzle.bits, p.swizzle.base, p.swizzle.shift, p.swizzle.inner], [3, 4, 3, false]);
  assert.equal(p.swizzle.text, 'Swizzle<3,4,-3>');
});

test('errors carry a code', () => {
  assert.equal(fails(m.parseLayout('S[(8,4):(4,1]'), 'syntax').column, 13);
  fails(m.parseLayout('ComposeLayout(3, 3, 2, S[64:1])'), 'range');
  assert.equal(fails(m.parseLayout('ComposeLayout(3, 3, 3, S[64:1], atom_len=3)'), 'syntax').field, 'atom_len');
  fails(m.forwardIndex('S[8:1]', [4], 0), 'size-mismatch');
  fails(m.table('S[(4096,4096):(4096,1)]', [4096, 4096], 1000), 'limit');
});
