// The smem_access and global_access benchmarks on the CPU backend (the host executor: the same generated
// access, no counters). Expected values are worked out by hand from the bank and sector rules (bank = byte
// address / 4 % 32, one wavefront serves 128 B, a sector is 32 B), from the PTX ldmatrix fragment (one matrix a
// phase, 8 rows of 16 B), and from the cp.async counting rule Nsight Compute was measured to follow on an H200
// (cp.async.16 = cp.async.cg is not counted by the ldgsts counters; cp.async.4/8 take one wavefront group per
// 128 B source line). Every refusal is a 422 naming the field.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

import { postRun, repoRoot, sharedAgent, summary, waitRun } from './lib/agent.js';

const schema = JSON.parse(fs.readFileSync(path.join(repoRoot, 'schemas', 'results.schema.json'), 'utf8'));
const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false });
addFormats(ajv);
const validateResults = ajv.compile(schema);

const fast = { repetitions: 2, warmup: 0, cache: 'hot', seed: 11 };

let agent;
before(async () => {
  agent = await sharedAgent();
});
after(async () => {
  await agent.stop();
});

async function run(benchmark, params, extra = {}) {
  const r = await postRun(agent, { benchmark, params: { ...fast, ...params }, ...extra });
  assert.equal(r.status, 202, await r.clone().text());
  const rec = await waitRun(agent, (await r.json()).id, 120000);
  assert.equal(rec.status, 'succeeded', rec.error);
  assert.ok(validateResults(rec.result), JSON.stringify(validateResults.errors, null, 1));
  const b = rec.result.benchmarks[0];
  assert.equal(b.name, benchmark);
  for (const s of b.states) {
    assert.equal(s.verification.passed, true, `${s.name}: ${s.verification.first_mismatch}`);
    assert.equal(s.verification.mismatches, 0);
    assert.match(s.executor, /host executor/);
    assert.equal(s.measured.available, false);
    assert.match(s.measured.reason, /cpu backend/);
    assert.equal(s.kernel.name, 'layoutscope_access');
    assert.equal(s.kernel.compile_s, null, 'no NVRTC on the CPU backend');
  }
  return b;
}

// One 32-lane column: lane l starts at element 32 l (row l, column 0).
const column0 = Array.from({ length: 32 }, (_, l) => 32 * l).join(',');

describe('smem_access: one access', () => {
  test('a column of S[(32,32):(32,1)] fp32: every lane in bank 0 -> 32 wavefronts, ideal 1', async () => {
    const b = await run('smem_access', {
      layout: 'S[(32,32):(32,1)]',
      shape: [32, 32],
      dtype: 'f32',
      instr: 'LDS.32',
      lanes: column0,
    });
    assert.equal(b.states.length, 1);
    const s = b.states[0];
    assert.deepEqual(s.axis_values, { access: 'access' });
    const p = s.predicted.shared[0];
    assert.equal(p.layout, 'S[(32,32):(32,1)]');
    assert.deepEqual(p.shape, [32, 32]);
    assert.equal(p.dtype, 'f32');
    assert.equal(p.instr, 'LDS.32');
    assert.deepEqual(p.lane_elements, [Array.from({ length: 32 }, (_, l) => 32 * l)]);
    assert.equal(p.wavefronts, 32);
    assert.equal(p.ideal_wavefronts, 1);
    assert.equal(p.conflicts, 31);
    assert.equal(p.max_ways, 32);
    assert.equal(p.ncu_wavefront_metric, 'sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum');
    assert.equal(s.verification.checked_elements, 32); // one fp32 element per lane
    assert.equal(summary(s, 'layoutscope/useful_bytes'), 128);
    assert.equal(b.input.lanes, column0);
  });

  test('the same column of S[(32,32):(33,1)]: row l starts at word 33 l, bank l -> 1 wavefront', async () => {
    const b = await run('smem_access', {
      layout: 'S[(32,32):(33,1)]',
      shape: [32, 32],
      dtype: 'f32',
      instr: 'LDS.32',
      lanes: column0,
    });
    const p = b.states[0].predicted.shared[0];
    assert.equal(p.wavefronts, 1);
    assert.equal(p.conflicts, 0);
    assert.equal(p.max_ways, 1);
  });

  test('every column of S[(32,32):(32,1)] by "columns": 32 instructions x 32 wavefronts', async () => {
    const b = await run('smem_access', {
      layout: 'S[(32,32):(32,1)]',
      shape: [32, 32],
      dtype: 'f32',
      instr: 'STS.32',
      lanes: 'columns',
    });
    const s = b.states[0];
    assert.equal(s.predicted.shared[0].instructions, 32);
    assert.equal(s.predicted.shared[0].wavefronts, 1024);
    assert.equal(s.predicted.shared[0].ideal_wavefronts, 32);
    assert.equal(s.predicted.shared[0].ncu_op, 'st');
    assert.equal(s.verification.checked_elements, 1024); // every element of the tile written once
  });

  test('ldmatrix.x4 over a 64x64 bf16 tile with 128 B rows: 16 instructions x 32 wavefronts', async () => {
    // Each phase: 8 rows of one 16 B column block, 128 B apart, all in banks 4j..4j+3: 8 wavefronts.
    const b = await run('smem_access', {
      layout: 'S[(64,64):(64,1)]',
      shape: [64, 64],
      dtype: 'bf16',
      instr: 'ldmatrix.x4.trans',
    });
    const s = b.states[0];
    const p = s.predicted.shared[0];
    assert.equal(p.instructions, 16);
    assert.equal(p.wavefronts, 512);
    assert.equal(p.ideal_wavefronts, 64);
    assert.equal(p.ncu_op, 'ldsm');
    // 16 instructions x 32 lanes x 4 registers x 2 halves = 4096 = every element of the tile once.
    assert.equal(s.verification.checked_elements, 4096);
    // The 128B XOR (Swizzle<3,3,3> on bf16 offsets): 1 wavefront a phase, 4 an instruction.
    const sw = await run('smem_access', {
      layout: 'Swizzle<3,3,3> o S[(64,64):(64,1)]',
      shape: [64, 64],
      dtype: 'bf16',
      instr: 'ldmatrix.x4',
    });
    assert.equal(sw.states[0].predicted.shared[0].wavefronts, 64);
  });

  test('cp.async: 16 B (cp.async.cg) is not counted, 4 B by columns takes a wavefront per source line', async () => {
    const cg = await run('smem_access', {
      layout: 'S[(64,64):(64,1)]',
      shape: [64, 64],
      dtype: 'bf16',
      instr: 'cp.async.16',
      lanes: 'rows',
    });
    const p = cg.states[0].predicted.shared[0];
    assert.equal(p.wavefronts, 0);
    assert.equal(p.ncu_op, 'ldgsts');
    assert.equal(cg.states[0].verification.checked_elements, 4096);
    // Columns, 2 bf16 a lane: lane l reads source row l (its own 128 B line): 32 a instruction, 64 of them.
    const ca = await run('smem_access', {
      layout: 'Swizzle<3,3,3> o S[(64,64):(64,1)]',
      shape: [64, 64],
      dtype: 'bf16',
      instr: 'cp.async.4',
      lanes: 'columns',
    });
    assert.equal(ca.states[0].predicted.shared[0].wavefronts, 2048);
    assert.equal(ca.states[0].predicted.shared[0].conflicts, 2048 - 64);
  });
});

