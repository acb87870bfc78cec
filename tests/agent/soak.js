// Soak test of layoutscope-agent: many concurrent clients mixing every endpoint against one agent (CPU
// backend, its own free port and folder), no new runs. Targets: 0 failed requests, /healthz p99 <= 50 ms and
// max <= 200 ms, RSS flat within 10% from the end of the warm-up (the first 10% of requests) to the end, and
// within 5% from the end of the first of --phases equal phases after the warm-up to the end of the last.
//
//   node tests/agent/soak.js                                            # full: 1,000 clients, 100,000 requests
//   node tests/agent/soak.js --clients 1000 --requests 60000 --phases 3 # clients and phases given
//   node tests/agent/soak.js --clients 200 --requests 6000 --rate 400   # the short form run.sh runs
//
// Each client opens a new connection per request (the agent closes after every answer) and waits a random
// think time between requests, so that the offered load is --rate requests/s in total: a closed loop of
// 1,000 clients without think time measures only the queue length (latency = clients / throughput).
// Prints one JSON line of figures; exits 1 when a target is missed.
import fs from 'node:fs';
import net from 'node:net';

import { postRun, startAgent, waitRun } from './lib/agent.js';

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

function rssKiB(pid) {
  return Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
}

// CPU seconds (user + system) a process has used, from /proc/PID/stat (clock ticks of 1/100 s).
function cpuSeconds(pid) {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

function quantile(sorted, q) {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

// One request on a fresh raw connection (the agent answers and closes); resolves { status, ms } or
// { error, ms }. Raw sockets keep the client's own CPU per request low: on a 2-core machine the client shares
// the cores with the agent, and its overhead would otherwise be measured as the agent's latency.
function request(port, host, { method = 'GET', path, headers = {}, body }) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    let head = `${method} ${path} HTTP/1.1\r\n`;
    for (const [k, v] of Object.entries({ Host: host, ...headers })) head += `${k}: ${v}\r\n`;
    if (body) head += `Content-Length: ${Buffer.byteLength(body)}\r\n`;
    const sock = net.connect(port, '127.0.0.1');
    let first = null;
    let done = false;
    const finish = (r) => {
      if (!done) {
        done = true;
        clearTimeout(timer);
        sock.destroy();
        resolve({ ...r, ms: performance.now() - t0 });
      }
    };
    const timer = setTimeout(() => finish({ error: 'timeout' }), 10000);
    sock.on('connect', () => sock.write(head + '\r\n' + (body || '')));
    sock.on('data', (d) => {
      if (!first) first = d;
    });
    sock.on('end', () => {
      const m = first && /^HTTP\/1\.1 (\d{3}) /.exec(first.toString('latin1', 0, 16));
      finish(m ? { status: Number(m[1]) } : { error: 'no status line' });
    });
    sock.on('error', (e) => finish({ error: e.code || e.message }));
  });
}

