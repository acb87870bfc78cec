// The convert benchmark on the CPU backend: a run given as src/dst layouts, one given as shape + perm, the
// permutation suite at CI sizes, every refusal (422 naming the field), the results against the schema, and
// the plan in each state against what `layoutscope plan` prints for the same input (the CLI is a separate
// program over the same engine). Expected values come from the definitions: useful bytes = 2 x elements x
// dtype size, a fully coalesced 16 B-per-lane warp access touches 32 x 16 / 32 = 16 sectors, the kernel hash
// is FNV-1a 64 of the text `layoutscope plan --emit-cuda` prints.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';

import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

import { postRun, repoRoot, sharedAgent, startAgent, summary, waitRun } from './lib/agent.js';

const schema = JSON.parse(fs.readFileSync(path.join(repoRoot, 'schemas', 'results.schema.json'), 'utf8'));
const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false });
addFormats(ajv);
const validateResults = ajv.compile(schema);
const cliBin = process.env.LAYOUTSCOPE_CLI_BIN || path.join(repoRoot, 'build', 'bin', 'layoutscope');

function assertValid(result) {
  assert.ok(validateResults(result), JSON.stringify(validateResults.errors, null, 1));
}

function cli(args) {
  const r = spawnSync(cliBin, args, { encoding: 'utf8', timeout: 20000 });
  assert.equal(r.status, 0, `layoutscope ${args.join(' ')}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}

// FNV-1a, 64 bit (offset basis 14695981039346656037, prime 1099511628211), over the UTF-8 bytes.
function fnv1a64(text) {
  let h = 0xcbf29ce484222325n;
  for (const b of Buffer.from(text, 'utf8')) h = BigInt.asUintN(64, (h ^ BigInt(b)) * 0x100000001b3n);
  return h.toString(16).padStart(16, '0');
}

const dtypeBytes = { u8: 1, f8: 1, f16: 2, bf16: 2, f32: 4, f64: 8 };
const fast = { repetitions: 2, warmup: 0, cache: 'hot', seed: 7 };

let agent;
before(async () => {
  agent = await sharedAgent();
});
after(async () => {
  await agent.stop();
});

async function runConvert(params) {
  const r = await postRun(agent, { benchmark: 'convert', params });
  assert.equal(r.status, 202, await r.clone().text());
  const rec = await waitRun(agent, (await r.json()).id, 120000);
  assert.equal(rec.status, 'succeeded', rec.error);
  assertValid(rec.result);
  return rec.result;
}

// What every state must show, whatever the case.
function checkState(s, expectedElements, dtype) {
  assert.equal(s.verification.passed, true, `${s.name}: ${s.verification.first_mismatch}`);
  assert.equal(s.verification.checked_elements, expectedElements);
  assert.equal(s.verification.mismatches, 0);
  assert.equal(summary(s, 'layoutscope/useful_bytes'), 2 * expectedElements * dtypeBytes[dtype]);
  assert.equal(s.plan.elements, expectedElements);
  assert.equal(s.times.compile_s, null, 'no NVRTC on the CPU backend');
  assert.equal(s.times.repeated_use_s, summary(s, 'time/cpu/median'));
  assert.ok(s.times.single_use_s >= s.times.plan_s && s.times.single_use_s >= s.times.first_run_s);
  assert.ok(s.times.cached_plan_s >= 0 && s.times.plan_s > 0);
  assert.equal(summary(s, 'layoutscope/time/plan'), s.times.plan_s);
  assert.equal(summary(s, 'layoutscope/time/single_use'), s.times.single_use_s);
  // The predictions in the "predicted" block are the plan's own numbers.
  const pred = s.plan.predicted_per_warp_instruction;
  assert.equal(s.predicted.global[0].sectors_per_request, pred.global_read.sectors);
  assert.equal(s.predicted.global[1].sectors_per_request, pred.global_write.sectors);
  if (s.plan.kind === 'tiled') {
    assert.equal(s.predicted.shared[0].wavefronts, pred.smem_write.wavefronts);
    assert.equal(s.predicted.shared[1].wavefronts, pred.smem_read.wavefronts);
    assert.equal(s.kernel.shared_bytes, s.plan.tile.staging_bytes);
  }
}

describe('convert: src / dst layouts', () => {
  const src = 'S[(64,96):(96,1)]';
  const dst = 'S[(64,96):(1,64)]';
  let result;

  test('an fp32 64x96 transpose, every element verified', async () => {
    result = await runConvert({ src, dst, shape: [64, 96], dtype: 'f32', ...fast });
    const b = result.benchmarks[0];
    assert.equal(b.name, 'convert');
    assert.deepEqual(b.axes, [{ name: 'case', type: 'string', values: ['case0'] }]);
    assert.equal(b.states.length, 1);
    const s = b.states[0];
    checkState(s, 64 * 96, 'f32');
    assert.equal(s.input.src, src);
    assert.equal(s.input.dst, dst);
    assert.equal(s.input.perm, null);
    assert.equal(s.plan.kind, 'tiled', 'the innermost destination mode is strided in the source');
    assert.equal(b.ceilings.length, 3);
    for (const c of b.ceilings) {
      assert.equal(c.verification.passed, true, c.name);
      assert.equal(c.axis_values.bytes, 2 * 64 * 96 * 4);
      assert.equal(c.bytes_copied, 64 * 96 * 4);
    }
    assert.equal(result.meta.request.params.src, src);
    assert.equal(result.schema_version, '1.6.0');
  });

  test('the plan and the kernel are what `layoutscope plan` prints for the same input', () => {
    const s = result.benchmarks[0].states[0];
    const args = ['plan', '--src', src, '--dst', dst, '--shape', '64,96', '--dtype', 'f32'];
    assert.deepEqual(s.plan, JSON.parse(cli(args)));
    const text = cli([...args, '--emit-cuda']);
    assert.equal(s.kernel.source_length, Buffer.byteLength(text, 'utf8'));
    assert.equal(s.kernel.source_hash, fnv1a64(text));
    assert.equal(s.kernel.name, 'layoutscope_convert');
  });

  test('16 B per lane, fully coalesced: 32 x 16 B / 32 B = 16 sectors per global request', () => {
    const p = result.benchmarks[0].states[0].plan;
    assert.equal(p.vector_bytes, 16);
    assert.equal(p.predicted_per_warp_instruction.global_read.sectors, 16);
    assert.equal(p.predicted_per_warp_instruction.global_write.sectors, 16);
  });
});

describe('convert: shape + perm', () => {
  test('bf16 BSHD -> BHSD (2,64,8,32) perm (0,2,1,3): a vector plan, as `layoutscope plan` prints it', async () => {
    const result = await runConvert({ shape: [2, 64, 8, 32], perm: [0, 2, 1, 3], dtype: 'bf16', ...fast });
    const s = result.benchmarks[0].states[0];
    checkState(s, 2 * 64 * 8 * 32, 'bf16');
    assert.deepEqual(s.input.perm, [0, 2, 1, 3]);
    // The innermost 32 bf16 (64 B) are contiguous on both sides: no staging.
    assert.equal(s.plan.kind, 'vector');
    assert.equal(s.plan.common_vector, 32);
    assert.equal(s.predicted.shared, undefined);
    const args = ['plan', '--shape', '2,64,8,32', '--perm', '0,2,1,3', '--dtype', 'bf16'];
    assert.deepEqual(s.plan, JSON.parse(cli(args)));
    assert.equal(s.kernel.source_hash, fnv1a64(cli([...args, '--emit-cuda'])));
    assert.deepEqual(result.meta.request.params.perm, [0, 2, 1, 3]);
  });

  test('f32 NCHW -> NHWC of one 32 x 32 RGB image: each lane stores its own record, no shared memory', async () => {
    const result = await runConvert({ shape: [1, 3, 32, 32], perm: [0, 2, 3, 1], dtype: 'f32', ...fast });
    const s = result.benchmarks[0].states[0];
    checkState(s, 3 * 32 * 32, 'f32');
    // 1024 pixels / 4 a lane = 256 items: one block of 256 would leave SMs idle, so blocks of 64 (4 of
    // them), each lane storing its 3 chunks of 16 B at a 48 B stride (a sector each: 32 a store).
    assert.equal(s.plan.kind, 'interleave');
    assert.equal(s.plan.interleave.direct_stores, true);
    assert.equal(s.plan.interleave.exchange_bytes, 0);
    assert.equal(s.plan.threads, 64);
    assert.equal(s.plan.blocks, 4);
    assert.equal(s.kernel.shared_bytes, 0);
    assert.equal(s.predicted.shared, undefined);
    assert.equal(s.predicted.global[1].sectors_per_request, 32);
    const args = ['plan', '--shape', '1,3,32,32', '--perm', '0,2,3,1', '--dtype', 'f32'];
    assert.deepEqual(s.plan, JSON.parse(cli(args)));
    // The plan itself names no shared accesses either: only the two global sides are predicted.
    assert.deepEqual(Object.keys(s.plan.predicted_per_warp_instruction).sort(), ['global_read', 'global_write']);
  });

  test('u8 3-D reverse (16,8,64) perm (2,1,0): every element verified', async () => {
    const result = await runConvert({ shape: [16, 8, 64], perm: [2, 1, 0], dtype: 'u8', ...fast });
    checkState(result.benchmarks[0].states[0], 16 * 8 * 64, 'u8');
  });
});

describe('convert: the permutation suite at CPU sizes', () => {
  test('8 permutations x {f32, bf16, u8} and 50 random ones, at most 1 MiB each, all verified', async () => {
    const result = await runConvert({ suite: 'permutations', ...fast });
    const b = result.benchmarks[0];
    assert.equal(b.suite, 'permutations');
    assert.equal(b.states.length, 24 + 50);
    const perms = [
      [1, 0],
      [0, 2, 1],
      [0, 2, 3, 1],
      [0, 3, 1, 2],
      [0, 2, 1, 3],
      [2, 1, 0],
      [1, 0],
      [1, 0],
    ];
    const sizes = new Set();
    b.states.forEach((s, i) => {
      // The named ones by dtype, then the random ones: rank 3 + j % 4, dtype f32, bf16, u8 in turn, a
      // permutation of 0..rank-1 other than the identity.
      const j = i - 24;
      const dtype = ['f32', 'bf16', 'u8'][i < 24 ? Math.floor(i / 8) : j % 3];
      assert.equal(s.input.dtype, dtype, s.name);
      if (i < 24) {
        assert.deepEqual(s.input.perm, perms[i % 8], s.name);
      } else {
        const rank = 3 + (j % 4);
        assert.equal(s.input.perm.length, rank, s.name);
        assert.deepEqual(
          [...s.input.perm].sort((x, y) => x - y),
          [...Array(rank).keys()],
          s.name,
        );
        assert.ok(
          s.input.perm.some((p, k) => p !== k),
          s.name,
        );
        assert.match(s.name, new RegExp(`^case=small_random${j}_`));
      }
      const elements = s.input.shape.reduce((a, x) => a * x, 1);
      assert.ok(elements * dtypeBytes[dtype] <= 1 << 20, s.name);
      checkState(s, elements, dtype);
      sizes.add(2 * elements * dtypeBytes[dtype]);
    });
    assert.equal(b.ceilings.length, 3 * sizes.size, 'the ceilings once per distinct size');
    assert.deepEqual(result.meta.request.params.suite, 'permutations');
  });
});

// Offset and swizzled layouts on either side (the layouts TMA and ldmatrix tiles are stored in): the CPU
// backend sizes each buffer by the side's span and checks every element through each layout's own evaluation,
// swz(strided offset + O). Expected: every element checked, none mismatched.
describe('convert: offset and swizzled layouts on either side', () => {
  const cases = [
    ['an offset source', 'S[(64,64):(64,1)] + O[4096]', 'S[(64,64):(1,64)]', [64, 64], 'f32'],
    ['an offset destination', 'S[(64,64):(64,1)]', 'S[(64,64):(1,64)] + O[8]', [64, 64], 'f32'],
    ['an odd offset source (1-element accesses)', 'S[(64,64):(64,1)] + O[3]', 'S[(64,64):(1,64)]', [64, 64], 'f32'],
    ['a 128 B-swizzled bf16 source', 'Swizzle<3,3,3> o S[(64,64):(64,1)]', 'S[(64,64):(64,1)]', [64, 64], 'bf16'],
    ['a 128 B-swizzled bf16 destination', 'S[(64,64):(64,1)]', 'Swizzle<3,3,3> o S[(64,64):(64,1)]', [64, 64], 'bf16'],
    [
      'a swizzled source into an offset, transposed destination',
      'Swizzle<3,3,3> o S[(64,64):(64,1)]',
      'S[(64,64):(1,64)] + O[512]',
      [64, 64],
      'bf16',
    ],
  ];
  for (const [what, src, dst, shape, dtype] of cases) {
    test(`${what}: planned, run and every element verified`, async () => {
      const result = await runConvert({ src, dst, shape, dtype, ...fast });
      const s = result.benchmarks[0].states[0];
      checkState(s, shape[0] * shape[1], dtype);
      assert.equal(s.input.src, src);
      assert.equal(s.input.dst, dst);
    });
  }
});

describe('convert: refusals name the field', () => {
  const cases = [
    [
      'different logical sizes',
      { src: 'S[(4,8):(8,1)]', dst: 'S[(4,4):(4,1)]', shape: [4, 8], dtype: 'f32' },
      /^params\.(src|dst|shape)$/,
    ],
    [
      'an aliasing destination',
      { src: 'S[(4,8):(8,1)]', dst: 'S[(4,8):(1,1)]', shape: [4, 8], dtype: 'f32' },
      /^params\.dst$/,
    ],
    [
      'a bad layout text',
      { src: 'S[(4,8):(8,1]', dst: 'S[(4,8):(8,1)]', shape: [4, 8], dtype: 'f32' },
      /^params\.src$/,
    ],
    ['not a permutation', { shape: [4, 8], perm: [0, 0], dtype: 'f32' }, /^params\.perm$/],
    ['a perm of the wrong rank', { shape: [4, 8], perm: [1, 0, 2], dtype: 'f32' }, /^params\.perm$/],
    ['perm and src together', { src: 'S[(4,8):(8,1)]', shape: [4, 8], perm: [1, 0], dtype: 'f32' }, /^params\.src$/],
    ['no dtype', { shape: [4, 8], perm: [1, 0] }, /^params\.dtype$/],
    ['an unknown dtype', { shape: [4, 8], perm: [1, 0], dtype: 'f17' }, /^params\.dtype$/],
    ['no shape', { perm: [1, 0], dtype: 'f32' }, /^params\.shape$/],
    ['a zero extent', { shape: [4, 0], perm: [1, 0], dtype: 'f32' }, /^params\.shape\[1\]$/],
    ['no dst', { src: 'S[(4,8):(8,1)]', shape: [4, 8], dtype: 'f32' }, /^params\.dst$/],
    ['out of memory (2 x 32 GiB)', { shape: [65536, 65536], perm: [1, 0], dtype: 'f64' }, /^params\.shape$/],
    ['an unknown suite', { suite: 'everything' }, /^params\.suite$/],
    ['suite with a shape', { suite: 'permutations', shape: [4] }, /^params\.shape$/],
    ['an unknown parameter', { shape: [4, 8], perm: [1, 0], dtype: 'f32', tile: 64 }, /^params\.tile$/],
    [
      'an offset on an axis other than @m',
      { src: 'S[(4,8):(8,1)] + O[4@laneid]', dst: 'S[(4,8):(1,4)]', shape: [4, 8], dtype: 'f32' },
      /^params\.src$/,
    ],
    [
      'a malformed swizzle on the destination (S = 0 cancels its bits)',
      { src: 'S[(8,64):(64,1)]', dst: 'Swizzle<3,3,0> o S[(8,64):(64,1)]', shape: [8, 64], dtype: 'f32' },
      /^params\.dst$/,
    ],
  ];
  for (const [what, params, field] of cases) {
    test(`${what}: 422`, async () => {
      const r = await postRun(agent, { benchmark: 'convert', params });
      const text = await r.text();
      assert.equal(r.status, 422, text);
      const err = JSON.parse(text).error;
      assert.match(err.field, field, text);
      assert.ok(err.message.startsWith(err.field), text);
    });
  }
});

// One convert request is parsed once into values: its two layout texts go through the engine's parser once
// each and the planner once, on the way in (nothing after that parses or plans again: the backend, the
// check and the printers take the values); the same request again takes the plan cache's values and calls
// neither. The agent counts its calls into the engine (GET /v1/_test/engine-calls, --test-endpoints only).
describe('convert: each layout parsed once, the plan made once', () => {
  let own;
  before(async () => {
    own = await startAgent(['--test-endpoints']);
  });
  after(async () => {
    await own.stop();
  });
  const calls = async () => (await own.fetch('/v1/_test/engine-calls')).json();
  async function run(params) {
    const r = await postRun(own, { benchmark: 'convert', params: { ...params, ...fast } });
    assert.equal(r.status, 202, await r.clone().text());
    const rec = await waitRun(own, (await r.json()).id, 120000);
    assert.equal(rec.status, 'succeeded', rec.error);
    return rec.result;
  }
  const params = { src: 'S[(64,32):(32,1)]', dst: 'S[(64,32):(1,64)]', shape: [64, 32], dtype: 'f32' };

  test('src/dst: two parses and one plan, then none for the same request', async () => {
    const before0 = await calls();
    const first = await run(params);
    assert.equal(first.benchmarks[0].states[0].verification.passed, true);
    const after1 = await calls();
    assert.equal(after1.layout_parses - before0.layout_parses, 2);
    assert.equal(after1.convert_plans - before0.convert_plans, 1);
    const again = await run(params);
    assert.equal(again.benchmarks[0].states[0].verification.passed, true);
    const after2 = await calls();
    assert.equal(after2.layout_parses, after1.layout_parses);
    assert.equal(after2.convert_plans, after1.convert_plans);
  });

  test('shape + perm: no layout text to parse, one plan', async () => {
    const before0 = await calls();
    await run({ shape: [16, 8, 4], perm: [2, 0, 1], dtype: 'bf16' });
    const after1 = await calls();
    assert.equal(after1.layout_parses, before0.layout_parses);
    assert.equal(after1.convert_plans - before0.convert_plans, 1);
  });
});
