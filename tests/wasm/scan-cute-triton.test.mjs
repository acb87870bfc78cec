// The CuTe layouts of a pasted log (scanTtgir's cuteLayouts) and Triton's named encodings
// (exportTritonEncoding) through the WASM module, in the shape wasm/layoutscope.d.ts declares.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadModule, root } from './load.mjs';

const m = await loadModule();
const fixtures = join(root, 'tests', 'engine', 'fixtures', 'triton');

/** The text of alias `name` in a committed Triton 3.6 dump, as Triton printed it. */
function alias(file, name) {
  const line = readFileSync(join(fixtures, file), 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`#${name} = `));
  assert.ok(line, `${file} defines #${name}`);
  return line.slice(`#${name} = `.length);
}

test('scanTtgir: a print(layout) line is listed at its line and column, in the notation', () => {
  // CuTe's print() writes static integers with a leading _. Each top-level mode is one dimension; a nested
  // mode lists its parts major first, so ((2,2),4):((1,4),2) is rows (2:4, 2:1) and columns 4:2.
  const log = ['step 3', 'sA layout: (_8,_4):(_4,_1)', '((_2,_2),_4):((_1,_4),_2)', 'bad: (2,3):(oops,1)'].join('\n');
  const r = m.scanTtgir(log);
  assert.equal(r.ok, true);
  assert.equal(r.cuteLayouts.length, 3);
  const [a, b, bad] = r.cuteLayouts;
  assert.equal(a.line, 2);
  assert.equal(a.column, 'sA layout: '.length + 1);
  assert.equal(a.text, '(_8,_4):(_4,_1)');
  assert.equal(a.axe, 'S[(8,4):(4,1)]');
  assert.deepEqual(a.shape, [8, 4]);
  assert.equal(a.size, 32);
  assert.equal(a.error, '');
  assert.equal(a.context, '');
  assert.equal(b.line, 3);
  assert.equal(b.column, 1);
  assert.equal(b.axe, 'S[(2,2,4):(4,1,2)]');
  assert.deepEqual(b.shape, [4, 4]);
  assert.equal(b.size, 16);
  // not a stride: listed with its error at its column, and as an issue on that line
  assert.equal(bad.line, 4);
  assert.equal(bad.column, 'bad: '.length + 1);
  assert.equal(bad.axe, '');
  assert.notEqual(bad.error, '');
  assert.ok(r.issues.some((i) => i.line === 4));
});

test('scanTtgir: a TTGIR dump has no CuTe layouts', () => {
  const dump = readFileSync(join(fixtures, 'ttgir-transpose-sm90.mlir'), 'utf8');
  assert.deepEqual(m.scanTtgir(dump).cuteLayouts, []);
});

test('exportTritonEncoding: the blocked, swizzled_shared and nvmma_shared aliases of real dumps export to the text Triton printed', () => {
  const cases = [
    ['ttgir-transpose-sm90.mlir', 'blocked', [64, 64], 'blocked', null],
    ['ttgir-transpose-sm90.mlir', 'blocked1', [64, 64], 'blocked', null],
    ['ttgir-matmul-sm90.mlir', 'blocked', [128, 64], 'auto', null],
    // !ttg.memdesc<128x64xf16, #shared>: 16-bit elements
    ['ttgir-matmul-sm90.mlir', 'shared', [128, 64], 'nvmma_shared', 16],
    // sm80's !ttg.memdesc<128x64xf16, #shared> and <64x128xf16, #shared>
    ['ttgir-matmul-sm80.mlir', 'shared', [128, 64], 'swizzled_shared', null],
    ['ttgir-matmul-sm80.mlir', 'shared', [64, 128], 'swizzled_shared', null],
  ];
  for (const [file, name, shape, encoding, bits] of cases) {
    const triton = alias(file, name);
    const imported = m.importLayout('triton', triton, shape, null);
    assert.equal(imported.ok, true, `${file} #${name}`);
    const out = m.exportTritonEncoding(imported.layout, shape, encoding, bits);
    assert.equal(out.ok, true, `${file} #${name}: ${out.error?.message}`);
    assert.equal(out.text, triton, `${file} #${name}`);
  }
});

test('exportTritonEncoding: a layout no named encoding expresses is an error, never a wrong text', () => {
  // a shared (offset) layout has no lanes or registers: it is not #ttg.blocked
  const shared = m.exportTritonEncoding('S[(64,64):(64,1)]', [64, 64], 'blocked', null);
  assert.equal(shared.ok, false);
  assert.ok(shared.error.message.length > 0);
  const bits = m.exportTritonEncoding('Swizzle<3,4,3> o S[(64,64):(64,1)]', [64, 64], 'nvmma_shared', 12);
  assert.equal(bits.ok, false);
  assert.match(bits.error.message, /8, 16, 32 or 64/);
  const name = m.exportTritonEncoding('S[(64,64):(64,1)]', [64, 64], 'mma', null);
  assert.equal(name.ok, false);
  const shape = m.exportTritonEncoding('S[(64,64):(64,1)]', [64, 0], 'auto', null);
  assert.equal(shape.ok, false);
  assert.equal(shape.error.field, 'shape');
});
