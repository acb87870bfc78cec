// The CLI's interop, algebra, access, plan and reshard commands end to end. Expected values are worked out
// from the sources' own definitions (CuTe's documentation, Triton's linear-layout rule, JAX's sharding rule,
// the chapter's bank model, nccl-tests' byte counts), not from the program.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

const bin = process.env.LAYOUTSCOPE_BIN ?? 'build/bin/layoutscope';

function run(...args) {
  const r = spawnSync(bin, args, { encoding: 'utf8' });
  const lines = r.stdout.trim().split('\n').filter(Boolean);
  return { code: r.status, lines: lines.map((l) => (l.startsWith('{') ? JSON.parse(l) : l)), out: r.stdout };
}

const TRITON_MMA =
  '#ttg.linear<{register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [], block = []}>';

test('import: CuTe (2,(2,2)):(4,(2,1)) on 2x4 reverses the sub-modes of the column', () => {
  const r = run('import', '--from', 'cute', '(2,(2,2)):(4,(2,1))', '--shape', '2,4');
  assert.equal(r.code, 0);
  assert.equal(r.lines[0].layout, 'S[(2,2,2):(4,1,2)]');
  assert.deepEqual(r.lines[0].shape, [2, 4]);
});

test("import: JAX P('x', None) on mesh x=2,y=4 shards rows over x and replicates over y", () => {
  const r = run('import', '--from', 'jax', "P('x', None)", '--shape', '8,4', '--mesh', 'x=2,y=4');
  assert.equal(r.code, 0);
  assert.equal(r.lines[0].layout, 'S[(2,4,4):(1@x,4,1)] + R[4:1@y]');
});

test('inverse --from triton: lane 5 of the MMA fragment holds (1,2) (1,3) (9,2) (9,3)', () => {
  // lane bits (b0..b4) = (1,0,1,0,0): bases [0,2] + [1,0] = (1,2); register bases add (0,1) and (8,0).
  const r = run('inverse', '--from', 'triton', TRITON_MMA, '--shape', '16,8', 'laneid=5');
  assert.equal(r.code, 0);
  const coords = r.lines[0].hits.map((h) => h.coord.join(',')).sort();
  assert.deepEqual(coords, ['1,2', '1,3', '9,2', '9,3']);
});

test('eval --from cute: element 5 of (2,(2,2)):(4,(2,1)) on 2x4 sits at 6', () => {
  // (1,1): row 1 -> 4; column 1 splits colexicographically into (1,0) over (2,2):(2,1) -> 2.
  const r = run('eval', '--from', 'cute', '(2,(2,2)):(4,(2,1))', '--shape', '2,4', '5');
  assert.equal(r.code, 0);
  assert.deepEqual(r.lines[0].positions, [{ m: 6 }]);
  const bad = run('eval', 'S[8:1]', '--mesh', 'x=2', '3');
  assert.equal(bad.code, 2);
  assert.equal(bad.lines[0].error.field, 'mesh');
});

test('export: back to CuTe, and an error naming what CuTe cannot say', () => {
  const r = run('export', '--to', 'cute', 'S[(2,2,2):(4,1,2)]', '--shape', '2,4');
  assert.equal(r.code, 0);
  // CuTe C++: the column's two modes reversed (first mode fastest), as static Int<N> types
  assert.equal(r.lines[0].text, 'Layout<Shape<Int<2>,Shape<Int<2>,Int<2>>>,Stride<Int<4>,Stride<Int<2>,Int<1>>>>{}');
  const rep = run('export', '--to', 'cute', 'S[4:1] + R[2:4]');
  assert.equal(rep.code, 2);
  assert.equal(rep.lines[0].error.field, 'R');
});

