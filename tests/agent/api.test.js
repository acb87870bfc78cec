// Every endpoint over real HTTP, full runs end to end on the CPU backend, the results checked against
// values worked out independently (B-09's sector counts, the definitions of useful bytes and ratios,
// the transpose's own definition), JSON Schema 2020-12 and OpenAPI 3.1 validation, CSV, restart.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { Validator } from '@seriousme/openapi-schema-validator';

import { spawnSync } from 'node:child_process';

import {
  agentBin,
  postRun,
  readEvents,
  repoRoot,
  sharedAgent,
  startAgent,
  summary,
  tempDir,
  waitRun,
} from './lib/agent.js';

const schema = JSON.parse(fs.readFileSync(path.join(repoRoot, 'schemas', 'results.schema.json'), 'utf8'));
const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false });
addFormats(ajv);
const validateResults = ajv.compile(schema);

function assertValid(result) {
  const ok = validateResults(result);
  assert.ok(ok, JSON.stringify(validateResults.errors, null, 1));
}

let agent;
before(async () => {
  agent = await sharedAgent();
});
after(async () => {
  await agent.stop();
});

async function run(body) {
  const r = await postRun(agent, body);
  assert.equal(r.status, 202, await r.clone().text());
  const j = await r.json();
  assert.equal(r.headers.get('location'), `/v1/runs/${j.id}`);
  return j.id;
}