export async function soak({ clients = 1000, requests = 100000, rate = 1500, phases = 3 } = {}) {
  const agent = await startAgent([]);
  try {
    // One finished run for the run routes to read; none is started during the soak.
    const { id } = await (
      await postRun(agent, {
        benchmark: 'aos_soa',
        params: { n: 4096, touch_fields: [1, 2], layouts: ['aos', 'soa'], min_samples: 3, max_samples: 5, warmup: 0 },
      })
    ).json();
    const done = await waitRun(agent, id);
    if (done.status !== 'succeeded') throw new Error(`the seed run ${done.status}`);
    const host = `127.0.0.1:${agent.port}`;
    const auth = { Authorization: `Bearer ${agent.token}` };
    const json = { ...auth, 'Content-Type': 'application/json' };
    // [weight, request, expected status]: every endpoint, the refusals too (a refusal is its right answer).
    const mix = [
      [20, { path: '/healthz' }, 200],
      [5, { path: '/readyz' }, 200],
      [5, { path: '/version' }, 200],
      [3, { path: '/openapi.json' }, 200],
      [5, { path: '/', headers: { 'Accept-Encoding': 'br, gzip' } }, 200],
      [8, { path: '/v1/devices', headers: auth }, 200],
      [8, { path: '/v1/benchmarks', headers: auth }, 200],
      [10, { path: '/v1/runs?limit=10', headers: auth }, 200],
      [10, { path: `/v1/runs/${id}`, headers: auth }, 200],
      [5, { path: `/v1/runs/${id}?format=csv`, headers: auth }, 200],
      [5, { path: `/v1/runs/${id}/events`, headers: auth }, 200],
      [4, { method: 'DELETE', path: `/v1/runs/${id}`, headers: auth }, 409],
      // 409 is also a right answer: a request holds the device while it is checked, and these overlap.
      [
        4,
        { method: 'POST', path: '/v1/runs', headers: json, body: '{"benchmark":"aos_soa","params":{"n":0}}' },
        [422, 409],
      ],
      [3, { path: '/v1/runs' }, 401],
      [3, { path: '/healthz', headers: { Host: 'evil.example' } }, 403],
    ];
    const total = mix.reduce((s, m) => s + m[0], 0);
    const pick = () => {
      let x = Math.random() * total;
      for (const m of mix) if ((x -= m[0]) < 0) return m;
      return mix[0];
    };

    let issued = 0;
    let failed = 0;
    const failures = {};
    const healthz = [];
    const all = [];
    const warmAt = Math.floor(requests / 10);
    let rssWarm = 0;
    let rssMax = 0;
    // RSS at the end of each phase: the requests after the warm-up in `phases` equal parts
    const phaseEnds = Array.from({ length: phases }, (_, k) =>
      Math.floor(warmAt + ((k + 1) * (requests - warmAt)) / phases),
    );
    const rssPhases = [];
    const think = (clients / rate) * 1000; // mean ms between one client's requests
    const t0 = performance.now();
    const agentCpu0 = cpuSeconds(agent.proc.pid);
    const clientCpu0 = process.cpuUsage();
    const sampler = setInterval(() => {
      rssMax = Math.max(rssMax, rssKiB(agent.proc.pid));
    }, 250);
    async function client() {
      await new Promise((r) => setTimeout(r, Math.random() * think));
      while (issued < requests) {
        const n = ++issued;
        if (n === warmAt) rssWarm = rssKiB(agent.proc.pid);
        if (phaseEnds.includes(n)) rssPhases.push(rssKiB(agent.proc.pid));
        const [, req, expect] = pick();
        const r = await request(agent.port, host, req);
        all.push(r.ms);
        if (req.path === '/healthz' && !req.headers) healthz.push(r.ms);
        if (r.error || ![expect].flat().includes(r.status)) {
          ++failed;
          const key = `${req.method || 'GET'} ${req.path} -> ${r.error || r.status}`;
          failures[key] = (failures[key] || 0) + 1;
        }
        await new Promise((res) => setTimeout(res, Math.random() * 2 * think));
      }
    }
    await Promise.all(Array.from({ length: clients }, client));
    clearInterval(sampler);
    const seconds = (performance.now() - t0) / 1000;
    const rssEnd = rssKiB(agent.proc.pid);
    const agentCpu = cpuSeconds(agent.proc.pid) - agentCpu0;
    const clientCpu = process.cpuUsage(clientCpu0);
    healthz.sort((a, b) => a - b);
    all.sort((a, b) => a - b);
    const runs = await (await agent.fetch('/v1/runs')).json();
    const figures = {
      clients,
      requests: issued,
      seconds: Number(seconds.toFixed(1)),
      rate_per_s: Math.round(issued / seconds),
      failed,
      failures,
      healthz: {
        count: healthz.length,
        p50_ms: +quantile(healthz, 0.5).toFixed(2),
        p99_ms: +quantile(healthz, 0.99).toFixed(2),
        max_ms: +healthz.at(-1).toFixed(2),
      },
      all: {
        p50_ms: +quantile(all, 0.5).toFixed(2),
        p99_ms: +quantile(all, 0.99).toFixed(2),
        max_ms: +all.at(-1).toFixed(2),
      },
      rss_kib: {
        warm: rssWarm,
        end: rssEnd,
        max: rssMax,
        change: +((rssEnd - rssWarm) / rssWarm).toFixed(3),
        phases: rssPhases,
        phase_growth: rssPhases.length > 1 ? +((rssPhases.at(-1) - rssPhases[0]) / rssPhases[0]).toFixed(3) : 0,
      },
      runs_after: runs.runs.length,
      cpu_s: { agent: +agentCpu.toFixed(1), client: +((clientCpu.user + clientCpu.system) / 1e6).toFixed(1) },
      load_average: fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
    };
    figures.ok =
      failed === 0 &&
      figures.healthz.p99_ms <= 50 &&
      figures.healthz.max_ms <= 200 &&
      Math.abs(figures.rss_kib.change) <= 0.1 &&
      figures.rss_kib.phase_growth <= 0.05 &&
      figures.runs_after === 1;
    return figures;
  } finally {
    await agent.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const figures = await soak({
    clients: arg('clients', 1000),
    requests: arg('requests', 100000),
    rate: arg('rate', 1000),
    phases: arg('phases', 3),
  });
  console.log(JSON.stringify(figures));
  process.exit(figures.ok ? 0 : 1);
}
