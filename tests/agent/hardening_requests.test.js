// Crafted requests and records: NUL bytes and repeated security headers (400), values the catalogue leaves
// out (422), requests whose cost is out of proportion to what they read (422 naming the field, answered at
// once), and a stored record the loader accepts but a CSV row cannot be made of (409, not 500).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { postRun, rawRequest, startAgent, tempDir } from './lib/agent.js';

function raw(agent, { headers = [], body = '' } = {}) {
  const head = [
    'POST /v1/runs HTTP/1.1',
    `Host: 127.0.0.1:${agent.port}`,
    ...headers,
    `Content-Length: ${Buffer.byteLength(body, 'latin1')}`,
    '',
    '',
  ].join('\r\n');
  return rawRequest(agent.port, Buffer.from(head + body, 'latin1'));
}

const QUICK = JSON.stringify({
  benchmark: 'aos_soa',
  params: { n: 1024, touch_fields: [1], layouts: ['soa'], min_samples: 1, max_samples: 2, warmup: 0 },
});

describe('crafted requests', () => {
  let a;
  before(async () => {
    a = await startAgent();
  });
  after(async () => {
    await a.stop();
  });
  const auth = () => `Authorization: Bearer ${a.token}`;
  const json = 'Content-Type: application/json';

  test('a NUL byte in the body: 400 naming its offset (the JSON before it is not run)', async () => {
    const r = await raw(a, { headers: [auth(), json], body: `${QUICK}\0garbage` });
    assert.equal(r.status, 400, r.raw);
    const e = JSON.parse(r.body).error;
    assert.equal(e.field, 'body');
    assert.ok(e.message.includes(`offset ${QUICK.length}`), e.message);
  });

  test('a NUL byte in a header value (token, Host): 400', async () => {
    for (const headers of [
      [`Authorization: Bearer ${a.token}\0xyz`, json],
      [auth(), json, `X-Extra: a\0b`],
    ]) {
      const r = await raw(a, { headers, body: QUICK });
      assert.equal(r.status, 400, r.raw);
      assert.equal(JSON.parse(r.body).error.code, 'nul_in_header');
    }
    const host = await rawRequest(
      a.port,
      Buffer.from(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${a.port}\0evil\r\n\r\n`, 'latin1'),
    );
    assert.equal(host.status, 400, host.raw);
  });

  test('repeated Authorization, Origin or Content-Type: 400 naming the header', async () => {
    for (const [name, headers] of [
      ['Authorization', [auth(), auth(), json]],
      ['Origin', [auth(), json, `Origin: http://127.0.0.1:${a.port}`, `Origin: http://127.0.0.1:${a.port}`]],
      ['Content-Type', [auth(), json, json]],
    ]) {
      const r = await raw(a, { headers, body: QUICK });
      assert.equal(r.status, 400, r.raw);
      const e = JSON.parse(r.body).error;
      assert.equal(e.code, 'duplicate_header');
      assert.ok(e.message.includes(name), e.message);
    }
  });

  test('tf32, which the convert catalogue leaves out: 422 naming params.dtype', async () => {
    const catalogue = await (await a.fetch('/v1/benchmarks')).json();
    const convert = catalogue.benchmarks.find((b) => b.name === 'convert');
    assert.ok(!convert.parameters.dtype.enum.includes('tf32'));
    const r = await postRun(a, {
      benchmark: 'convert',
      params: { src: 'S[(4,8):(8,1)]', dst: 'S[(4,8):(1,4)]', shape: [4, 8], dtype: 'tf32' },
    });
    assert.equal(r.status, 422);
    assert.equal((await r.json()).error.field, 'params.dtype');
  });

  test('a 4-element u8 source spanning 4,294,967,292 bytes: 422 naming params.src', async () => {
    const r = await postRun(a, {
      benchmark: 'convert',
      params: { src: 'S[(2,2):(4294967290,1)]', dst: 'S[(2,2):(2,1)]', shape: [2, 2], dtype: 'u8' },
    });
    assert.equal(r.status, 422);
    const e = (await r.json()).error;
    assert.equal(e.field, 'params.src');
    // cosize = 1 + 4294967290 * (2 - 1) + 1 * (2 - 1) = 4294967292 elements
    assert.ok(e.message.includes('4294967292'), e.message);
  });

  test('a CPU convert that would hold 1 GiB on the host (8192 x 8192 f32): 422 naming params.shape', async () => {
    const r = await postRun(a, {
      benchmark: 'convert',
      params: { shape: [8192, 8192], perm: [1, 0], dtype: 'f32' },
    });
    assert.equal(r.status, 422);
    const e = (await r.json()).error;
    assert.equal(e.field, 'params.shape');
    // source, destination and the two copy-ceiling buffers: 4 x 8192^2 x 4 B
    assert.ok(e.message.includes(String(4 * 8192 ** 2 * 4)), e.message);
  });

  test('a reshard mesh of 6,500 size-1 axes (51 KB): 422 naming params.mesh, answered at once', async () => {
    const mesh = Array.from({ length: 6500 }, (_, i) => `a${i}=1`).join(',');
    const t0 = performance.now();
    const r = await postRun(a, {
      benchmark: 'reshard',
      params: { from: 'S[(8,8):(8,1)]', to: 'S[(8,8):(1,8)]', shape: [8, 8], mesh },
    });
    const ms = performance.now() - t0;
    assert.equal(r.status, 422);
    const e = (await r.json()).error;
    assert.equal(e.field, 'params.mesh');
    assert.match(e.message, /more than 64 axes/);
    // A bound far above the time taken (a few ms), far below the 78 s of the quadratic check.
    assert.ok(ms < 5000, `${ms} ms`);
    // The device was never held: a run is accepted right after.
    assert.equal((await postRun(a, JSON.parse(QUICK))).status, 202);
  });
});

describe('crafted records', () => {
  test('a stored result with no devices: ?format=csv answers 409 result_not_tabular, not 500', async () => {
    const dir = tempDir();
    const results = path.join(dir, 'results');
    fs.mkdirSync(results);
    const id = '20260101T000000Z-0000dead';
    const rec = {
      id,
      benchmark: 'aos_soa',
      device: 0,
      backend: 'cpu',
      status: 'succeeded',
      created_at: '2026-01-01T00:00:00.000Z',
      started_at: null,
      finished_at: '2026-01-01T00:00:01.000Z',
      progress: 1,
      message: 'succeeded',
      error: null,
      request: { benchmark: 'aos_soa' },
      result: { schema_version: '1.0.0', meta: {}, devices: [], benchmarks: [] },
    };
    fs.writeFileSync(path.join(results, `${id}.json`), JSON.stringify(rec));
    const a = await startAgent([], { dir });
    try {
      const r = await a.fetch(`/v1/runs/${id}?format=csv`);
      assert.equal(r.status, 409);
      const e = (await r.json()).error;
      assert.equal(e.code, 'result_not_tabular');
      assert.match(e.message, /array index 0/);
    } finally {
      await a.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