describe('service endpoints', () => {
  test('GET /healthz, /readyz, /version', async () => {
    assert.deepEqual(await (await fetch(`${agent.base}/healthz`)).json(), { status: 'ok' });
    const ready = await fetch(`${agent.base}/readyz`);
    assert.equal(ready.status, 200);
    assert.equal((await ready.json()).ready, true);
    const v = await (await fetch(`${agent.base}/version`)).json();
    assert.match(v.version, /^\d+\.\d+\.\d+$/);
    assert.match(v.results_schema_version, /^1\.\d+\.\d+$/);
    assert.equal(v.name, 'layoutscope-agent');
  });

  test('GET /readyz is 503 when the asked backend cannot run', async (t) => {
    const a = await startAgent([], { backend: 'cuda' });
    t.after(() => a.stop());
    const devices = await (await a.fetch('/v1/devices')).json();
    if (devices.devices.length > 0) return t.skip('this machine has a working CUDA device');
    const r = await fetch(`${a.base}/readyz`);
    assert.equal(r.status, 503);
    const j = await r.json();
    assert.equal(j.ready, false);
    assert.ok(j.reason.length > 0);
    const post = await postRun(a, { benchmark: 'aos_soa' });
    assert.equal(post.status, 503);
  });

  test('GET /openapi.json is a valid OpenAPI 3.1 document that lists every route', async () => {
    const doc = await (await fetch(`${agent.base}/openapi.json`)).json();
    // The served document stands alone: every reference points into it, and the results schema it carries
    // is schemas/results.schema.json (without its $id, its references re-rooted where it sits).
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"([^"]*)"/g)].map((m) => m[1]);
    assert.ok(refs.length > 0);
    for (const ref of refs) {
      assert.ok(ref.startsWith('#/'), `${ref}: a reference outside the document`);
      let node = doc;
      for (const part of ref.slice(2).split('/')) node = node?.[part];
      assert.ok(node !== undefined, `${ref} resolves in the document`);
    }
    const resultsSchema = JSON.parse(fs.readFileSync(path.join(repoRoot, 'schemas', 'results.schema.json'), 'utf8'));
    const { $id, $schema, ...rest } = resultsSchema;
    assert.ok($id && $schema);
    assert.deepEqual(
      doc.components.schemas.Results,
      JSON.parse(JSON.stringify(rest).replaceAll('"#/$defs/', '"#/components/schemas/Results/$defs/')),
    );
    const v = new Validator();
    const res = await v.validate(doc);
    assert.ok(res.valid, JSON.stringify(res.errors));
    assert.equal(doc.openapi, '3.1.0');
    const routes = {
      '/healthz': ['get'],
      '/readyz': ['get'],
      '/version': ['get'],
      '/openapi.json': ['get'],
      '/v1/devices': ['get'],
      '/v1/benchmarks': ['get'],
      '/v1/runs': ['get', 'post'],
      '/v1/runs/{id}': ['get', 'delete'],
      '/v1/runs/{id}/events': ['get'],
    };
    assert.deepEqual(Object.keys(doc.paths).sort(), Object.keys(routes).sort());
    for (const [p, methods] of Object.entries(routes)) {
      for (const m of methods) assert.ok(doc.paths[p][m], `${m} ${p} documented`);
    }
  });

  test("GET /v1/devices describes this machine's CPU", async () => {
    const j = await (await agent.fetch('/v1/devices')).json();
    assert.equal(j.backend, 'cpu');
    assert.equal(j.devices.length, 1);
    const d = j.devices[0];
    assert.equal(d.kind, 'cpu');
    assert.equal(d.multiprocessors, os.cpus().length);
    assert.ok(Math.abs(d.global_memory_bytes - os.totalmem()) / os.totalmem() < 0.01);
    assert.equal(d.sm_version, null);
  });

  test('GET /v1/benchmarks lists both benchmarks with defaults and bounds', async () => {
    const j = await (await agent.fetch('/v1/benchmarks')).json();
    const byName = Object.fromEntries(j.benchmarks.map((b) => [b.name, b]));
    assert.deepEqual(Object.keys(byName).sort(), [
      'aos_soa',
      'collective',
      'convert',
      'global_access',
      'reshard',
      'smem_access',
      'transpose',
    ]);
    assert.deepEqual(byName.aos_soa.parameters.touch_fields.default, [1, 2, 4, 8]);
    assert.deepEqual(byName.aos_soa.parameters.touch_fields.enum, [1, 2, 4, 8]);
    assert.equal(byName.aos_soa.parameters.n.minimum, 32);
    assert.deepEqual(byName.transpose.parameters.variants.default, [
      'copy',
      'naive',
      'tiled',
      'pad',
      'tile64_pad',
      'tile64_swizzle',
    ]);
    assert.deepEqual(byName.aos_soa.parameters.layouts.default, ['aos', 'soa', 'aos_vec', 'soa_vec']);
    assert.equal(byName.aos_soa.parameters.min_samples.default, 5); // CPU backend (CUDA: 10)
    assert.equal(byName.aos_soa.parameters.noise.default, 0.005);
    assert.equal(byName.transpose.parameters.dim.maximum, 32768);
  });

  test('GET / serves a page, /favicon.ico an icon', async () => {
    const r = await fetch(`${agent.base}/`);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type'), /text\/html/);
    // its own CSP, not replaced by the pages' default: it may not be framed at all
    assert.match(r.headers.get('content-security-policy'), /^default-src 'none';.*frame-ancestors 'none'$/);
    assert.match(await r.text(), /\/v1\/runs/);
    assert.equal((await fetch(`${agent.base}/favicon.ico`)).status, 200);
  });
});

