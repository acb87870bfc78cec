// The facts the page's forms and figures ask the module for: element types, the bank model and a lane's access
// width, and mesh axes. Expected values from the hardware's bank model (32 banks of 4 B, 128 B a wavefront; a
// lane's shared-memory access is 4, 8 or 16 B) and the mesh syntax "axis=size,...".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadModule } from './load.mjs';

const m = await loadModule();

test('dtypes: every element type, narrowest first, with its bytes', () => {
  assert.deepEqual(
    m.dtypes().map((d) => `${d.dtype}:${d.bytes}`),
    ['u8:1', 'f8:1', 'f16:2', 'bf16:2', 'f32:4', 'tf32:4', 'f64:8'],
  );
});

test('the bank model and a lane access: sub-word types widen to the 4 B word, f64 is 8 B, nothing above 16', () => {
  assert.deepEqual(m.bankModel(), { banks: 32, wordBytes: 4, wavefrontBytes: 128 });
  assert.deepEqual(
    [1, 2, 4, 8, 32].map((b) => m.laneAccessBytes(b, null)),
    [4, 4, 4, 8, 16],
  );
  // a model of 8 B words reads a float as 8 B
  assert.equal(m.laneAccessBytes(4, { banks: 8, wordBytes: 8, wavefrontBytes: 64 }), 8);
  // f16 elements 2 and 3 (bytes 4, 6) share the word at byte 4
  assert.deepEqual(
    [0, 2, 4, 6, 20].map((b) => m.accessStart(b, 4)),
    [0, 0, 4, 4, 20],
  );
  assert.equal(m.accessStart(20, 16), 16);
});

test('parseMesh: axes in order, errors at the column of the bad entry', () => {
  const r = m.parseMesh('x=2,y=4');
  assert.equal(r.ok, true);
  assert.deepEqual(r.mesh, { x: 2, y: 4 });
  assert.deepEqual(r.axes, ['x', 'y']);
  const bad = m.parseMesh('x=2,y=two');
  assert.equal(bad.ok, false);
  assert.equal(bad.error.field, 'mesh');
  // "y=two" starts at column 5; the first bad character of its size, "t", is column 7
  assert.equal(bad.error.column, 7);
  const twice = m.parseMesh('x=2,x=4');
  assert.equal(twice.ok, false);
  assert.equal(twice.error.column, 5);
});
