// Blackwell TMEM and the tcgen05 descriptors through the WASM module: the values the page's figures draw, checked
// against the PTX ISA's tables (tcgen05 matrix fragments, tcgen05.cp shapes, the descriptor bit layouts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadModule } from './load.mjs';

const m = await loadModule();

test('tmemAccess 16x64b: lanes 0-7 by threads 0,4,..; lanes 8-15 by the odd threads (PTX fragment figure)', () => {
  const a = m.tmemAccess({ shape: '16x64b', num: 1 });
  assert.equal(a.ok, true, JSON.stringify(a.error));
  assert.deepEqual(a.shape, [16, 2]);
  const holder = new Map();
  for (let x = 0; x * 6 < a.cells.length; ++x)
    holder.set(`${a.cells[6 * x + 4]}:${a.cells[6 * x + 5]}`, a.cells[6 * x + 2]);
  // row 0: T0 T2; row 1: T4 T6; row 8: T1 T3; row 15: T29 T31
  assert.deepEqual([holder.get('0:0'), holder.get('0:1'), holder.get('1:0'), holder.get('1:1')], [0, 2, 4, 6]);
  assert.deepEqual([holder.get('8:0'), holder.get('8:1'), holder.get('15:0'), holder.get('15:1')], [1, 3, 29, 31]);
});

test('tmemAccess names the violated rule', () => {
  const slab = m.tmemAccess({ shape: '32x32b', lane: 32, warp: 2 });
  assert.equal(slab.ok, false);
  assert.equal(slab.error.field, 'warp');
  assert.equal(slab.error.code, 'slab');
  const num = m.tmemAccess({ shape: '16x256b', num: 64 });
  assert.equal(num.error.field, 'num');
  const alloc = m.tmemAccess({ shape: '32x32b', allocatedColumns: 48 });
  assert.equal(alloc.error.code, 'allocation granularity');
  assert.equal(m.tmemAccess({ shape: '8x8b' }).error.field, 'shape');
});

test('tmemCopy 32x128b.warpx4 and scaleFactors: the chapter SFA[64,2]', () => {
  const cp = m.tmemCopy({ shape: '32x128b.warpx4', column: 8 });
  assert.equal(cp.tmem, 'S[(32,4):(1@TLane,1@TCol)] + R[4:32@TLane] + O[8@TCol]');
  assert.equal(m.tmemCopy({ shape: '128x128b', column: 2 }).error.code, 'alignment');
  const sf = m.scaleFactors({ kind: 'mxf8f6f4', m: 128, k: 128, at: [64, 2] });
  assert.equal(sf.ok, true, JSON.stringify(sf.error));
  assert.equal(sf.tmem, 'S[(4,32,4):(1@TCol,1@TLane,1@byte)] + R[4:32@TLane]');
  assert.deepEqual(sf.trace.tlanes, [0, 32, 64, 96]);
  assert.equal(sf.trace.tcol, 2);
  assert.equal(sf.trace.byte, 2);
  assert.equal(sf.trace.byteOffset, 10);
  assert.equal(m.scaleFactors({ kind: 'mxf8f6f4', vec: 16 }).error.field, 'vec');
});

test('descriptors: decode, encode, check; errors name the field', () => {
  // start 0x400 >> 4 = 0x40, LBO 1 << 16, SBO 0x40 << 32, fixed 1 << 46, SWIZZLE_128B 2 << 61
  const d = m.smemDescriptor({ decode: '0x4000404000010040' });
  assert.equal(d.startAddress, 1024);
  assert.equal(d.strideByteOffset, 1024);
  assert.equal(d.swizzle, '128B');
  const e = m.smemDescriptor({ startAddress: 1024, leadingByteOffset: 16, strideByteOffset: 1024, swizzle: '128B' });
  assert.equal(e.hex, '0x4000404000010040');
  assert.equal(m.smemDescriptor({ decode: '0x4000004000010040' }).error.field, 'version');
  assert.equal(m.smemDescriptor({ startAddress: 8 }).error.field, 'start_address');
  const tile = { layout: 'Swizzle<3,3,3> o S[(64,64):(64,1)]', shape: '64,64', dtype: 'f16', major: 'K' };
  assert.equal(m.smemDescriptorCheck('0x4000404000010040', tile).matches, true);
  const bad = m.smemDescriptorCheck('0x4000402000010040', tile);
  assert.deepEqual(bad.differences, [{ field: 'stride_byte_offset', descriptor: 512, layout: 1024 }]);
  // kind::f16 bf16 x bf16 -> f32, 128 x 256: 1<<4 | 1<<7 | 1<<10 | 32<<17 | 8<<24
  const i = m.instrDescriptor({ kind: 'f16', aType: 'bf16', bType: 'bf16', dType: 'f32', m: 128, n: 256 });
  assert.equal(i.hex, '0x08400490');
  const back = m.instrDescriptor({ kind: 'f16', decode: '0x08400490' });
  assert.equal(back.aType, 'bf16');
  assert.equal(back.n, 256);
  assert.equal(m.instrDescriptor({ kind: 'f16', m: 96 }).error.field, 'm');
  assert.equal(m.instrDescriptor({ kind: 'f16', decode: '0xzz' }).error.code, 'syntax');
});
