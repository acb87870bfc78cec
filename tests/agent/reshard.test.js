// The reshard and collective benchmarks on the CPU backend, and GET /v1/devices' GPU topology. A reshard here
// runs on the engine's host executor (simulated devices, no timing of collectives), so these tests check the
// planning and the verification; the NCCL path runs on GPUs (tests/gpu/reshard_gpu.sh).
//
// Expected plans are worked out by hand from PyTorch DTensor's redistribute rules (Shard->Replicate =
// all_gather, Partial->Replicate = all_reduce, Partial->Shard = reduce_scatter, Shard(i)->Shard(j) =
// all_to_all, Replicate->Shard = a local slice), and the bytes from nccl-tests' conventions (PERFORMANCE.md):
// S = the all_gather output / the reduce_scatter input / one rank's buffer for all_reduce and all_to_all;
// each device sends S x (n-1)/n (all_reduce: S x 2(n-1)/n); predicted time = sent bytes / busbw.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

import { postRun, repoRoot, sharedAgent, waitRun } from './lib/agent.js';

const schema = JSON.parse(fs.readFileSync(path.join(repoRoot, 'schemas', 'results.schema.json'), 'utf8'));
const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false });
addFormats(ajv);
const validateResults = ajv.compile(schema);

let agent;
before(async () => {
  agent = await sharedAgent();
});
after(async () => {
  await agent.stop();
});

async function runReshard(params) {
  const r = await postRun(agent, { benchmark: 'reshard', params: { repetitions: 1, seed: 1, ...params } });
  assert.equal(r.status, 202, await r.clone().text());
  const rec = await waitRun(agent, (await r.json()).id, 60000);
  assert.equal(rec.status, 'succeeded', rec.error);
  assert.ok(validateResults(rec.result), JSON.stringify(validateResults.errors, null, 1));
  return rec.result.benchmarks[0];
}

// The steps (without the "total" state) as "op@axis".
function ops(b) {
  return b.states.filter((s) => s.op !== 'total').map((s) => (s.axis ? `${s.op}@${s.axis}` : s.op));
}

// 8 x 64 tensor; dim 0 split (2 | 4) over gpuid_x, or dim 1 split (2 | 32).
const shape = [8, 64];
const shard0 = 'S[(2,4,64):(1@gpuid_x,64,1)]';
const shard1 = 'S[(8,2,32):(32,1@gpuid_x,1)]';
const replicated = 'S[(8,64):(64,1)] + R[2:1@gpuid_x]';
const partial = 'S[(8,64):(64,1)] + P[2:1@gpuid_x]';
const busbw = 100; // GB/s given, so the prediction is sent bytes / 100e9 s

