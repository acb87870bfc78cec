// importLayout / exportLayout / detectFormat through the WASM module: the same answers as the engine's own
// tests (the MMA fragment of the Triton docs, the JAX worked example), errors as values with a column.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadModule } from './load.mjs';

const m = await loadModule();

test('a Triton linear layout imports with its tensor shape', () => {
  const r = m.importLayout(
    'triton',
    '#ttg.linear<{register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [], block = []}>',
    [16, 8],
    null,
  );
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.equal(r.layout, 'S[(2,8,4,2):(2@reg,4@laneid,1@laneid,1@reg)]');
  assert.deepEqual(r.shape, [16, 8]);
  assert.equal(r.from, 'triton');
  const back = m.exportLayout('triton', r.layout, r.shape, null);
  assert.equal(back.ok, true, JSON.stringify(back));
  assert.match(back.text, /^#ttg\.linear<\{register = \[\[0, 1\], \[8, 0\]\]/);
});

test('a JAX spec imports with a mesh object, and exports back', () => {
  const r = m.importLayout('jax', "P('x', None)", '8,4', { x: 2, y: 4 });
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.equal(r.layout, 'S[(2,4,4):(1@x,4,1)] + R[4:1@y]');
  const e = m.exportLayout('jax', r.layout, [8, 4], { x: 2, y: 4 });
  assert.equal(e.ok, true, JSON.stringify(e));
  assert.equal(e.text, "NamedSharding(jax.make_mesh((2, 4), ('x', 'y')), P('x', None))");
});

test('DTensor Partial comes back as partial modes', () => {
  const r = m.importLayout('dtensor', '[Partial("sum"), Shard(1)]', [8, 4], { dp: 2, tp: 4 });
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.equal(r.partials.length, 1);
  assert.equal(r.partials[0][0].axis, 'dp');
  assert.equal(r.partials[0][0].extent, 2);
});

test('errors are values with a column and a field', () => {
  const text = '#ttg.linear<{register = [[1, 1]], lane = [[1, 0]], warp = [], block = []}>';
  const r = m.importLayout('triton', text, [2, 2], null);
  assert.equal(r.ok, false);
  assert.equal(r.error.column, text.indexOf('[1, 1]') + 1);
  assert.equal(m.importLayout('xla', 'x', null, null).error.field, 'format');
  assert.equal(m.importLayout('jax', "P('x')", [8], { x: 'two' }).error.field, 'mesh');
  assert.equal(m.exportLayout('jax', 'S[(4,2):(1,1@x)]', [8], null).error.field, 'dimension 0');
});

test('detectFormat names the syntax', () => {
  assert.equal(m.detectFormat('{devices=[2,1]0,1}'), 'hlo');
  assert.equal(m.detectFormat('#sdy.sharding<@mesh, [{"x"}]>'), 'shardy');
  assert.equal(m.detectFormat('S[8:1]'), 'axe');
});