describe('aos_soa sweep end to end', () => {
  const n = 3000; // not a multiple of 32: the last warp is partial
  let id;
  let record;

  test('POST /v1/runs -> 202, the event stream reports progress and ends with the final status', async () => {
    id = await run({ benchmark: 'aos_soa', params: { n, repetitions: 3, warmup: 1, seed: 12345 } });
    const { res, events } = await readEvents(agent, id);
    assert.match(res.headers.get('content-type'), /text\/event-stream/);
    assert.equal(events.at(-1).event, 'end');
    assert.equal(events.at(-1).data.status, 'succeeded');
    const progress = events.map((e) => e.data.progress);
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i] >= progress[i - 1], 'progress never goes back');
    record = await waitRun(agent, id);
    assert.equal(record.status, 'succeeded');
    assert.equal(record.progress, 1);
  });

  test('the result validates against schemas/results.schema.json', () => {
    assertValid(record.result);
  });

  test('request echo with every default filled in, the seed as given', () => {
    const p = record.result.meta.request.params;
    assert.deepEqual(p.touch_fields, [1, 2, 4, 8]);
    assert.equal(p.n, n);
    assert.equal(p.seed, 12345);
    assert.equal(p.cache, 'cold');
    assert.equal(record.result.meta.backend, 'cpu');
    assert.match(record.result.schema_version, /^1\.\d+\.\d+$/);
  });

  test('16 states (4 touch counts x 4 layouts) and 3 ceilings, each verified exactly', () => {
    const states = record.result.benchmarks[0].states;
    assert.equal(states.length, 16);
    const ceilings = record.result.benchmarks[0].ceilings;
    assert.deepEqual(
      ceilings.map((c) => c.name),
      ['memcpy', 'copy_vec4', 'copy_scalar'],
    );
    for (const c of ceilings) {
      assert.equal(c.verification.passed, true, c.name);
      assert.equal(c.bytes_copied, n * 32); // the whole 32 B x n working set
      assert.equal(summary(c, 'layoutscope/useful_bytes'), 2 * n * 32);
    }
    for (const s of states) {
      assert.equal(s.verification.passed, true, s.name);
      assert.equal(s.verification.mismatches, 0);
      assert.equal(s.verification.checked_elements, n * 8);
    }
  });

  test('useful bytes, bandwidth and SoA/AoS speedup follow their definitions', () => {
    const states = record.result.benchmarks[0].states;
    const median = (s) => summary(s, 'time/cpu/median');
    for (const s of states) {
      const t = s.axis_values.touch_fields;
      assert.equal(summary(s, 'layoutscope/useful_bytes'), n * t * 4 * 2); // touched floats read + written
      const bw = summary(s, 'nv/cold/bw/global/bytes_per_second');
      assert.ok(Math.abs(bw - (n * t * 8) / median(s)) / bw < 1e-9);
      assert.ok(summary(s, '/q1') <= median(s) && median(s) <= summary(s, '/q3'));
      assert.ok(summary(s, '/min') <= summary(s, '/q1'));
      assert.equal(summary(s, 'nv/cold/sample_size'), 3);
      assert.equal(s.time_samples_s.length, 3);
      const sorted = [...s.time_samples_s].sort((a, b) => a - b);
      assert.equal(median(s), sorted[1]); // median of three samples
    }
    for (const t of [1, 2, 4, 8]) {
      for (const [a, b] of [
        ['aos', 'soa'],
        ['aos_vec', 'soa_vec'],
      ]) {
        const aos = states.find((s) => s.axis_values.layout === a && s.axis_values.touch_fields === t);
        const soa = states.find((s) => s.axis_values.layout === b && s.axis_values.touch_fields === t);
        const speedup = summary(soa, 'layoutscope/speedup_soa_over_aos');
        assert.ok(Math.abs(speedup - median(aos) / median(soa)) < 1e-12 * speedup);
        assert.equal(summary(soa, 'layoutscope/dram_sector_bound_speedup'), 8 / t); // 64 B vs 8t B per element
      }
    }
    // fraction of the float4 copy: useful bandwidth / the copy_vec4 ceiling's (2 x 32 n bytes per its median)
    const cv = record.result.benchmarks[0].ceilings.find((c) => c.name === 'copy_vec4');
    for (const s of states) {
      const want = (n * s.axis_values.touch_fields * 8) / median(s) / ((2 * n * 32) / summary(cv, 'time/cpu/median'));
      assert.ok(Math.abs(summary(s, 'layoutscope/fraction_of_copy') - want) <= 1e-12 * want, s.name);
    }
  });

  test("engine predictions match B-09's NCU table: AoS 32 sectors/request, SoA 4; 16 B versions 32 and 16", () => {
    // aos_vec: 32 lanes x 16 B at a 32 B stride -> 32 sectors, half of each used; soa_vec: 512 contiguous B -> 16
    const want = { aos: [32, 128], soa: [4, 128], aos_vec: [32, 512], soa_vec: [16, 512] };
    for (const s of record.result.benchmarks[0].states) {
      const g = s.predicted.global[0];
      const [sectors, bytes] = want[s.axis_values.layout]; // document §5.2: AoS 32 vs SoA 4
      assert.equal(g.sectors_per_request, sectors, s.name);
      assert.equal(g.bytes_requested, bytes);
      assert.equal(g.sector_efficiency, bytes / (sectors * 32));
    }
  });

  test('?format=csv: one row per state, units in the column names, same numbers', async () => {
    const r = await agent.fetch(`/v1/runs/${id}?format=csv`);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type'), /text\/csv/);
    const lines = (await r.text()).trim().split('\n');
    const header = lines[0].split(',');
    for (const col of [
      'time_median_s',
      'useful_bytes_B',
      'useful_bandwidth_B_per_s',
      'speedup_soa_over_aos',
      'predicted_load_sectors_per_request',
      'verified',
    ])
      assert.ok(header.includes(col), col);
    assert.equal(lines.length, 1 + 16);
    const rows = lines.slice(1).map((l) => Object.fromEntries(l.split(',').map((v, i) => [header[i], v])));
    const states = record.result.benchmarks[0].states;
    rows.forEach((row, i) => {
      assert.equal(row.layout, states[i].axis_values.layout);
      assert.equal(Number(row.touch_fields), states[i].axis_values.touch_fields);
      assert.equal(Number(row.time_median_s), summary(states[i], 'time/cpu/median'));
      assert.equal(row.verified, 'true');
      assert.equal(
        Number(row.predicted_load_sectors_per_request),
        { aos: 32, soa: 4, aos_vec: 32, soa_vec: 16 }[row.layout],
      );
    });
  });

  test('GET /v1/runs lists it; unknown run -> 404; bad format -> 422', async () => {
    const list = await (await agent.fetch('/v1/runs')).json();
    assert.ok(list.runs.some((r) => r.id === id && r.status === 'succeeded'));
    assert.equal((await agent.fetch('/v1/runs/20000101T000000Z-00000000')).status, 404);
    const bad = await agent.fetch(`/v1/runs/${id}?format=xml`);
    assert.equal(bad.status, 422);
    assert.equal((await bad.json()).error.field, 'format');
  });
});

