// The security rules of RequestPolicy, one bad request per rule, each checked against the answer
// the rule prescribes. All traffic goes to 127.0.0.1 only.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import zlib from 'node:zlib';

import { agentBin, postRun, rawHttp, rawRequest, startAgent, tempDir, waitRun } from './lib/agent.js';

const GOOD_ORIGIN = 'https://docs.example.org';
let agent;

before(async () => {
  agent = await startAgent(['--allowed-origin', GOOD_ORIGIN, '--read-timeout', '1', '--test-endpoints']);
});
after(async () => {
  await agent.stop();
});

async function alive() {
  const r = await fetch(`${agent.base}/healthz`);
  assert.equal(r.status, 200, 'the agent still answers');
}

function hostHeader() {
  return `127.0.0.1:${agent.port}`;
}

describe('bind', () => {
  test('binds loopback by default: the listening socket is 127.0.0.1 (from /proc/net/tcp)', () => {
    const portHex = agent.port.toString(16).toUpperCase().padStart(4, '0');
    const rows = fs
      .readFileSync('/proc/net/tcp', 'utf8')
      .split('\n')
      .slice(1)
      .map((l) => l.trim().split(/\s+/));
    // local_address is hex IP:port, little-endian IP on x86: 127.0.0.1 -> 0100007F; state 0A = LISTEN
    const listening = rows.filter((r) => r[1] && r[1].endsWith(`:${portHex}`) && r[3] === '0A');
    assert.equal(listening.length, 1);
    assert.equal(listening[0][1], `0100007F:${portHex}`);
  });

  test('a non-loopback --host without --allow-remote is refused at start', () => {
    // 127.evil.example is a name (it may resolve anywhere), not an address in 127.0.0.0/8
    for (const host of ['0.0.0.0', '127.evil.example']) {
      const dir = tempDir();
      const r = spawnSync(
        agentBin,
        ['--host', host, '--port', '0', '--token-file', path.join(dir, 't'), '--results-dir', path.join(dir, 'r')],
        { encoding: 'utf8', timeout: 5000 },
      );
      assert.equal(r.status, 2, host);
      assert.match(r.stderr, /--allow-remote/, host);
    }
  });
});

describe('Host allowlist (DNS rebinding)', () => {
  for (const host of ['evil.example', `evil.example:${0}`, '127.0.0.1:1', 'localhost']) {
    test(`Host: ${host} -> 403`, async () => {
      const h = host.replace(':0', `:${agent.port}`);
      const r = await rawRequest(agent.port, rawHttp('GET', '/healthz', { Host: h, Connection: 'close' }));
      assert.equal(r.status, 403);
      assert.equal(JSON.parse(r.body).error.code, 'host_not_allowed');
    });
  }
  test('empty Host -> 403', async () => {
    const r = await rawRequest(agent.port, rawHttp('GET', '/healthz', { Host: '' }));
    assert.equal(r.status, 403);
  });
  test('no Host at all (HTTP/1.0) -> 403', async () => {
    const r = await rawRequest(agent.port, Buffer.from('GET /healthz HTTP/1.0\r\n\r\n'));
    assert.equal(r.status, 403);
  });
  test('localhost:PORT and [::1]:PORT are accepted', async () => {
    for (const h of [`localhost:${agent.port}`, `[::1]:${agent.port}`, hostHeader()]) {
      const r = await rawRequest(agent.port, rawHttp('GET', '/healthz', { Host: h }));
      assert.equal(r.status, 200, h);
    }
  });
});