test("algebra: CuTe's documented composition, and an error naming the argument", () => {
  // (20):(2) o (5,4):(4,1): B(i,j) = 4i + j, A doubles it -> (5,4):(8,2) (CuTe, 02_layout_algebra.md)
  const r = run('algebra', 'composition', '--syntax', 'cute', '(20):(2)', '(5,4):(4,1)');
  assert.equal(r.code, 0);
  assert.equal(r.lines[0].result, '(5,4):(8,2)');
  assert.equal(r.lines[0].size, 20);
  const bad = run('algebra', 'composition', '--syntax', 'cute', '(20):(2)', '(5,4):(4,1');
  assert.equal(bad.code, 2);
  assert.equal(bad.lines[0].error.field, 'argument 2');
  assert.ok(bad.lines[0].error.column > 0);
});

test("algebra: a tiler written [2:1,3:2] is one argument, and '-' reads one case a line", () => {
  // (12,(4,8)):(59,(13,1)) by mode with <3:4, 8:2>: (3,(2,4)):(236,(26,1)) (CuTe, 02_layout_algebra.md)
  const t = run('algebra', 'composition', '--syntax', 'cute', '(12,(4,8)):(59,(13,1))', '[3:4,8:2]');
  assert.equal(t.code, 0);
  assert.equal(t.lines[0].result, '(3,(2,4)):(236,(26,1))');
  const lines = [
    'coalesce ((16,4),128):((1@0,16@0),1@1)', // 16 * 1@0 = 16@0: the first two modes merge
    'complement (6,6,1):(2,53,6) 36', // gaps 2/1 and 53/12 (rounded down), nothing past 318
    'bogus 1',
  ];
  const r = spawnSync(bin, ['algebra', '--syntax', 'cute', '-'], { input: lines.join('\n') + '\n', encoding: 'utf8' });
  const out = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.equal(r.status, 2);
  assert.equal(out[0].result, '(64,128):(1@0,1@1)');
  assert.equal(out[1].result, '(2,4):(1,12)');
  assert.equal(out[2].error.line, 3);
  assert.equal(out[2].error.field, 'op');
});

test('access: a 32x32 fp32 column read is 32 wavefronts an instruction, padded to 33 words 1', () => {
  const plain = run(
    'access',
    '--layout',
    'S[(32,32):(32,1)]',
    '--shape',
    '32,32',
    '--dtype',
    'f32',
    '--instr',
    'LDS.32',
    '--lanes',
    'columns',
  );
  assert.equal(plain.code, 0);
  assert.equal(plain.lines[0].instructions[0].wavefronts, 32);
  assert.equal(plain.lines[0].instructions[0].ideal_wavefronts, 1);
  const padded = run(
    'access',
    '--layout',
    'S[(32,32):(33,1)]',
    '--shape',
    '32,32',
    '--dtype',
    'f32',
    '--instr',
    'LDS.32',
    '--lanes',
    'columns',
  );
  assert.equal(padded.lines[0].instructions[0].wavefronts, 1);
});

test('advise: a 16x32 fp32 tile written by rows and read by columns has a conflict-free layout first', () => {
  const r = run(
    'advise',
    '--writer',
    'rows;STS.32',
    '--reader',
    'columns;LDS.32',
    '--dtype',
    'f32',
    '--tile',
    '16,32',
    '--top',
    '3',
  );
  assert.equal(r.code, 0);
  assert.equal(r.lines[0].candidates.length, 3);
  assert.equal(r.lines[0].candidates[0].conflict_free, true);
});

test('plan: a 4096^2 fp32 transpose is tiled, 16 B a lane, 16 sectors per 512 B request', () => {
  const r = run('plan', '--shape', '4096,4096', '--perm', '1,0', '--dtype', 'f32');
  assert.equal(r.code, 0);
  const p = r.lines[0];
  assert.equal(p.kind, 'tiled');
  assert.equal(p.vector_bytes, 16);
  assert.equal(p.predicted_per_warp_instruction.global_read.sectors, (32 * 16) / 32);
  assert.equal(p.predicted_per_warp_instruction.global_write.sectors, (32 * 16) / 32);
  const cuda = run('plan', '--shape', '4096,4096', '--perm', '1,0', '--dtype', 'f32', '--emit-cuda');
  assert.match(cuda.out, /extern "C" __global__ void __launch_bounds__\(256\) layoutscope_convert/);
  const alias = run('plan', '--src', 'S[(4,4):(4,1)]', '--dst', 'S[(4,4):(1,1)]', '--dtype', 'f32');
  assert.equal(alias.code, 2);
  assert.equal(alias.lines[0].error.field, 'dst');
});