describe('transpose end to end', () => {
  const dims = [33, 64, 100]; // edges: not multiples of the 32x32 tile
  let record;

  test('all variants at three sizes, every output element verified', async () => {
    const id = await run({ benchmark: 'transpose', params: { dim: dims, repetitions: 3, warmup: 0, cache: 'hot' } });
    record = await waitRun(agent, id);
    assert.equal(record.status, 'succeeded', record.error);
    assertValid(record.result);
    const states = record.result.benchmarks[0].states;
    assert.equal(states.length, dims.length * 6);
    assert.equal(record.result.benchmarks[0].ceilings.length, dims.length * 3);
    for (const c of record.result.benchmarks[0].ceilings) assert.equal(c.verification.passed, true, c.name);
    for (const s of states) {
      assert.equal(s.verification.passed, true, s.name);
      assert.equal(s.verification.checked_elements, s.axis_values.dim ** 2);
      assert.equal(summary(s, 'layoutscope/useful_bytes'), 2 * s.axis_values.dim ** 2 * 4);
      assert.ok(
        s.summaries.every((x) => !x.tag.startsWith('nv/cold/')),
        'hot mode is labelled hot',
      );
    }
  });

  test('fraction of copy = copy median / variant median at the same dim', () => {
    const states = record.result.benchmarks[0].states;
    for (const dim of dims) {
      const copy = states.find((s) => s.axis_values.dim === dim && s.axis_values.variant === 'copy');
      for (const s of states.filter((x) => x.axis_values.dim === dim)) {
        const f = summary(s, 'layoutscope/fraction_of_copy');
        const want = summary(copy, 'time/cpu/median') / summary(s, 'time/cpu/median');
        assert.ok(Math.abs(f - want) <= 1e-12 * want, s.name);
      }
      assert.equal(summary(copy, 'layoutscope/fraction_of_copy'), 1);
    }
  });

  test('engine predictions: naive store 32 sectors, tile column read 32-way, padded tile 1 wavefront', () => {
    const states = record.result.benchmarks[0].states.filter((s) => s.axis_values.dim === 64);
    const by = Object.fromEntries(states.map((s) => [s.axis_values.variant, s.predicted]));
    // B-09 §5.2: naive ld 4 / st 32; tiled 4 / 4
    assert.deepEqual(
      by.naive.global.map((g) => g.sectors_per_request),
      [4, 32],
    );
    assert.deepEqual(
      by.tiled.global.map((g) => g.sectors_per_request),
      [4, 4],
    );
    assert.deepEqual(
      by.pad.global.map((g) => g.sectors_per_request),
      [4, 4],
    );
    // 32 lanes x 16 B = 512 B = 16 sectors, fully used
    assert.deepEqual(
      by.copy.global.map((g) => g.sectors_per_request),
      [16, 16],
    );
    // tile[32][32]: column read puts all 32 lanes in one bank; tile[32][33]: 32 banks (Harris; B-02)
    assert.equal(by.tiled.shared[1].max_ways, 32);
    assert.equal(by.tiled.shared[1].wavefronts, 32);
    assert.equal(by.pad.shared[1].max_ways, 1);
    assert.equal(by.pad.shared[1].wavefronts, 1);
    assert.equal(by.tiled.shared[0].wavefronts, 1); // the row write is conflict-free in both
    // Each access carries what rebuilds it as a warp access: lane i reads tile[i][0], logical index 32 i, with
    // one LDS.32 (ncu counts it as op ld); 31 of its 32 wavefronts are conflicts.
    const col = by.tiled.shared[1];
    assert.deepEqual([col.layout, col.dtype, col.instr, col.shape], ['S[(32,32):(32,1)]', 'f32', 'LDS.32', [32, 32]]);
    assert.deepEqual(col.lane_elements, [Array.from({ length: 32 }, (_, i) => 32 * i)]);
    assert.equal(col.conflicts, 31);
    assert.equal(col.ncu_wavefront_metric, 'sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum');
    assert.equal(by.pad.shared[1].layout, 'S[(32,32):(33,1)]');
    assert.equal(by.naive.global[1].instr, 'STG.32');
    // 64x64 tiles, 16 B per lane: 8 lanes per wavefront, 4 wavefronts when conflict-free. Column of 16 B
    // chunks (rows 0, 4, 8, ...): row-major pitch 256 B puts lanes 0-7 in the same 4 banks (8-way, 32
    // wavefronts); 16 B pad every 4 rows shifts each by one chunk, Swizzle<3,2,6> XORs the chunk with row / 4.
    // Load: 32 lanes x 16 B = two 256 B row pieces = 16 sectors. Store: one bulk copy of a 256 B output row
    // piece (64 floats) = 8 sectors, every byte used. The staging tile is written in rows of 16 chunks: 8 lanes
    // per wavefront on 8 different chunks, 4 wavefronts.
    for (const v of ['tile64_pad', 'tile64_swizzle']) {
      assert.deepEqual(
        by[v].global.map((g) => g.sectors_per_request),
        [16, 8],
        v,
      );
      assert.deepEqual(
        by[v].global.map((g) => [g.bytes_requested, g.sector_efficiency]),
        [
          [512, 1],
          [256, 1],
        ],
        v,
      );
      assert.deepEqual(
        by[v].shared.slice(0, 3).map((x) => [x.wavefronts, x.ideal_wavefronts, x.max_ways]),
        [
          [4, 4, 1],
          [4, 4, 1],
          [4, 4, 1],
        ],
        v,
      );
      assert.deepEqual([by[v].shared[3].wavefronts, by[v].shared[3].max_ways], [32, 8], v);
    }
    assert.equal(by.tile64_swizzle.shared[1].layout, 'Swizzle<3,2,6> o S[(64,64):(64,1)]');
  });

  test('soa_vec predictions follow the kernel the CUDA launcher picks: float4 whenever n % 4 == 0, scalar otherwise', async () => {
    // n = 64: float4 path, 16 lanes (one per 4 elements) read field 0 of elements 0..63: 256 contiguous bytes = 8
    // sectors. n = 66: the scalar SoA kernel, 32 lanes x 4 B contiguous = 4 sectors. n = 1024: 32 lanes x 16 B = 16.
    const want = { 64: [16, 8], 66: [4, 4], 1024: [16, 16] };
    for (const [n, [width, sectors]] of Object.entries(want)) {
      const id = await run({
        benchmark: 'aos_soa',
        params: { n: Number(n), layouts: ['soa_vec'], touch_fields: 1, repetitions: 1 },
      });
      const rec = await waitRun(agent, id);
      assert.equal(rec.status, 'succeeded', rec.error);
      const g = rec.result.benchmarks[0].states[0].predicted.global[0];
      assert.deepEqual([g.bytes_per_lane, g.sectors_per_request], [width, sectors], `n = ${n}`);
    }
  });

  test('adaptive sampling (no repetitions): at least min_samples, a stop reason, null repetitions echoed', async () => {
    const id = await run({
      benchmark: 'transpose',
      params: { dim: 64, variants: ['copy'], min_samples: 12, max_time_s: 0.02, cache: 'hot' },
    });
    const rec = await waitRun(agent, id);
    assert.equal(rec.status, 'succeeded', rec.error);
    assertValid(rec.result);
    assert.equal(rec.result.meta.request.params.repetitions, null);
    const s = rec.result.benchmarks[0].states[0];
    assert.ok(summary(s, 'sample_size') >= 12);
    assert.ok(['noise', 'time_limit', 'max_samples'].includes(s.sampling.stop_reason), s.sampling.stop_reason);
    assert.equal(s.sampling.throttled_samples_dropped, 0);
    assert.equal(s.time_samples_s.length, summary(s, 'sample_size'));
  });

  test('"profile": true on the CPU backend: every state says why there is no ncu measurement', async () => {
    const id = await run({ benchmark: 'aos_soa', profile: true, params: { n: 1024, touch_fields: 1, repetitions: 1 } });
    const rec = await waitRun(agent, id);
    assert.equal(rec.status, 'succeeded', rec.error);
    assertValid(rec.result);
    assert.equal(rec.result.meta.request.profile, true);
    for (const s of rec.result.benchmarks[0].states) {
      assert.equal(s.profile.available, false);
      assert.equal(
        s.profile.reason,
        'not measured: ncu (Nsight Compute) profiles CUDA kernels only, and this run used the cpu backend',
      );
    }
  });
});