describe('Origin allowlist (exact strings) and CORS', () => {
  for (const origin of [
    'https://docs.example.org.evil.com',
    'http://docs.example.org',
    'https://docs.example.org/',
    'https://evil.docs.example.org',
    'null',
    `http://evil.example:${0}`,
  ]) {
    test(`Origin: ${origin} -> 403`, async () => {
      const r = await agent.fetch('/v1/devices', { headers: { Origin: origin } });
      assert.equal(r.status, 403);
      assert.equal((await r.json()).error.code, 'origin_not_allowed');
      assert.equal(r.headers.get('access-control-allow-origin'), null);
      assert.equal(r.headers.get('vary'), 'Origin');
    });
  }
  test('the allowed origin gets Access-Control-Allow-Origin and Vary: Origin', async () => {
    const r = await agent.fetch('/v1/devices', { headers: { Origin: GOOD_ORIGIN } });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('access-control-allow-origin'), GOOD_ORIGIN);
    assert.equal(r.headers.get('vary'), 'Origin');
  });
  test("the agent's own origin is allowed", async () => {
    const r = await agent.fetch('/v1/devices', { headers: { Origin: agent.base } });
    assert.equal(r.status, 200);
  });
  test('preflight from the allowed origin -> 204 with methods, headers and Private Network Access', async () => {
    const r = await fetch(`${agent.base}/v1/runs`, {
      method: 'OPTIONS',
      headers: {
        Origin: GOOD_ORIGIN,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type',
        'Access-Control-Request-Private-Network': 'true',
      },
    });
    assert.equal(r.status, 204);
    assert.equal(r.headers.get('access-control-allow-origin'), GOOD_ORIGIN);
    assert.match(r.headers.get('access-control-allow-methods'), /POST/);
    assert.match(r.headers.get('access-control-allow-headers'), /Authorization/);
    assert.equal(r.headers.get('access-control-allow-private-network'), 'true');
  });
  test('preflight from another origin -> 403', async () => {
    const r = await fetch(`${agent.base}/v1/runs`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://docs.example.org.evil.com', 'Access-Control-Request-Method': 'POST' },
    });
    assert.equal(r.status, 403);
  });
});

describe('bearer token', () => {
  test('no token -> 401 with WWW-Authenticate: Bearer', async () => {
    const r = await fetch(`${agent.base}/v1/devices`);
    assert.equal(r.status, 401);
    assert.match(r.headers.get('www-authenticate'), /^Bearer/);
    assert.equal((await r.json()).error.code, 'unauthorized');
  });
  test('wrong token of the same length, a prefix, the token plus a suffix, Basic scheme, query string -> 401', async () => {
    const t = agent.token;
    const flipped = (t[0] === 'a' ? 'b' : 'a') + t.slice(1);
    const cases = [`Bearer ${flipped}`, `Bearer ${t.slice(0, 16)}`, `Bearer ${t}x`, `Basic ${t}`, 'Bearer '];
    for (const auth of cases) {
      const r = await fetch(`${agent.base}/v1/devices`, { headers: { Authorization: auth } });
      assert.equal(r.status, 401, auth.slice(0, 12));
    }
    const q = await fetch(`${agent.base}/v1/devices?token=${t}`);
    assert.equal(q.status, 401);
  });
  test('the right token -> 200; public endpoints need none', async () => {
    assert.equal((await agent.fetch('/v1/devices')).status, 200);
    for (const p of ['/healthz', '/readyz', '/version', '/openapi.json', '/']) {
      assert.equal((await fetch(agent.base + p)).status, 200, p);
    }
  });
  test('the token file is created with mode 0600 and holds the printed token', () => {
    const st = fs.statSync(agent.tokenFile);
    assert.equal(st.mode & 0o777, 0o600);
    assert.equal(fs.readFileSync(agent.tokenFile, 'utf8').trim(), agent.token);
    assert.equal(agent.token.length, 64); // 256 random bits in hex
  });
  test('a token file readable by others is refused at start', () => {
    const dir = tempDir();
    const f = path.join(dir, 'token');
    fs.writeFileSync(f, 'a'.repeat(64) + '\n', { mode: 0o644 });
    fs.chmodSync(f, 0o644);
    const r = spawnSync(agentBin, ['--port', '0', '--token-file', f, '--results-dir', path.join(dir, 'r')], {
      encoding: 'utf8',
      timeout: 5000,
    });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /mode 0644/);
  });
  test('the token is never logged', async () => {
    await agent.fetch('/v1/devices');
    await fetch(`${agent.base}/v1/devices`, { headers: { Authorization: 'Bearer wrong' } });
    assert.ok(agent.stderr.length > 0, 'the agent logs requests');
    assert.ok(!agent.stderr.includes(agent.token), 'stderr does not contain the token');
    // stdout holds exactly one line with the token: the URL to open
    assert.equal(agent.stdout.split(agent.token).length - 1, 1);
  });
});

