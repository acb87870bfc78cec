// CuTe's layout algebra through the WASM module: CuTe's documented examples and errors as values.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadModule } from './load.mjs';

const m = await loadModule();

test('composition of the documented example, in CuTe and in the chapter notation', () => {
  const r = m.algebra('composition', ['(20):(2)', '(5,4):(4,1)'], 'cute');
  assert.equal(r.ok, true);
  assert.equal(r.result, '(5,4):(8,2)');
  assert.equal(r.axe, 'S[(5,4):(8,2)]');
  assert.deepEqual(r.shape, [5, 4]);
  assert.equal(r.size, 20);
  assert.equal(r.cosize, 4 * 8 + 3 * 2 + 1);
  const axe = m.algebra('composition', ['S[20:2]', 'S[(5,4):(4,1)]'], 'axe');
  assert.equal(axe.result, '(5,4):(8,2)');
});

test('complement, divide, product and max_common_vector', () => {
  assert.equal(m.algebra('complement', ['4:2', '24'], 'cute').result, '(2,3):(1,8)');
  assert.equal(m.algebra('logical_divide', ['(4,2,3):(2,1,8)', '4:2'], 'cute').result, '((2,2),(2,3)):((4,1),(2,8))');
  assert.equal(
    m.algebra('blocked_product', ['(2,5):(5,1)', '(3,4):(1,3)'], 'cute').result,
    '((2,3),(5,4)):((5,10),(1,30))',
  );
  const v = m.algebra('max_common_vector', ['(8,4):(1,8)', '(4,2,4):(1,16,4)'], 'cute');
  assert.equal(v.vector, 4);
  assert.equal(v.result, '4');
  assert.ok(m.algebraOperations().includes('raked_product'));
});

test('errors are values naming the argument and the column', () => {
  const r = m.algebra('composition', ['(20):(2)', '(5,4):(4,'], 'cute');
  assert.equal(r.ok, false);
  assert.equal(r.error.field, 'argument 2');
  assert.equal(r.error.column, 10);
  assert.equal(m.algebra('nope', ['8:1'], 'cute').error.field, 'op');
  assert.equal(m.algebra('coalesce', ['8:1'], 'python').error.field, 'syntax');
  assert.equal(m.algebra('coalesce', [8], 'cute').error.field, 'argument 1');
  assert.equal(m.algebra('coalesce', 'oops', 'cute').error.field, 'args');
});