describe('--run: one request in-process, no HTTP', () => {
  test('prints a valid results document of the same request, every state verified; a bad request is refused', () => {
    const request = {
      benchmark: 'transpose',
      params: { dim: [40], variants: ['copy', 'tile64_swizzle'], repetitions: 2 },
    };
    const r = spawnSync(agentBin, ['--backend', 'cpu', '--run', JSON.stringify(request)], {
      encoding: 'utf8',
      timeout: 20000,
    });
    assert.equal(r.status, 0, r.stderr);
    const result = JSON.parse(r.stdout);
    assertValid(result);
    assert.equal(result.meta.run_id, 'in-process');
    assert.deepEqual(
      result.benchmarks[0].states.map((s) => [s.name, s.verification.passed]),
      [
        ['variant=copy dim=40', true],
        ['variant=tile64_swizzle dim=40', true],
      ],
    );
    const bad = spawnSync(agentBin, ['--backend', 'cpu', '--run', '{"benchmark":"transpose","params":{"dim":0}}'], {
      encoding: 'utf8',
      timeout: 20000,
    });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /params\.dim/);
  });
});

describe('history and cancel across restarts', () => {
  test('a finished run is listed again after a restart; an unfinished one comes back interrupted', async () => {
    const dir = tempDir();
    let a = await startAgent([], { dir });
    const r = await postRun(a, { benchmark: 'transpose', params: { dim: 40, repetitions: 2 } });
    const { id } = await r.json();
    const before = await waitRun(a, id);
    assert.equal(before.status, 'succeeded');
    await a.stop();
    const files = fs.readdirSync(a.resultsDir);
    assert.deepEqual(files, [`${id}.json`], 'one file per run, no temporary left behind');
    // A record of a run that was running when an agent died.
    const stale = { ...before, id: '20000101T000000Z-deadbeef', status: 'running', result: null, finished_at: null };
    fs.writeFileSync(path.join(a.resultsDir, `${stale.id}.json`), JSON.stringify(stale));
    fs.writeFileSync(path.join(a.resultsDir, 'garbage.json'), '{not json');
    // A record whose id is not its file name (here: a path out of the folder) is skipped, never written back.
    fs.writeFileSync(path.join(a.resultsDir, 'escape.json'), JSON.stringify({ ...stale, id: '../escaped' }));
    a = await startAgent([], { dir });
    try {
      const list = (await (await a.fetch('/v1/runs')).json()).runs;
      assert.deepEqual(
        list.map((x) => x.id),
        [stale.id, id],
      ); // oldest first
      const again = await (await a.fetch(`/v1/runs/${id}`)).json();
      assert.deepEqual(again.result, before.result);
      const interrupted = await (await a.fetch(`/v1/runs/${stale.id}`)).json();
      assert.equal(interrupted.status, 'interrupted');
      assert.match(a.stderr, /garbage\.json: not a run record/);
      assert.match(a.stderr, /escape\.json: its id does not match the file name, skipped/);
      assert.equal(fs.existsSync(path.join(a.resultsDir, '..', 'escaped.json')), false);
    } finally {
      await a.stop();
    }
  });

  test('SIGTERM during a run: the agent exits promptly and records the run as interrupted', async () => {
    const a = await startAgent([], { dir: tempDir() });
    const r = await postRun(a, { benchmark: 'aos_soa', params: { n: 1 << 16, repetitions: 1000, cache: 'hot' } });
    const { id } = await r.json();
    await new Promise((res) => setTimeout(res, 300));
    const t0 = Date.now();
    await a.stop();
    assert.ok(Date.now() - t0 < 5000, 'stopped before the SIGKILL fallback');
    assert.equal(a.proc.exitCode, 0);
    const rec = JSON.parse(fs.readFileSync(path.join(a.resultsDir, `${id}.json`), 'utf8'));
    assert.equal(rec.status, 'interrupted');
  });

  test('DELETE of an unknown run -> 404', async () => {
    assert.equal((await agent.fetch('/v1/runs/19990101T000000Z-00000000', { method: 'DELETE' })).status, 404);
  });
});

