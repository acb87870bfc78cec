// The agent under attack and under load: each test reproduces one way the agent used to break (a header
// flood, streams and idle connections holding every worker, a second agent on the same port, hostile files in
// the results folder, links out of the --web folder, ...) and asserts the answer it gives now. Every agent
// is started by the test on a free loopback port and stopped by it; every loop is bounded in count and time.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { agentBin, postRun, rawHttp, rawRequest, startAgent, tempDir, waitRun } from './lib/agent.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function rssKiB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m[1]);
}

// Times one request on a fresh raw connection (the agent closes after every answer), from connect to the
// end of the answer: fetch's own overhead on a loaded 2-core machine is of the order of the bound itself.
function timed(agent, p, { method = 'GET' } = {}) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const sock = net.connect(agent.port, '127.0.0.1');
    const chunks = [];
    sock.on('connect', () =>
      sock.write(
        `${method} ${p} HTTP/1.1\r\nHost: 127.0.0.1:${agent.port}\r\nAuthorization: Bearer ${agent.token}\r\n\r\n`,
      ),
    );
    sock.on('data', (d) => chunks.push(d));
    sock.on('error', reject);
    sock.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      resolve({ status: Number(text.split(' ')[1]), ms: performance.now() - t0 });
    });
  });
}

// Opens a connection and sends nothing; resolves once connected.
function idleConnection(port) {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => resolve(s));
    s.on('error', reject);
  });
}

// A run of many seconds on the CPU backend (cancelled by the tests that start it): 8 states of 200 samples
// over 32 MB.
const LONG = {
  n: 1 << 20,
  touch_fields: [1, 2, 4, 8],
  layouts: ['aos', 'soa'],
  min_samples: 200,
  max_samples: 200,
  warmup: 0,
};

// A quick CPU run: one state, few samples.
const QUICK = {
  benchmark: 'aos_soa',
  params: { n: 1024, touch_fields: [1], layouts: ['soa'], min_samples: 1, max_samples: 2, warmup: 0 },
};