describe('smem_access: a writer/reader pair on an advisor candidate', () => {
  const pair = { writer: 'rows;STS.32', reader: 'columns;LDS.32', tile: [32, 32], dtype: 'f32' };

  test('pad 4 B: rows 33 words apart, both sides 1 wavefront an instruction', async () => {
    const b = await run('smem_access', { ...pair, candidate: 'pad 4 B' });
    assert.deepEqual(
      b.states.map((s) => s.axis_values.access),
      ['write', 'read'],
    );
    assert.equal(b.input.candidate_layout, 'S[(32,32):(33,1)]');
    for (const s of b.states) {
      const p = s.predicted.shared[0];
      assert.equal(p.layout, 'S[(32,32):(33,1)]');
      assert.equal(p.wavefronts, 32);
      assert.equal(p.ideal_wavefronts, 32);
      assert.equal(s.verification.checked_elements, 1024);
    }
    assert.equal(b.states[0].predicted.shared[0].instr, 'STS.32');
    assert.equal(b.states[1].predicted.shared[0].instr, 'LDS.32');
  });

  test('the resolved request runs again as it is (the ncu child parses it), the advice beside it', async () => {
    const r = await postRun(agent, {
      benchmark: 'smem_access',
      profile: true,
      params: { ...fast, ...pair, candidate: 'pad 4 B' },
    });
    assert.equal(r.status, 202);
    const rec = await waitRun(agent, (await r.json()).id, 120000);
    assert.equal(rec.status, 'succeeded', rec.error);
    const b = rec.result.benchmarks[0];
    assert.equal(b.input.candidate_rank >= 1, true);
    assert.equal(typeof b.input.advisor_best, 'string');
    assert.equal(b.states[0].profile.available, false);
    const again = await postRun(agent, { benchmark: 'smem_access', params: rec.result.meta.request.params });
    assert.equal(again.status, 202, await again.clone().text());
    assert.equal((await waitRun(agent, (await again.json()).id, 120000)).status, 'succeeded');
  });

  test('row-major: the reader takes 32 wavefronts an instruction', async () => {
    const b = await run('smem_access', { ...pair, candidate: 'row-major' });
    assert.equal(b.states[0].predicted.shared[0].wavefronts, 32);
    assert.equal(b.states[1].predicted.shared[0].wavefronts, 1024);
  });
});