describe('request bodies', () => {
  test('POST without JSON content type -> 415', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const r = await agent.fetch('/v1/runs', {
        method: 'POST',
        headers: { 'Content-Type': type },
        body: '{"benchmark":"aos_soa"}',
      });
      assert.equal(r.status, 415, type);
      assert.equal((await r.json()).error.code, 'unsupported_media_type');
    }
  });
  test('body over 64 KiB -> 413; exactly 64 KiB passes the size gate', async () => {
    const big = '{"benchmark":"aos_soa","x":"' + 'a'.repeat(65536) + '"}';
    const r = await agent.fetch('/v1/runs', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: big,
    });
    assert.equal(r.status, 413);
    // 65536 bytes of valid JSON with an unknown field: refused by validation (422), not by size
    const head = '{"benchmark":"aos_soa","bogus":"';
    const exact = head + 'a'.repeat(65536 - head.length - 2) + '"}';
    assert.equal(Buffer.byteLength(exact), 65536);
    const ok = await agent.fetch('/v1/runs', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: exact,
    });
    assert.equal(ok.status, 422);
    assert.equal((await ok.json()).error.field, 'bogus');
  });
  test('chunked body -> 411 before any handler runs', async () => {
    const body = '{"benchmark":"aos_soa"}';
    const chunked = `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    const r = await rawRequest(
      agent.port,
      rawHttp(
        'POST',
        '/v1/runs',
        {
          Host: hostHeader(),
          Authorization: `Bearer ${agent.token}`,
          'Content-Type': 'application/json',
          'Transfer-Encoding': 'chunked',
        },
        chunked,
      ),
    );
    assert.equal(r.status, 411);
    assert.equal(JSON.parse(r.body).error.code, 'length_required');
    await alive();
  });
  test('Content-Encoding: gzip -> 415 (no decompression)', async () => {
    const gz = zlib.gzipSync(Buffer.from('{"benchmark":"aos_soa"}'));
    const r = await rawRequest(
      agent.port,
      rawHttp(
        'POST',
        '/v1/runs',
        {
          Host: hostHeader(),
          Authorization: `Bearer ${agent.token}`,
          'Content-Type': 'application/json',
          'Content-Encoding': 'gzip',
          'Content-Length': gz.length,
        },
        gz,
      ),
    );
    assert.equal(r.status, 415);
    assert.equal(JSON.parse(r.body).error.code, 'unsupported_content_encoding');
  });
  test('JSON nested 20000 deep -> 400, the process stays alive', async () => {
    const deep = '['.repeat(20000) + ']'.repeat(20000);
    const r = await agent.fetch('/v1/runs', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: deep,
    });
    assert.equal(r.status, 400);
    assert.match((await r.json()).error.message, /nested deeper/);
    const inParams = `{"benchmark":"aos_soa","params":{"n":${'['.repeat(40)}1${']'.repeat(40)}}}`;
    const r2 = await agent.fetch('/v1/runs', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: inParams,
    });
    assert.equal(r2.status, 400);
    await alive();
  });
  test('invalid JSON -> 400 bad_json', async () => {
    const r = await agent.fetch('/v1/runs', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"benchmark":',
    });
    assert.equal(r.status, 400);
    assert.equal((await r.json()).error.code, 'bad_json');
  });
});

describe('parameter bounds -> 422 naming the field', () => {
  const cases = [
    [{ benchmark: 'aos_soa', params: { n: 31 } }, 'params.n'],
    [{ benchmark: 'aos_soa', params: { n: 2 ** 28 + 1 } }, 'params.n'],
    [{ benchmark: 'aos_soa', params: { n: '1024' } }, 'params.n'],
    [{ benchmark: 'aos_soa', params: { n: 1024.5 } }, 'params.n'],
    [{ benchmark: 'aos_soa', params: { n: -5 } }, 'params.n'],
    [{ benchmark: 'aos_soa', params: { n: 1e30 } }, 'params.n'],
    [{ benchmark: 'aos_soa', params: { touch_fields: [1, 3] } }, 'params.touch_fields[1]'],
    [{ benchmark: 'aos_soa', params: { touch_fields: [1, 1] } }, 'params.touch_fields[1]'],
    [{ benchmark: 'aos_soa', params: { touch_fields: [] } }, 'params.touch_fields'],
    [{ benchmark: 'aos_soa', params: { touch_fields: 16 } }, 'params.touch_fields'],
    [{ benchmark: 'aos_soa', params: { repetitions: 0 } }, 'params.repetitions'],
    [{ benchmark: 'aos_soa', params: { repetitions: 1001 } }, 'params.repetitions'],
    [{ benchmark: 'aos_soa', params: { warmup: 101 } }, 'params.warmup'],
    [{ benchmark: 'aos_soa', params: { cache: 'warm' } }, 'params.cache'],
    [{ benchmark: 'aos_soa', params: { seed: -1 } }, 'params.seed'],
    [{ benchmark: 'aos_soa', params: { dim: 64 } }, 'params.dim'],
    [{ benchmark: 'aos_soa', params: [] }, 'params'],
    [{ benchmark: 'transpose', params: { dim: 0 } }, 'params.dim'],
    [{ benchmark: 'transpose', params: { dim: 32769 } }, 'params.dim'],
    [{ benchmark: 'transpose', params: { dim: [64, 64] } }, 'params.dim[1]'],
    [{ benchmark: 'transpose', params: { dim: [1, 2, 3, 4, 5, 6, 7, 8, 9] } }, 'params.dim'],
    [{ benchmark: 'transpose', params: { variants: ['copy', 'bogus'] } }, 'params.variants[1]'],
    [{ benchmark: 'transpose', params: { variants: 'copy' } }, 'params.variants'],
    [{ benchmark: 'bogus' }, 'benchmark'],
    [{ params: {} }, 'benchmark'],
    [{ benchmark: 'aos_soa', device: 7 }, 'device'],
    [{ benchmark: 'aos_soa', extra: 1 }, 'extra'],
  ];
  for (const [body, field] of cases) {
    test(`${JSON.stringify(body)} -> ${field}`, async () => {
      const r = await postRun(agent, body);
      assert.equal(r.status, 422);
      const e = (await r.json()).error;
      assert.equal(e.code, 'invalid_parameter');
      assert.equal(e.field, field);
      assert.ok(e.message.startsWith(field), e.message);
    });
  }
  test("a size beyond the CPU backend's memory budget -> 422 and no allocation (peak RSS stays small)", async () => {
    // 2^28 structs x 32 B; two 32768^2 fp32 matrices: both over the CPU backend's 512 MiB budget
    // aos_soa needs the structs and the destination of the copy ceilings: 2 x 32 B per element
    for (const [body, field, bytes] of [
      [{ benchmark: 'aos_soa', params: { n: 2 ** 28 } }, 'params.n', 2 ** 28 * 64],
      [{ benchmark: 'transpose', params: { dim: 32768 } }, 'params.dim', 2 * 32768 ** 2 * 4],
    ]) {
      const r = await postRun(agent, body);
      assert.equal(r.status, 422);
      const e = (await r.json()).error;
      assert.equal(e.field, field);
      assert.ok(e.message.includes(`need${field === 'params.dim' ? 's' : ''} ${bytes} bytes`), e.message);
    }
    // 2^28 structs are 8 GiB: had they been allocated (and zeroed) the peak RSS would show it.
    const status = fs.readFileSync(`/proc/${agent.proc.pid}/status`, 'utf8');
    const hwmKiB = Number(/VmHWM:\s+(\d+) kB/.exec(status)[1]);
    assert.ok(hwmKiB < 512 * 1024, `peak RSS ${hwmKiB} KiB`);
  });
});

describe('one job at a time, cancel', () => {
  test('a second POST while a run is going -> 409 + Retry-After; DELETE cancels the first', async () => {
    const long = await postRun(agent, {
      benchmark: 'aos_soa',
      params: { n: 1 << 20, repetitions: 1000, cache: 'hot' },
    });
    assert.equal(long.status, 202);
    const { id } = await long.json();
    const second = await postRun(agent, { benchmark: 'transpose', params: { dim: 64 } });
    assert.equal(second.status, 409);
    assert.equal((await second.json()).error.code, 'device_busy');
    const retry = Number(second.headers.get('retry-after'));
    assert.ok(Number.isInteger(retry) && retry >= 1, `Retry-After ${second.headers.get('retry-after')}`);
    const del = await agent.fetch(`/v1/runs/${id}`, { method: 'DELETE' });
    assert.ok([200, 202].includes(del.status));
    const rec = await waitRun(agent, id, 30000);
    assert.equal(rec.status, 'cancelled');
    const again = await agent.fetch(`/v1/runs/${id}`, { method: 'DELETE' });
    assert.equal(again.status, 409);
    // the device is free again
    const third = await postRun(agent, { benchmark: 'transpose', params: { dim: 64, repetitions: 2 } });
    assert.equal(third.status, 202);
    assert.equal((await waitRun(agent, (await third.json()).id)).status, 'succeeded');
  });
});

describe('a request holds its device while it is checked', () => {
  test('a second POST sent while the first is in its bounds check -> 409 at once; the first is queued', async () => {
    const arm = await agent.fetch('/v1/_test/slow-next-admission', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ ms: 600 }),
    });
    assert.equal(arm.status, 200);
    const order = [];
    const first = postRun(agent, { benchmark: 'transpose', params: { dim: 64, repetitions: 2 } }).then((r) => {
      order.push('first');
      return r;
    });
    await new Promise((resolve) => setTimeout(resolve, 150)); // the first is now inside its 600 ms bounds check
    const second = await postRun(agent, { benchmark: 'transpose', params: { dim: 64, repetitions: 2 } });
    order.push('second');
    // Without the claim the second would pass the busy check, be queued, and the first would get the 409.
    assert.equal(second.status, 409);
    const e = (await second.json()).error;
    assert.equal(e.code, 'device_busy');
    assert.match(e.message, /device 0 is taking another run request/);
    assert.equal(second.headers.get('retry-after'), '1');
    const r = await first;
    assert.deepEqual(order, ['second', 'first'], 'the second is answered while the first is still being checked');
    assert.equal(r.status, 202);
    assert.equal((await waitRun(agent, (await r.json()).id)).status, 'succeeded');
  });

  test('a request refused in its bounds check frees the device', async () => {
    const bad = await postRun(agent, { benchmark: 'transpose', params: { dim: 1 << 20 } });
    assert.equal(bad.status, 422);
    const good = await postRun(agent, { benchmark: 'transpose', params: { dim: 64, repetitions: 2 } });
    assert.equal(good.status, 202);
    assert.equal((await waitRun(agent, (await good.json()).id)).status, 'succeeded');
  });

  test('slow-next-admission checks its ms', async () => {
    const r = await agent.fetch('/v1/_test/slow-next-admission', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ ms: 'soon' }),
    });
    assert.equal(r.status, 422);
    assert.equal((await r.json()).error.field, 'ms');
  });
});

describe('a failing run', () => {
  test('an exception inside the benchmark (as CUDA out-of-memory throws) -> run "failed" with its reason; the agent keeps serving', async () => {
    const arm = await agent.fetch('/v1/_test/fail-next-run', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    assert.equal(arm.status, 200);
    const r = await postRun(agent, { benchmark: 'transpose', params: { dim: 48, repetitions: 1 } });
    assert.equal(r.status, 202);
    const failed = await waitRun(agent, (await r.json()).id);
    assert.equal(failed.status, 'failed');
    assert.match(failed.error, /out of memory/);
    assert.equal(failed.result, null);
    await alive();
    const next = await postRun(agent, { benchmark: 'transpose', params: { dim: 48, repetitions: 1 } });
    assert.equal(next.status, 202);
    assert.equal((await waitRun(agent, (await next.json()).id)).status, 'succeeded');
  });
  test('a failing device allocation (1 PiB through the CUDA check) -> run "failed" naming the CUDA call', async () => {
    const arm = await agent.fetch('/v1/_test/fail-next-run', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"kind":"device_allocation"}',
    });
    assert.equal(arm.status, 200);
    const r = await postRun(agent, { benchmark: 'aos_soa', params: { n: 64, repetitions: 1 } });
    const failed = await waitRun(agent, (await r.json()).id);
    assert.equal(failed.status, 'failed');
    // with CUDA built in but no driver here: cudaSetDevice fails; without CUDA: the build says so
    assert.match(failed.error, /cudaSetDevice\(device\) failed at cuda_backend\.cpp:\d+|cudaMalloc|without CUDA/);
    await alive();
  });
});

describe('connection and response hygiene', () => {
  test('keep-alive is off: Connection: close, a pipelined second request is not answered', async () => {
    const one = rawHttp('GET', '/healthz', { Host: hostHeader() });
    const r = await rawRequest(agent.port, Buffer.concat([one, one]));
    assert.equal(r.status, 200);
    assert.equal(r.headers.connection, 'close');
    assert.equal(r.raw.split('HTTP/1.1 ').length - 1, 1, 'exactly one response on the connection');
  });
  test('API responses carry nosniff and no-store, errors too', async () => {
    for (const [p, auth] of [
      ['/v1/devices', true],
      ['/v1/devices', false],
      ['/v1/nothing', true],
      ['/healthz', false],
    ]) {
      const r = auth ? await agent.fetch(p) : await fetch(agent.base + p);
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff', p);
      assert.equal(r.headers.get('cache-control'), 'no-store', p);
    }
  });
  test('unknown path -> JSON 404', async () => {
    const r = await agent.fetch('/v1/nothing');
    assert.equal(r.status, 404);
    assert.equal((await r.json()).error.code, 'not_found');
  });
  test('unsupported method -> 405', async () => {
    const r = await agent.fetch('/v1/runs', {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    assert.equal(r.status, 405);
  });
  test('an exception in a handler -> JSON 500 without internals', async () => {
    const r = await rawRequest(
      agent.port,
      rawHttp('GET', '/v1/_test/throw', { Host: hostHeader(), Authorization: `Bearer ${agent.token}` }),
    );
    assert.equal(r.status, 500);
    assert.deepEqual(JSON.parse(r.body), { error: { code: 'internal', message: 'internal error' } });
    assert.ok(!r.raw.includes('secret'), 'no exception text in headers or body');
    assert.equal(r.headers.exception_what, undefined);
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
    await alive();
  });
  test('a client that stalls mid-request is dropped after the read timeout; others are served meanwhile', async () => {
    const t0 = Date.now();
    const stalled = rawRequest(agent.port, Buffer.from(`GET /healthz HTTP/1.1\r\nHost: ${hostHeader()}\r\n`), {
      timeoutMs: 8000,
    });
    await alive();
    const r = await stalled;
    const elapsed = Date.now() - t0;
    assert.equal(r.timedOut, false, 'the server closed the connection');
    assert.ok(elapsed < 6000, `closed after ${elapsed} ms (read timeout 1 s)`);
  });
});
