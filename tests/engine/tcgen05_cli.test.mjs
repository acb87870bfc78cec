// The CLI's tcgen05 and desc commands end to end. Expected values come from the PTX ISA's tables (tcgen05
// matrix fragments, the shared memory and instruction descriptor bit layouts), assembled by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

const bin = process.env.LAYOUTSCOPE_BIN ?? 'build/bin/layoutscope';

function run(...args) {
  const r = spawnSync(bin, args, { encoding: 'utf8' });
  const lines = r.stdout.trim().split('\n').filter(Boolean);
  return { code: r.status, json: lines.map((l) => JSON.parse(l)) };
}

test('tcgen05 ld 16x128b: thread 6 of warp 1 holds TMEM (41, 10) in register 1', () => {
  // PTX 16x128b fragment: thread t holds lanes t/4 and t/4 + 8 (registers 0, 1), column t%4.
  const r = run('tcgen05', 'ld', '--shape', '16x128b', '--lane', '32', '--column', '8', '--cells', '1');
  assert.equal(r.code, 0);
  const o = r.json[0];
  assert.equal(o.instruction, 'tcgen05.ld.sync.aligned.16x128b.x1.b32');
  assert.equal(o.warp, 1);
  assert.deepEqual(o.warps.slice(0, 4), [1, 5, 9, 13]);
  const hit = o.cells.filter(([, , lane, reg]) => lane === 6 && reg === 1);
  assert.equal(hit.length, 1);
  assert.deepEqual(hit[0].slice(4), [32 + 9, 8 + 2]);
});

test('tcgen05 ld refuses a warp outside the slab and a bad repeat, naming the field', () => {
  const w = run('tcgen05', 'ld', '--shape', '32x32b', '--lane', '64', '--warp', '1');
  assert.equal(w.code, 2);
  assert.equal(w.json[0].error.field, 'warp');
  assert.equal(w.json[0].error.code, 'slab');
  const n = run('tcgen05', 'st', '--shape', '16x256b', '--num', '64');
  assert.equal(n.code, 2);
  assert.equal(n.json[0].error.field, 'num');
  const a = run('tcgen05', 'ld', '--shape', '32x32b', '--num', '64', '--alloc', '48');
  assert.equal(a.json[0].error.code, 'allocation granularity');
});

test('tcgen05 cp 64x128b.warpx2::01_23 and sf: the chapter SFA[64,2]', () => {
  const cp = run('tcgen05', 'cp', '--shape', '64x128b.warpx2::01_23');
  assert.equal(cp.code, 0);
  assert.equal(cp.json[0].tmem, 'S[(2,32,4):(64@TLane,1@TLane,1@TCol)] + R[2:32@TLane]');
  const sf = run('tcgen05', 'sf', '--kind', 'mxf8f6f4', '--m', '128', '--k', '128', '--at', '64,2');
  assert.equal(sf.code, 0);
  const t = sf.json[0].trace;
  assert.deepEqual(t.tlanes, [0, 32, 64, 96]);
  assert.equal(t.tcol, 2);
  assert.equal(t.byte, 2);
  assert.equal(t.byte_offset, 10);
  assert.equal(sf.json[0].tmem, 'S[(4,32,4):(1@TCol,1@TLane,1@byte)] + R[4:32@TLane]');
});

test('desc decodes and encodes both descriptors', () => {
  // start 0x400 >> 4 = 0x40, LBO 1, SBO 0x40 << 32, fixed 1 << 46, SWIZZLE_128B 2 << 61
  const s = run('desc', '--decode', '0x4000404000010040');
  assert.equal(s.code, 0);
  assert.equal(s.json[0].start_address, 1024);
  assert.equal(s.json[0].stride_byte_offset, 1024);
  assert.equal(s.json[0].swizzle, '128B');
  const e = run('desc', '--encode', '--start', '1024', '--lbo', '16', '--sbo', '1024', '--swizzle', '128B');
  assert.equal(e.json[0].hex, '0x4000404000010040');
  // f32 1<<4 | bf16 1<<7 | bf16 1<<10 | 32<<17 | 8<<24
  const i = run(
    'desc',
    '--encode',
    '--kind',
    'instr',
    '--mma',
    'f16',
    '--a',
    'bf16',
    '--b',
    'bf16',
    '--m',
    '128',
    '--n',
    '256',
  );
  assert.equal(i.json[0].hex, '0x08400490');
  const d = run('desc', '--decode', '0x08400490', '--kind', 'instr', '--mma', 'f16');
  assert.equal(d.json[0].a_type, 'bf16');
  assert.equal(d.json[0].n, 256);
});

test('desc errors name the field; --check reports the differing field with exit 1', () => {
  const v = run('desc', '--decode', '0x4000004000010040');
  assert.equal(v.code, 2);
  assert.equal(v.json[0].error.field, 'version');
  const m = run('desc', '--encode', '--kind', 'instr', '--mma', 'f16', '--m', '96');
  assert.equal(m.json[0].error.field, 'm');
  const layout = 'Swizzle<3,3,3> o S[(64,64):(64,1)]';
  const ok = run('desc', '--check', '0x4000404000010040', '--layout', layout, '--shape', '64,64', '--dtype', 'f16');
  assert.equal(ok.code, 0);
  assert.equal(ok.json[0].matches, true);
  // SBO 512 (0x20 << 32) where the layout's 8-row groups are 1024 B apart
  const bad = run('desc', '--check', '0x4000402000010040', '--layout', layout, '--shape', '64,64', '--dtype', 'f16');
  assert.equal(bad.code, 1);
  assert.deepEqual(bad.json[0].differences, [{ field: 'stride_byte_offset', descriptor: 512, layout: 1024 }]);
});