describe('connections', () => {
  let agent;
  before(async () => {
    agent = await startAgent(['--read-timeout', '30', '--request-deadline', '3', '--max-streams', '100']);
  });
  after(async () => {
    await agent.stop();
  });

  test('a head of 24 KiB sent at once gets 431', async () => {
    const filler = Object.fromEntries([1, 2, 3].map((i) => [`X-Big-${i}`, 'a'.repeat(8000)]));
    const r = await rawRequest(agent.port, rawHttp('GET', '/healthz', { Host: `127.0.0.1:${agent.port}`, ...filler }));
    assert.equal(r.status, 431);
    assert.equal(JSON.parse(r.body).error.code, 'headers_too_large');
  });

  test('four 32 MB header floods: each connection is cut after its first 16 KiB (plus a bounded drain) and the agent does not grow', async () => {
    const before = rssKiB(agent.proc.pid);
    const results = await Promise.all(
      [0, 1, 2, 3].map(
        () =>
          new Promise((resolve) => {
            const sock = net.connect(agent.port, '127.0.0.1');
            const chunks = [];
            let sent = 0;
            const line = Buffer.from(`X-Filler: ${'a'.repeat(1000)}\r\n`);
            const block = Buffer.concat(Array(64).fill(line)); // 64 KiB of valid header lines
            const timer = setTimeout(() => sock.destroy(), 10000);
            sock.on('connect', () => {
              sock.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${agent.port}\r\n`);
              const pump = () => {
                while (sent < 32 << 20 && !sock.destroyed && !chunks.length) {
                  sent += block.length;
                  if (!sock.write(block)) {
                    sock.once('drain', pump);
                    return;
                  }
                }
              };
              pump();
            });
            sock.on('data', (d) => {
              chunks.push(d);
              sock.end();
            });
            sock.on('error', () => {});
            sock.on('close', () => {
              clearTimeout(timer);
              resolve({ text: Buffer.concat(chunks).toString('latin1'), sent });
            });
          }),
      ),
    );
    for (const r of results) {
      // The flooding client may lose the 431 to the reset that follows (it is still writing when the agent
      // closes); when it did read an answer, that answer is 431.
      if (r.text) assert.match(r.text, /^HTTP\/1\.1 431 /);
      assert.ok(r.sent < 32 << 20, `the agent closed the connection before the flood ended (${r.sent} bytes sent)`);
    }
    const grown = rssKiB(agent.proc.pid) - before;
    assert.ok(grown < 16 * 1024, `RSS grew by ${grown} KiB`);
    assert.equal((await timed(agent, '/healthz')).status, 200);
  });

  test('8 connections dripping a byte every 500 ms get 408 at the request deadline; /healthz meanwhile < 100 ms', async () => {
    const drips = [];
    for (let i = 0; i < 8; ++i) {
      drips.push(
        new Promise((resolve) => {
          const sock = net.connect(agent.port, '127.0.0.1');
          const text = `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${agent.port}\r\nX-Slow: ${'b'.repeat(100)}\r\n\r\n`;
          let at = 0;
          const chunks = [];
          const t0 = Date.now();
          const iv = setInterval(() => {
            if (at < text.length && !sock.destroyed) sock.write(text[at++]);
          }, 500);
          const timer = setTimeout(() => sock.destroy(), 10000);
          sock.on('data', (d) => chunks.push(d));
          sock.on('error', () => {});
          sock.on('close', () => {
            clearInterval(iv);
            clearTimeout(timer);
            resolve({ text: Buffer.concat(chunks).toString('latin1'), ms: Date.now() - t0 });
          });
        }),
      );
    }
    await sleep(300);
    for (let i = 0; i < 5; ++i) {
      const h = await timed(agent, '/healthz');
      assert.equal(h.status, 200);
      // Before the connection budget a dripping client held a worker and /healthz waited 60 s. The speed
      // target (< 100 ms) is measured by the soak script; here: answered, not starved.
      console.log(`# /healthz beside 8 dripping clients: ${h.ms.toFixed(1)} ms`);
      assert.ok(h.ms < 2000, `/healthz took ${h.ms.toFixed(1)} ms`);
      await sleep(200);
    }
    for (const d of await Promise.all(drips)) {
      assert.match(d.text, /^HTTP\/1\.1 408 /);
      assert.ok(d.ms >= 2500 && d.ms < 6000, `closed after ${d.ms} ms (deadline 3 s)`);
    }
  });

  test('with 64 progress streams and 64 idle connections open, health, status and cancel are answered', async () => {
    // A run that lasts a few seconds: many states, each sampled for a while.
    const r = await postRun(agent, { benchmark: 'aos_soa', params: LONG });
    assert.equal(r.status, 202, await r.clone().text());
    const { id } = await r.json();
    const ctl = new AbortController();
    const streams = await Promise.all(
      Array.from({ length: 64 }, () => agent.fetch(`/v1/runs/${id}/events`, { signal: ctl.signal })),
    );
    const idle = await Promise.all(Array.from({ length: 64 }, () => idleConnection(agent.port)));
    try {
      for (const s of streams) assert.equal(s.status, 200);
      await sleep(200);
      const worst = {};
      for (let i = 0; i < 10; ++i) {
        for (const p of ['/healthz', `/v1/runs/${id}`, '/v1/runs?limit=5']) {
          const t = await timed(agent, p);
          assert.equal(t.status, 200, p);
          worst[p] = Math.max(worst[p] || 0, t.ms);
        }
      }
      const del = await timed(agent, `/v1/runs/${id}`, { method: 'DELETE' });
      assert.ok([200, 202].includes(del.status), `DELETE -> ${del.status}`);
      worst.DELETE = del.ms;
      // Before, eight streams froze every route for the rest of the run (60 s+). The 100 ms target is a speed
      // figure printed here and measured in the soak; the test asserts that nothing is starved.
      console.log(`# worst answer beside 64 streams + 64 idle connections: ${JSON.stringify(worst)}`);
      for (const [p, ms] of Object.entries(worst)) assert.ok(ms < 2000, `${p}: worst ${ms.toFixed(1)} ms`);
      assert.equal((await waitRun(agent, id, 20000)).status, 'cancelled');
    } finally {
      ctl.abort();
      for (const s of idle) s.destroy();
    }
  });

  test('past --max-streams a stream gets 503 with Retry-After', async () => {
    const a = await startAgent(['--max-streams', '2']);
    try {
      const r = await postRun(a, QUICK);
      const { id } = await r.json();
      await waitRun(a, id);
      // A finished run's stream sends its end event and closes; hold two slots with a run in progress instead.
      const long = await postRun(a, { benchmark: 'aos_soa', params: LONG });
      const longId = (await long.json()).id;
      const ctl = new AbortController();
      const held = await Promise.all([0, 1].map(() => a.fetch(`/v1/runs/${longId}/events`, { signal: ctl.signal })));
      assert.deepEqual(
        held.map((h) => h.status),
        [200, 200],
      );
      const third = await a.fetch(`/v1/runs/${longId}/events`);
      assert.equal(third.status, 503);
      assert.equal(third.headers.get('retry-after'), '5');
      assert.equal((await third.json()).error.code, 'too_many_streams');
      ctl.abort();
      await a.fetch(`/v1/runs/${longId}`, { method: 'DELETE' });
    } finally {
      await a.stop();
    }
  });
});

describe('listener', () => {
  test('a second agent on the same port exits 2 with "port in use"', async () => {
    const a = await startAgent();
    try {
      const dir = tempDir();
      const r = spawnSync(
        agentBin,
        [
          '--port',
          String(a.port),
          '--backend',
          'cpu',
          '--results-dir',
          path.join(dir, 'r'),
          '--token-file',
          path.join(dir, 't'),
        ],
        { encoding: 'utf8', timeout: 10000 },
      );
      fs.rmSync(dir, { recursive: true, force: true });
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, /port in use/);
      // and no request went astray: all 20 answered by the first agent (its token works on each)
      for (let i = 0; i < 20; ++i) assert.equal((await a.fetch('/v1/devices')).status, 200);
    } finally {
      await a.stop();
    }
  });

  test('--host 127.0.0.2 accepts its own printed URL', async () => {
    const a = await startAgent(['--host', '127.0.0.2']);
    try {
      assert.match(a.url, /^http:\/\/127\.0\.0\.2:\d+\//);
      const r = await fetch(`${a.base}/v1/devices`, { headers: a.auth });
      assert.equal(r.status, 200);
    } finally {
      await a.stop();
    }
  });

  test("the listen backlog is 1024, not cpp-httplib's 5 (ss shows a listener's backlog as its Send-Q)", async () => {
    const a = await startAgent();
    try {
      const ss = spawnSync('ss', ['-Hltn', `sport = :${a.port}`], { encoding: 'utf8' });
      assert.equal(ss.status, 0, `ss (iproute2) runs: ${ss.stderr}`);
      const [state, , sendQ] = ss.stdout.trim().split(/\s+/);
      assert.equal(state, 'LISTEN');
      assert.equal(Number(sendQ), 1024);
    } finally {
      await a.stop();
    }
  });
});

function record(id, extra = {}) {
  return {
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
    result: null,
    ...extra,
  };
}

describe('results folder', () => {
  test('a directory named x.json, 200,000-level nesting, missing fields, a stale temp file: skipped, listed in /readyz, the rest served', async () => {
    const dir = tempDir();
    const results = path.join(dir, 'results');
    fs.mkdirSync(results);
    fs.mkdirSync(path.join(results, 'x.json'));
    fs.writeFileSync(path.join(results, 'deep.json'), '['.repeat(200000) + ']'.repeat(200000));
    fs.writeFileSync(path.join(results, 'missing.json'), JSON.stringify({ id: 'missing', status: 'succeeded' }));
    fs.writeFileSync(path.join(results, '.20260101T000000Z-00000001.json.tmp'), '{"half":');
    const good = '20260101T000000Z-0000000a';
    fs.writeFileSync(path.join(results, `${good}.json`), JSON.stringify(record(good)));
    const a = await startAgent([], { dir });
    try {
      const ready = await (await fetch(`${a.base}/readyz`)).json();
      const skipped = ready.skipped_records.join('\n');
      for (const name of ['x.json', 'deep.json', 'missing.json'])
        assert.match(skipped, new RegExp(name.replace('.', '\\.')));
      assert.equal(ready.skipped_records.length, 3);
      assert.ok(!fs.existsSync(path.join(results, '.20260101T000000Z-00000001.json.tmp')), 'stale temp file removed');
      const list = await (await a.fetch('/v1/runs')).json();
      assert.deepEqual(
        list.runs.map((r) => r.id),
        [good],
      );
      const events = await (await a.fetch(`/v1/runs/${good}/events`)).text();
      const data = /^data: (.*)$/m.exec(events)[1];
      assert.equal(JSON.parse(data).status, 'succeeded', 'the stream sends valid JSON');
    } finally {
      await a.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a planted link at the temporary name is not followed: its target keeps its bytes', async () => {
    const dir = tempDir();
    const results = path.join(dir, 'results');
    fs.mkdirSync(results);
    const victim = path.join(dir, 'precious.txt');
    fs.writeFileSync(victim, 'precious');
    const id = '20260101T000000Z-0000000b';
    // A run that was running when the agent stopped: start-up rewrites it as interrupted.
    fs.writeFileSync(
      path.join(results, `${id}.json`),
      JSON.stringify(record(id, { status: 'running', finished_at: null })),
    );
    fs.symlinkSync(victim, path.join(results, `.${id}.json.tmp`));
    const a = await startAgent([], { dir });
    try {
      assert.equal(fs.readFileSync(victim, 'utf8'), 'precious');
      assert.ok(!fs.lstatSync(path.join(results, `${id}.json`)).isSymbolicLink());
      const rec = await (await a.fetch(`/v1/runs/${id}`)).json();
      assert.equal(rec.status, 'interrupted');
    } finally {
      await a.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('history is paginated: limit and after walk every run once, in order', async () => {
    const dir = tempDir();
    const results = path.join(dir, 'results');
    fs.mkdirSync(results);
    const ids = Array.from({ length: 7 }, (_, i) => `20260101T00000${i}Z-0000000c`);
    for (const id of ids) fs.writeFileSync(path.join(results, `${id}.json`), JSON.stringify(record(id)));
    const a = await startAgent([], { dir });
    try {
      const seen = [];
      let after = '';
      for (let page = 0; page < 10; ++page) {
        const body = await (await a.fetch(`/v1/runs?limit=3${after ? `&after=${after}` : ''}`)).json();
        assert.ok(body.runs.length <= 3);
        seen.push(...body.runs.map((r) => r.id));
        if (!body.next) break;
        after = body.next;
      }
      assert.deepEqual(seen, ids);
      for (const bad of ['0', '1001', 'x', '-1', '0x10']) {
        const r = await a.fetch(`/v1/runs?limit=${bad}`);
        assert.equal(r.status, 422, bad);
        assert.equal((await r.json()).error.field, 'limit');
      }
      // A finished record is read from its file when asked for (not held in memory).
      const edited = record(ids[0], { message: 'edited on disk' });
      fs.writeFileSync(path.join(results, `${ids[0]}.json`), JSON.stringify(edited));
      assert.equal((await (await a.fetch(`/v1/runs/${ids[0]}`)).json()).message, 'edited on disk');
    } finally {
      await a.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('CSV cells from a stored record that start with = + - @ are neutralised; rows carry run id, time and schema version', async () => {
    const dir = tempDir();
    let a = await startAgent([], { dir });
    let id;
    try {
      const r = await postRun(a, QUICK);
      id = (await r.json()).id;
      assert.equal((await waitRun(a, id)).status, 'succeeded');
    } finally {
      await a.stop();
    }
    const file = path.join(dir, 'results', `${id}.json`);
    const rec = JSON.parse(fs.readFileSync(file, 'utf8'));
    rec.result.devices[0].name = '=HYPERLINK("http://evil.example","x")';
    fs.writeFileSync(file, JSON.stringify(rec));
    a = await startAgent([], { dir });
    try {
      const csv = await (await a.fetch(`/v1/runs/${id}?format=csv`)).text();
      const [header, row] = csv.trim().split('\n');
      assert.match(header, /^run_id,finished_at,schema_version,/);
      assert.ok(row.startsWith(`${id},${rec.result.meta.finished_at},${rec.result.schema_version},`), row);
      assert.ok(row.includes(`"'=HYPERLINK(""http://evil.example"",""x"")"`), row);
    } finally {
      await a.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a new submission right after a run reads "succeeded" is accepted (no 409)', async () => {
    const a = await startAgent();
    try {
      for (let i = 0; i < 5; ++i) {
        const { id } = await (await postRun(a, QUICK)).json();
        for (let t = 0; t < 2000; ++t) {
          const rec = await (await a.fetch(`/v1/runs/${id}`)).json();
          if (rec.status === 'succeeded') break;
        }
        const next = await postRun(a, QUICK);
        assert.equal(next.status, 202, `round ${i}: ${await next.clone().text()}`);
        await waitRun(a, (await next.json()).id);
      }
    } finally {
      await a.stop();
    }
  });

  test('a slow CPU sample is not labelled "throttled" when nothing was dropped', async () => {
    const a = await startAgent();
    try {
      const { id } = await (
        await postRun(a, {
          benchmark: 'aos_soa',
          params: {
            n: 1 << 20,
            touch_fields: [4],
            layouts: ['aos'],
            min_samples: 5,
            max_samples: 10,
            max_time_s: 0,
            warmup: 0,
          },
        })
      ).json();
      const rec = await waitRun(a, id);
      assert.equal(rec.status, 'succeeded', rec.error);
      const sampling = rec.result.benchmarks[0].states[0].sampling;
      assert.equal(sampling.throttled_samples_dropped, 0);
      assert.equal(sampling.stop_reason, 'time_limit');
    } finally {
      await a.stop();
    }
  });
});

describe('static files (--web)', () => {
  let agent;
  let web;
  const files = {};
  before(async () => {
    web = tempDir();
    fs.mkdirSync(path.join(web, 'assets'));
    const put = (name, body) => {
      fs.writeFileSync(path.join(web, name), body);
      files[name] = Buffer.from(body);
    };
    put('index.html', '<!doctype html><title>t</title>');
    put('index.html.gz', 'GZ-OF-INDEX');
    put('assets/app-1a2b3c4d.js', 'console.log(1)');
    put('assets/app-1a2b3c4d.js.br', 'BR-BYTES');
    put('assets/app-1a2b3c4d.js.gz', 'GZ-BYTES');
    put('assets/engine-0f0f0f0f.wasm', '\0asm');
    put('assets/engine-0f0f0f0f.wasm.br', 'WASM-BR');
    put('.env', 'SECRET=1');
    fs.mkdirSync(path.join(web, '.git'));
    put('.git/config', 'secret');
    fs.symlinkSync('/etc/passwd', path.join(web, 'passwd'));
    fs.symlinkSync('/etc', path.join(web, 'etc'));
    fs.symlinkSync(path.join(web, 'index.html'), path.join(web, 'inner-link.html'));
    agent = await startAgent(['--web', web]);
  });
  after(async () => {
    await agent.stop();
    fs.rmSync(web, { recursive: true, force: true });
  });

  function get(p, acceptEncoding) {
    const headers = { Host: `127.0.0.1:${agent.port}` };
    if (acceptEncoding !== undefined) headers['Accept-Encoding'] = acceptEncoding;
    return rawRequest(agent.port, rawHttp('GET', p, headers));
  }

  test('links (out of the folder or not), dotfiles and dot-folders are 404', async () => {
    for (const p of [
      '/passwd',
      '/etc/passwd',
      '/inner-link.html',
      '/.env',
      '/.git/config',
      '/assets/../.env',
      '/%2e%2e/%2e%2e/etc/passwd',
    ]) {
      const r = await get(p);
      assert.equal(r.status, 404, p);
      assert.ok(!r.body.includes('root:') && !r.body.includes('SECRET'), p);
    }
  });

  test('a precompressed variant is sent as-is with Content-Encoding when accepted; content-hashed assets are immutable', async () => {
    const cases = [
      ['br, gzip', 'br', 'BR-BYTES'],
      ['gzip', 'gzip', 'GZ-BYTES'],
      ['gzip;q=0, br;q=0', undefined, 'console.log(1)'],
      [undefined, undefined, 'console.log(1)'],
    ];
    for (const [accept, encoding, body] of cases) {
      const r = await get('/assets/app-1a2b3c4d.js', accept);
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-encoding'], encoding, String(accept));
      assert.equal(r.body, body, String(accept));
      assert.match(r.headers['content-type'], /^text\/javascript/);
      assert.equal(r.headers['cache-control'], 'public, max-age=31536000, immutable');
      assert.match(r.headers.vary, /Accept-Encoding/);
    }
    const wasm = await get('/assets/engine-0f0f0f0f.wasm', 'gzip, deflate, br');
    assert.equal(wasm.headers['content-encoding'], 'br');
    assert.equal(wasm.headers['content-type'], 'application/wasm');
    assert.equal(wasm.body, 'WASM-BR');
  });

  test('HTML is no-cache (gzip variant when brotli has none); nothing is compressed per request', async () => {
    const html = await get('/', 'br, gzip');
    assert.equal(html.status, 200);
    assert.equal(html.headers['cache-control'], 'no-cache');
    assert.equal(html.headers['content-encoding'], 'gzip');
    assert.equal(html.body, 'GZ-OF-INDEX');
    const api = await rawRequest(
      agent.port,
      rawHttp('GET', '/v1/benchmarks', {
        Host: `127.0.0.1:${agent.port}`,
        Authorization: `Bearer ${agent.token}`,
        'Accept-Encoding': 'br, gzip',
      }),
    );
    assert.equal(api.status, 200);
    assert.equal(api.headers['content-encoding'], undefined);
    assert.equal(api.headers['cache-control'], 'no-store');
    JSON.parse(api.body);
  });
});

describe('requests', () => {
  let agent;
  before(async () => {
    agent = await startAgent();
  });
  after(async () => {
    await agent.stop();
  });
  const host = () => `127.0.0.1:${agent.port}`;

  test('two Host headers -> 400', async () => {
    const raw = Buffer.from(`GET /healthz HTTP/1.1\r\nHost: ${host()}\r\nHost: evil.example\r\n\r\n`);
    const r = await rawRequest(agent.port, raw);
    assert.equal(r.status, 400);
    assert.equal(JSON.parse(r.body).error.code, 'duplicate_host');
  });

  test('PUT with a non-JSON type -> 405 (before 415), with Allow', async () => {
    const r = await agent.fetch('/v1/runs', { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: 'x' });
    assert.equal(r.status, 405);
    assert.match(r.headers.get('allow'), /POST/);
  });

  test('a UTF-8 byte order mark -> 400', async () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(QUICK))]);
    const r = await agent.fetch('/v1/runs', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    assert.equal(r.status, 400);
    assert.match((await r.json()).error.message, /byte order mark/);
  });

  test('a duplicate key -> 422 naming the key, at any depth', async () => {
    for (const [text, key] of [
      ['{"benchmark":"aos_soa","benchmark":"transpose"}', 'benchmark'],
      ['{"benchmark":"aos_soa","params":{"n":1024,"warmup":0,"n":2048}}', 'n'],
    ]) {
      const r = await agent.fetch('/v1/runs', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: text,
      });
      assert.equal(r.status, 422, text);
      const e = (await r.json()).error;
      assert.equal(e.field, key);
      assert.match(e.message, new RegExp(`'${key}'`));
    }
    // the same key in two different objects is fine
    const ok = await postRun(agent, { benchmark: 'aos_soa', params: { ...QUICK.params } });
    assert.equal(ok.status, 202);
    await waitRun(agent, (await ok.json()).id);
  });

  test('control bytes and URL-decoded paths are escaped in the log', async () => {
    await rawRequest(agent.port, rawHttp('GET', '/x%0aGET%20/forged%20200%0d%1b[31m', { Host: host() }));
    await sleep(100);
    const log = agent.stderr;
    assert.ok(!log.includes('\x1b'), 'no raw ESC in the log');
    assert.ok(!/^GET \/forged 200/m.test(log), 'no forged line');
    assert.match(log, /GET \/x\\x0aGET \/forged 200\\x0d\\x1b\[31m 404/);
  });
});

describe('options', () => {
  const run = (...args) => {
    const dir = tempDir();
    const r = spawnSync(
      agentBin,
      [...args, '--token-file', path.join(dir, 't'), '--results-dir', path.join(dir, 'r')],
      { encoding: 'utf8', timeout: 5000 },
    );
    fs.rmSync(dir, { recursive: true, force: true });
    return r;
  };
  for (const [args, pattern] of [
    [['--port', '0x50'], /--port/],
    [['--port', '010'], null],
    [['--port', '70000'], /--port/],
    [['--port', '-1'], /--port/],
    [['--threads', '1'], /--threads/],
    [['--read-timeout', '1e3'], /--read-timeout/],
    [['--bogus'], /--bogus/],
    [['--port'], /--port/],
    [['--backend', 'gpu'], /--backend/],
  ]) {
    test(`${args.join(' ')} -> exit 2${pattern ? ` naming ${pattern.source}` : ''}`, () => {
      const r = run(...args, '--version');
      if (pattern === null) {
        // leading zeros are still decimal: 010 is ten, accepted
        assert.equal(r.status, 0, r.stderr);
        return;
      }
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, pattern);
    });
  }
});