describe('reshard on the cpu backend: DTensor transitions over gpuid_x=2 (bf16, 2 B)', () => {
  const elementsBytes = 8 * 64 * 2; // the whole tensor: 1024 B
  const cases = [
    // [what, from, to, steps, S of the collective, bytes each device sends]
    [
      'Shard(0) -> Replicate = all_gather',
      shard0,
      replicated,
      ['all_gather@gpuid_x'],
      elementsBytes,
      elementsBytes / 2,
    ],
    ['Partial -> Replicate = all_reduce', partial, replicated, ['all_reduce@gpuid_x'], elementsBytes, elementsBytes],
    [
      'Partial -> Shard(0) = reduce_scatter',
      partial,
      shard0,
      ['reduce_scatter@gpuid_x'],
      elementsBytes,
      elementsBytes / 2,
    ],
    // all_to_all scatters the outermost local piece: the local (4, 2, 32) tensor must first put dim 1's
    // 2 outermost, a local permute; one rank's buffer is half the tensor (512 B), of which it sends half.
    [
      'Shard(0) -> Shard(1) = permute + all_to_all',
      shard0,
      shard1,
      ['permute', 'all_to_all@gpuid_x'],
      elementsBytes / 2,
      elementsBytes / 4,
    ],
    ['Replicate -> Shard(1) = a local slice', replicated, shard1, ['slice@gpuid_x'], 0, 0],
  ];
  for (const [what, from, to, steps, S, sent] of cases) {
    test(what, async () => {
      const b = await runReshard({ from, to, shape, mesh: 'gpuid_x=2', dtype: 'bf16', busbw_gbps: busbw });
      assert.equal(b.name, 'reshard');
      assert.equal(b.simulated, true);
      assert.match(b.note, /simulated, no timing of collectives/);
      assert.deepEqual(ops(b), steps);
      const total = b.states.at(-1);
      assert.equal(total.op, 'total');
      assert.equal(total.verification.passed, true, JSON.stringify(total.verification));
      assert.ok(total.verification.checked_elements >= 8 * 64, 'every element checked at least once');
      assert.equal(total.measured_s, null);
      assert.equal(b.bandwidths_gbps.collective_busbw, busbw);
      for (const s of b.states.slice(0, -1)) {
        assert.equal(s.verification.passed, true);
        assert.equal(s.measured_s, null, 'no timing on simulated devices');
        if (s.op === 'permute' || s.op === 'slice') {
          assert.equal(s.send_bytes, 0);
          assert.equal(s.recv_bytes, 0);
          continue;
        }
        assert.equal(s.group, 2);
        assert.equal(s.size_bytes, S);
        assert.equal(s.send_bytes, sent);
        assert.ok(Math.abs(s.predicted_s - sent / (busbw * 1e9)) < 1e-15, `${s.predicted_s} vs ${sent / 1e11}`);
      }
      if (S === 0) assert.equal(total.send_bytes, 0);
    });
  }
});