describe('committed H200 results (docs/results/h200-*.json, measured with the CUDA backend)', () => {
  for (const name of ['aos_soa', 'transpose']) {
    test(`h200-${name}.json validates, verified every state, predictions are the document's`, (t) => {
      const file = path.join(repoRoot, 'docs', 'results', `h200-${name}.json`);
      if (!fs.existsSync(file)) return t.skip('no H200 result committed yet');
      const result = JSON.parse(fs.readFileSync(file, 'utf8'));
      assertValid(result);
      assert.equal(result.meta.backend, 'cuda');
      assert.equal(result.devices[0].sm_version, '9.0');
      const states = result.benchmarks[0].states;
      for (const s of states) {
        assert.equal(s.verification.passed, true, s.name);
        assert.ok(
          s.summaries.some((x) => x.tag === 'nv/cold/time/gpu/median'),
          s.name,
        );
      }
      for (const c of result.benchmarks[0].ceilings ?? []) assert.equal(c.verification.passed, true, c.name);
      if (name === 'aos_soa') {
        const want = { aos: 32, soa: 4, aos_vec: 32, soa_vec: 16 };
        for (const s of states) assert.equal(s.predicted.global[0].sectors_per_request, want[s.axis_values.layout]);
      } else {
        const copy = states.filter((s) => s.axis_values.variant === 'copy' && s.axis_values.dim >= 8192);
        for (const s of copy) assert.ok(summary(s, 'bw/global/bytes_per_second') >= 3e12, 'copy >= 3 TB/s on H200');
      }
    });
  }
});