test('reshard: shard over gpuid_x -> replicate is one all_gather of 32 B a device, checked on host', () => {
  // each device holds 8 fp32 (32 B) and receives the other gpuid_x rank's 32 B: (2-1)/2 * 64 B.
  const r = run(
    'reshard',
    '--from',
    'S[(2,4,8):(1@gpuid_x,1@gpuid_y,1)]',
    '--to',
    'S[(2,4,8):(8,1@gpuid_y,1)] + R[2:1@gpuid_x]',
    '--shape',
    '2,4,8',
    '--mesh',
    'gpuid_x=2,gpuid_y=4',
  );
  assert.equal(r.code, 0);
  const p = r.lines[0];
  assert.deepEqual(
    p.steps.map((s) => `${s.op} ${s.axis}`),
    ['all_gather gpuid_x'],
  );
  assert.equal(p.steps[0].send_bytes, 32);
  assert.equal(p.steps[0].recv_bytes, 32);
  assert.ok(p.checked_on_host.elements_checked > 0);
});

// CuTe's first mode is fastest: (_8,_4):(_4,_1) sends (i, j) to 4i + j, the row-major 8x4 of the notation.
test('scan: CuTe print() output read from standard input', () => {
  const log = 'sA : Sw<3,4,3> o _0 o (_8,_64):(_64,_1)\nptr[16b](0x7f00) o (_8,_4):(_4,_1):\n  1.0  2.0\n';
  const r = spawnSync(bin, ['scan', '-'], { input: log, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const j = JSON.parse(r.stdout);
  assert.equal(j.cute_layouts.length, 2);
  assert.deepEqual(
    { line: j.cute_layouts[0].line, column: j.cute_layouts[0].column, axe: j.cute_layouts[0].axe },
    { line: 1, column: 6, axe: 'Swizzle<3,4,3> o S[(8,64):(64,1)]' },
  );
  assert.equal(j.cute_layouts[1].context, 'print_tensor');
  assert.equal(j.cute_layouts[1].axe, 'S[(8,4):(4,1)]');
  assert.equal(j.cute_layouts[1].size, 32);
});

// SWIZZLE_128B on 64-element f16 rows: Triton writes it as 8-element groups XORed by row % 8, or as NVMMA's
// 128 B mode (both texts as Triton 3.6 prints them in tests/engine/fixtures/triton).
test('export: Triton named encodings, and why one does not fit', () => {
  const sw = 'Swizzle<3,3,3> o S[(64,64):(64,1)]';
  const s = run('export', '--to', 'triton', sw, '--shape', '64,64', '--encoding', 'swizzled_shared');
  assert.equal(s.code, 0);
  assert.equal(s.lines[0].text, '#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>');
  const n = run(
    'export',
    '--to',
    'triton',
    sw,
    '--shape',
    '64,64',
    '--encoding',
    'nvmma_shared',
    '--element-bits',
    '16',
  );
  assert.equal(
    n.lines[0].text,
    '#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>',
  );
  const b = run('export', '--to', 'triton', sw, '--shape', '64,64', '--encoding', 'blocked');
  assert.notEqual(b.code, 0);
  assert.equal(b.lines[0].error.field, 'encoding');
  assert.match(b.lines[0].error.message, /shared memory \(@m\)/);
  const wrong = run('export', '--to', 'cute', sw, '--shape', '64,64', '--encoding', 'blocked');
  assert.notEqual(wrong.code, 0);
  assert.equal(wrong.lines[0].error.field, 'encoding');
});