describe('reshard on the cpu backend: offsets and partial sums over gpuid_x=2 (bf16)', () => {
  // The whole 8 x 64 tensor (1024 B) on one coordinate or on both. nccl-tests counts S = the buffer for
  // broadcast and send/recv, with bus factor 1: the busiest device sends all of it.
  const dense = 'S[(8,64):(64,1)]';
  const cases = [
    ['Offset(1) -> Offset(0) = send/recv', `${dense} + O[1@gpuid_x]`, dense, ['send_recv@gpuid_x'], 1024],
    ['Offset(1) -> Replicate = broadcast', `${dense} + O[1@gpuid_x]`, replicated, ['broadcast@gpuid_x'], 1024],
    ['Replicate -> Offset(1) = drop (local)', replicated, `${dense} + O[1@gpuid_x]`, ['drop@gpuid_x'], 0],
    ['Replicate -> Partial = partition (local)', replicated, partial, ['partition@gpuid_x'], 0],
  ];
  for (const [what, from, to, steps, sent] of cases) {
    test(what, async () => {
      const b = await runReshard({ from, to, shape, mesh: 'gpuid_x=2', dtype: 'bf16' });
      assert.deepEqual(ops(b), steps);
      assert.equal(b.states[0].send_bytes, sent);
      const total = b.states.at(-1);
      assert.equal(total.verification.passed, true, JSON.stringify(total.verification));
      // checked twice: by the engine's host executor and by the cuda path's own steps on host buffers
      assert.match(total.verification.method, /cuda path's steps on host buffers/);
    });
  }
});

describe('reshard on the cpu backend: meshes up to 2 x 4', () => {
  test('fully sharded -> fully replicated over gpuid_x=2, gpuid_y=4: two all_gathers, inner axis first', async () => {
    // dim 0 split (2 | 4) over x, dim 1 split (4 | 16) over y; f32. Gathering y first: 4 x 16 x 4 B = 256 B
    // per device, S = 4 x 256 = 1024, sent 3/4 x 1024 = 768; then x: S = 2 x 1024, sent 1024. The gathers
    // put the y piece outside dim 0's inner 4, so a last permute restores the row-major local order.
    const b = await runReshard({
      from: 'S[(2,4,4,16):(1@gpuid_x,16,1@gpuid_y,1)]',
      to: 'S[(8,64):(64,1)] + R[(2,4):(1@gpuid_x,1@gpuid_y)]',
      shape,
      mesh: 'gpuid_x=2,gpuid_y=4',
      dtype: 'f32',
    });
    assert.deepEqual(ops(b), ['all_gather@gpuid_y', 'all_gather@gpuid_x', 'permute']);
    const [gy, gx] = b.states;
    assert.deepEqual([gy.group, gy.groups, gy.size_bytes, gy.send_bytes], [4, 2, 1024, 768]);
    assert.deepEqual([gx.group, gx.groups, gx.size_bytes, gx.send_bytes], [2, 4, 2048, 1024]);
    assert.equal(b.states.at(-1).send_bytes, 768 + 1024);
    assert.equal(b.states.at(-1).verification.passed, true);
    // The engine's default busbw, stated in the result (360 GB/s).
    assert.equal(b.bandwidths_gbps.collective_busbw, 360);
    assert.ok(Math.abs(gy.predicted_s - 768 / 360e9) < 1e-15);
    assert.deepEqual(b.mesh, [
      { axis: 'gpuid_x', size: 2 },
      { axis: 'gpuid_y', size: 4 },
    ]);
  });

  test('Partial over x, Shard(0) over y -> Replicate over x: one all_reduce per y coordinate', async () => {
    // Each device holds 2 x 64 f32 = 512 B; all_reduce S = 512, sent 2 x (2-1)/2 x 512 = 512; 4 groups of 2.
    const b = await runReshard({
      from: 'S[(4,2,64):(1@gpuid_y,64,1)] + P[2:1@gpuid_x]',
      to: 'S[(4,2,64):(1@gpuid_y,64,1)] + R[2:1@gpuid_x]',
      shape,
      mesh: 'gpuid_x=2,gpuid_y=4',
      dtype: 'f32',
    });
    assert.deepEqual(ops(b), ['all_reduce@gpuid_x']);
    const s = b.states[0];
    assert.deepEqual([s.group, s.groups, s.size_bytes, s.send_bytes, s.bus_factor], [2, 4, 512, 512, 1]);
    assert.equal(s.verification.passed, true);
  });

  test('Shard(0) over y -> Shard(1) over y on a 2 x 4 mesh, u8: permute + all_to_all over gpuid_y', async () => {
    // Replicated over x (R[2:1@gpuid_x]) on both sides; y moves from dim 0 (4 | 2) to dim 1 (4 | 16).
    const b = await runReshard({
      from: 'S[(4,2,64):(1@gpuid_y,64,1)] + R[2:1@gpuid_x]',
      to: 'S[(8,4,16):(16,1@gpuid_y,1)] + R[2:1@gpuid_x]',
      shape,
      mesh: 'gpuid_x=2,gpuid_y=4',
      dtype: 'u8',
    });
    assert.deepEqual(
      ops(b).filter((o) => o !== 'permute'),
      ['all_to_all@gpuid_y'],
    );
    const a2a = b.states.find((s) => s.op === 'all_to_all');
    // one rank's buffer: 2 x 64 x 1 B = 128 B; it sends 3/4 of it
    assert.deepEqual([a2a.group, a2a.groups, a2a.size_bytes, a2a.send_bytes], [4, 2, 128, 96]);
    assert.equal(b.states.at(-1).verification.passed, true);
  });
});

describe('reshard on the cpu backend: local steps run as conversion plans', () => {
  test('Shard(0) -> Shard(1): the permute runs the generated plan, predicted as a copy of its bytes', async () => {
    // Local (4, 2, 32) bf16 -> the 2 outermost: every row of 32 elements (64 B) stays whole on both sides, so
    // the planner takes it (a shared 64 B run) and its accesses are whole sectors: it moves 256 elements
    // x 2 B once in, once out = 1024 B, predicted 1024 B / the copy speed.
    const b = await runReshard({ from: shard0, to: shard1, shape, mesh: 'gpuid_x=2', dtype: 'bf16' });
    const p = b.states.find((s) => s.op === 'permute');
    assert.deepEqual(p.local_kernel.kernel, 'generated', JSON.stringify(p.local_kernel));
    assert.match(p.local_kernel.source_hash, /^[0-9a-f]{16}$/);
    assert.equal(p.local_kernel.runs_as, 'host');
    assert.equal(p.local_kernel.reason, undefined);
    assert.equal(p.local_bytes, 1024);
    const copy = b.bandwidths_gbps.local_copy * 1e9;
    assert.ok(Math.abs(p.predicted_s - 1024 / copy) < 1e-18, `${p.predicted_s} vs ${1024 / copy}`);
    assert.equal(p.verification.passed, true);
    assert.equal(b.states.at(-1).verification.passed, true);
    // collectives carry no local kernel
    assert.equal(b.states.find((s) => s.op === 'all_to_all').local_kernel, undefined);
  });

  test('Replicate -> Shard(1): the slice runs the generated plan on both coordinates', async () => {
    // Coordinate 1 keeps columns 32..63: its part starts 32 elements (64 B) into each row, 16 B aligned.
    const b = await runReshard({ from: replicated, to: shard1, shape, mesh: 'gpuid_x=2', dtype: 'bf16' });
    const s = b.states[0];
    assert.equal(s.op, 'slice');
    assert.equal(s.local_kernel.kernel, 'generated', JSON.stringify(s.local_kernel));
    assert.equal(b.states.at(-1).verification.passed, true);
  });

  test('a slice whose part starts 8 B in: the strided copy, and why', async () => {
    // 8 x 8 bf16, dim 1 split (2 | 4): coordinate 1's part starts at element 4 = byte 8, which the
    // generated kernel's 16 B loads cannot start at.
    const b = await runReshard({
      from: 'S[(8,8):(8,1)] + R[2:1@gpuid_x]',
      to: 'S[(8,2,4):(4,1@gpuid_x,1)]',
      shape: [8, 8],
      mesh: 'gpuid_x=2',
      dtype: 'bf16',
    });
    const s = b.states[0];
    assert.equal(s.op, 'slice');
    assert.equal(s.local_kernel.kernel, 'strided_copy', JSON.stringify(s.local_kernel));
    assert.match(s.local_kernel.reason, /^device 1: .*byte 8, not a multiple of 16/);
    assert.equal(s.local_kernel.source_hash, undefined);
    assert.equal(b.states.at(-1).verification.passed, true);
  });
});

describe('reshard and collective refusals (422 naming the field)', () => {
  const ok = { from: shard0, to: replicated, shape, mesh: 'gpuid_x=2' };
  const cases = [
    ['no from', { ...ok, from: undefined }, /^params\.from$/, /required/],
    ['a bad from layout (column named)', { ...ok, from: 'S[(2,4,64):(1@gpuid_x,64,' }, /^params\.from$/, /column \d+/],
    ['no mesh', { ...ok, mesh: undefined }, /^params\.mesh$/, /required/],
    ['a zero-size mesh axis', { ...ok, mesh: 'gpuid_x=0' }, /^params\.mesh$/, /./],
    ['a mesh that is not a string', { ...ok, mesh: { gpuid_x: 2 } }, /^params\.mesh$/, /string/],
    ['a mesh of 128 devices', { ...ok, mesh: 'gpuid_x=2,a=8,b=8' }, /^params\.mesh$/, /at most 64/],
    ['a layout axis not in the mesh', { ...ok, mesh: 'gpuid_y=2' }, /^params\.(from|mesh)$/, /gpuid_x/],
    ['a shape of another size', { ...ok, shape: [8, 32] }, /^params\.(from|to|shape)$/, /./],
    ['f8 (no exact NCCL sum)', { ...ok, dtype: 'f8' }, /^params\.dtype$/, /bf16/],
    ['a negative busbw', { ...ok, busbw_gbps: -1 }, /^params\.busbw_gbps$/, /./],
    ['an unknown parameter', { ...ok, sizes: [1] }, /^params\.sizes$/, /unknown/],
    [
      'beyond the cpu verification limit',
      {
        from: 'S[(4096,4096):(4096,1)] + R[2:1@gpuid_x]',
        to: 'S[(2,2048,4096):(1@gpuid_x,4096,1)]',
        shape: [4096, 4096],
        mesh: 'gpuid_x=2',
      },
      /^params\.shape$/,
      /verification/,
    ],
  ];
  for (const [what, params, field, message] of cases) {
    test(`reshard, ${what}: 422`, async () => {
      const r = await postRun(agent, { benchmark: 'reshard', params: JSON.parse(JSON.stringify(params)) });
      const text = await r.text();
      assert.equal(r.status, 422, text);
      const err = JSON.parse(text).error;
      assert.match(err.field, field, text);
      assert.ok(err.message.startsWith(err.field), text);
      assert.match(err.message, message, text);
    });
  }

  test('reshard with profile: 422 on profile', async () => {
    const r = await postRun(agent, { benchmark: 'reshard', profile: true, params: ok });
    assert.equal(r.status, 422);
    assert.equal((await r.json()).error.field, 'profile');
  });

  test('collective on the cpu backend: needs 2 GPUs, this machine has 0', async () => {
    const r = await postRun(agent, { benchmark: 'collective', params: { op: 'all_gather' } });
    const text = await r.text();
    assert.equal(r.status, 422, text);
    const err = JSON.parse(text).error;
    assert.equal(err.field, 'benchmark');
    assert.match(err.message, /needs 2 GPUs, this machine has 0/);
  });

  test('collective asking for 4 GPUs: 422 on params.gpus', async () => {
    const r = await postRun(agent, { benchmark: 'collective', params: { op: 'all_reduce', gpus: 4 } });
    const err = (await r.json()).error;
    assert.equal(r.status, 422);
    assert.equal(err.field, 'params.gpus');
    assert.match(err.message, /needs 4 GPUs, this machine has 0/);
  });

  for (const [what, params, field] of [
    ['no op', {}, /^params\.op$/],
    ['an unknown op', { op: 'all_scatter' }, /^params\.op$/],
    ['one GPU', { op: 'all_gather', gpus: 1 }, /^params\.gpus$/],
  ]) {
    test(`collective, ${what}: 422`, async () => {
      const r = await postRun(agent, { benchmark: 'collective', params });
      const text = await r.text();
      assert.equal(r.status, 422, text);
      assert.match(JSON.parse(text).error.field, field, text);
    });
  }
});

describe('GET /v1/devices: GPUs, links and NCCL', () => {
  test('lists every GPU NVML sees with the links between each pair, or says why there are none', async () => {
    const r = await agent.fetch('/v1/devices');
    assert.equal(r.status, 200);
    const body = await r.json();
    assert.ok(Array.isArray(body.gpus));
    assert.ok(Array.isArray(body.links));
    const n = body.gpus.length;
    assert.equal(body.links.length, (n * Math.max(n - 1, 0)) / 2, 'one link entry per pair');
    if (n === 0) {
      assert.equal(typeof body.gpus_reason, 'string');
      assert.ok(body.gpus_reason.length > 0);
    }
    for (const g of body.gpus) {
      assert.equal(typeof g.name, 'string');
      assert.ok(g.memory_bytes > 0);
      assert.match(g.pci_bus_id, /^[0-9a-fA-F]+:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-9]$/);
    }
    for (const k of body.links) {
      assert.ok(k.a < k.b);
      assert.ok(['nvlink', 'nvswitch', 'pcie'].includes(k.kind));
    }
    // NCCL: a version when libnccl.so.2 loads, otherwise the reason.
    if (body.nccl.version === null) assert.match(body.nccl.error, /NCCL/);
    else assert.match(body.nccl.version, /^\d+\.\d+\.\d+$/);
  });
});