describe('committed H200 profile runs (ncu): measured counters agree with the engine', () => {
  for (const name of ['aos_soa', 'transpose']) {
    test(`h200-profile-${name}.json`, (t) => {
      const file = path.join(repoRoot, 'docs', 'results', `h200-profile-${name}.json`);
      if (!fs.existsSync(file)) return t.skip('no profile run committed yet');
      const result = JSON.parse(fs.readFileSync(file, 'utf8'));
      assertValid(result);
      for (const s of result.benchmarks[0].states) {
        assert.equal(s.profile.available, true, s.name);
        const g = s.predicted.global;
        assert.equal(s.profile.global_load_sectors_per_request, g[0].sectors_per_request, s.name);
        if ((g[1]?.access ?? '').startsWith('store: one bulk copy')) {
          // tile64 stores only through bulk copies (TMA): no LSU store request at all, so no ratio
          assert.equal(s.profile.metrics['l1tex__t_requests_pipe_lsu_mem_global_op_st.sum'], 0, s.name);
          assert.equal(s.profile.global_store_sectors_per_request, null, s.name);
        } else {
          assert.equal(s.profile.global_store_sectors_per_request, (g[1] ?? g[0]).sectors_per_request, s.name);
        }
        const sh = s.predicted.shared ?? [];
        if (sh.length > 1) {
          const m = s.profile.shared_load_wavefronts_per_instruction;
          const want = sh[1].wavefronts;
          assert.ok(m >= 0.99 * want, `${s.name}: ${m} below the engine's minimum ${want}`);
          if (sh.length > 3) {
            // tile64: the bulk copies read the staging tile while warps use the banks, which ncu counts as extra
            // wavefronts the per-access model does not see; the column read must stay next to the conflict-free
            // count, within an eighth of the way to the row-major reference tile (8-way: 32)
            const ref = sh[sh.length - 1].wavefronts;
            assert.ok(m <= want + (ref - want) / 8, `${s.name}: ${m} vs ${want} (row-major ${ref})`);
          } else {
            // partial tiles and replays: within 15%
            assert.ok(m <= 1.15 * want, `${s.name}: ${m} vs ${want}`);
          }
        }
      }
    });
  }
});