describe('global_access', () => {
  test('AoS: one fp32 field of 32 structs of 8 floats -> a 32 B sector per lane', async () => {
    const b = await run('global_access', {
      layout: 'S[(32,8):(8,1)]',
      shape: [32, 8],
      dtype: 'f32',
      instr: 'LDG.32',
      lanes: 'columns',
    });
    const p = b.states[0].predicted.global[0];
    assert.equal(p.instructions, 8); // one field (column) per instruction
    assert.equal(p.sectors_per_request, 32);
    assert.equal(p.sectors, 256);
    assert.equal(p.requests, 8);
    assert.equal(b.states[0].verification.checked_elements, 256);
  });

  test('SoA: the same fields 4 B apart -> 128 B = 4 sectors a request; STG.8 of bytes: 1 sector', async () => {
    const b = await run('global_access', {
      layout: 'S[(32,8):(1,32)]',
      shape: [32, 8],
      dtype: 'f32',
      instr: 'STG.32',
      lanes: 'columns',
    });
    assert.equal(b.states[0].predicted.global[0].sectors_per_request, 4);
    assert.equal(b.states[0].predicted.global[0].sectors, 32);
    const u8 = await run('global_access', {
      layout: 'S[(4,64):(64,1)]',
      shape: [4, 64],
      dtype: 'u8',
      instr: 'STG.8',
    });
    assert.equal(u8.states[0].predicted.global[0].sectors_per_request, 1); // 32 lanes x 1 B = 32 B
    assert.equal(u8.states[0].predicted.global[0].requests, 8);
  });
});

describe('refusals: 422 naming the field', () => {
  const access = { layout: 'S[(32,32):(32,1)]', shape: [32, 32], dtype: 'f32', instr: 'LDS.32' };
  const cases = [
    ['smem_access', 'layout missing', { ...access, layout: undefined }, /^params\.layout$/],
    ['smem_access', 'layout that does not parse', { ...access, layout: 'S[(32,32):(32,1)' }, /^params\.layout$/],
    ['smem_access', 'instruction not in the catalogue', { ...access, instr: 'LDS.24' }, /^params\.instr$/],
    ['smem_access', 'a global instruction', { ...access, instr: 'LDG.32' }, /^params\.instr$/],
    ['smem_access', 'a TMA copy', { ...access, instr: 'tma.128B' }, /^params\.instr$/],
    ['global_access', 'a shared instruction', { ...access }, /^params\.instr$/],
    // 256 x 128 fp32 by 4 B rows: 1024 instructions, over the 512 whose offsets fit in constant memory.
    [
      'global_access',
      'too many instructions',
      { ...access, shape: [256, 128], layout: 'S[(256,128):(128,1)]', instr: 'LDG.32' },
      /^params\.shape$/,
    ],
    ['smem_access', 'unknown lane order', { ...access, lanes: 'diagonal' }, /^params\.lanes$/],
    ['smem_access', 'lanes not a string', { ...access, lanes: [0, 1] }, /^params\.lanes$/],
    ['smem_access', 'a zero extent', { ...access, shape: [0, 32] }, /^params\.shape\[0\]$/],
    ['smem_access', 'shape not an array', { ...access, shape: '32,32' }, /^params\.shape$/],
    ['smem_access', 'unknown dtype', { ...access, dtype: 'f33' }, /^params\.dtype$/],
    ['smem_access', 'unknown parameter', { ...access, width: 4 }, /^params\.width$/],
    // Rows 33 words apart: row 1 starts at byte 132, not aligned to 16.
    [
      'smem_access',
      'a misaligned 16 B access',
      { ...access, layout: 'S[(32,32):(33,1)]', instr: 'LDS.128' },
      /^params\.layout$/,
    ],
    ['smem_access', 'ldmatrix on fp32', { ...access, instr: 'ldmatrix.x4' }, /^params\.dtype$/],
    ['smem_access', 'a tile over the 48 KiB the lab allocates', { ...access, shape: [128, 128] }, /^params\.shape$/],
    ['smem_access', 'source on a plain load', { ...access, source: 'S[(32,32):(32,1)]' }, /^params\.source$/],
  ];
  const pair = { writer: 'rows;STS.32', reader: 'columns;LDS.32', tile: [32, 32], dtype: 'f32', candidate: 'pad 4 B' };
  cases.push(
    [
      'smem_access',
      'a candidate the advisor does not return',
      { ...pair, candidate: 'Swizzle<9,9,9>' },
      /^params\.candidate$/,
    ],
    ['smem_access', 'candidate missing', { ...pair, candidate: undefined }, /^params\.candidate$/],
    ['smem_access', 'a writer that loads', { ...pair, writer: 'rows;LDS.32' }, /^params\.writer$/],
    ['smem_access', 'a reader that does not parse', { ...pair, reader: 'columns;LDS.7' }, /^params\.reader$/],
    ['smem_access', 'tile missing', { ...pair, tile: undefined }, /^params\.tile$/],
    ['global_access', 'a pair', { ...pair }, /^params\.writer$/],
  );
  for (const [benchmark, what, params, field] of cases) {
    test(`${benchmark}, ${what}`, async () => {
      const r = await postRun(agent, { benchmark, params: { ...fast, ...params } });
      const text = await r.text();
      assert.equal(r.status, 422, text);
      const err = JSON.parse(text).error;
      assert.match(err.field, field, text);
      assert.ok(err.message.startsWith(err.field), text);
    });
  }
});