describe('--web DIR', () => {
  test('serves the built page and its files, nothing outside DIR, with the same policy headers', async (t) => {
    const web = tempDir('ls-web-');
    fs.writeFileSync(path.join(web, 'index.html'), '<!doctype html><title>built page</title>');
    fs.writeFileSync(path.join(web, 'app.js'), 'export const x = 1;\n');
    fs.writeFileSync(path.join(path.dirname(web), 'outside-secret.txt'), 'secret');
    const a = await startAgent(['--web', web, '--allowed-origin', 'https://docs.example.org']);
    t.after(() => a.stop());
    const page = await fetch(`${a.base}/`);
    assert.equal(page.status, 200);
    assert.equal(await page.text(), '<!doctype html><title>built page</title>');
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
    // who may frame the page: this origin and the allowed ones (a <meta> CSP cannot say it)
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /^frame-ancestors 'self'( \S+)*$/, csp);
    const sources = csp.split(' ').slice(2);
    assert.ok(sources.includes('https://docs.example.org'), csp);
    assert.ok(sources.includes(`http://127.0.0.1:${a.port}`), csp);
    assert.ok(!sources.some((s) => s.includes('[')), csp);
    const js = await fetch(`${a.base}/app.js`);
    assert.equal(await js.text(), 'export const x = 1;\n');
    assert.equal(js.headers.get('content-security-policy'), null, 'only pages get frame-ancestors');
    const { rawRequest, rawHttp } = await import('./lib/agent.js');
    const escape = await rawRequest(a.port, rawHttp('GET', '/../outside-secret.txt', { Host: `127.0.0.1:${a.port}` }));
    assert.notEqual(escape.status, 200);
    assert.ok(!escape.body.includes('secret'));
    // the API is still there, still behind the token
    assert.equal((await fetch(`${a.base}/v1/devices`)).status, 401);
  });
});
