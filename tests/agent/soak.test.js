// The soak's short form (the full form and its figures: agent/README.md, "Load"): concurrent clients mixing
// every endpoint, no new runs; 0 failed requests, RSS flat within 10%, /healthz never starved (< 2 s). The
// latency targets (p99 <= 50 ms, max <= 200 ms) are speed figures: printed here, measured by the full soak on an
// idle machine (`node tests/agent/soak.js`).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { soak } from './soak.js';

test('soak (short form): 200 clients, 6,000 requests at 400/s', { timeout: 60000 }, async () => {
  const f = await soak({ clients: 200, requests: 6000, rate: 400 });
  console.log(JSON.stringify(f));
  assert.equal(f.failed, 0, JSON.stringify(f.failures));
  console.log(`# /healthz p50 ${f.healthz.p50_ms} ms, p99 ${f.healthz.p99_ms} ms, max ${f.healthz.max_ms} ms`);
  assert.ok(f.healthz.max_ms < 2000, `/healthz max ${f.healthz.max_ms} ms`);
  assert.ok(Math.abs(f.rss_kib.change) <= 0.1, `RSS ${f.rss_kib.warm} -> ${f.rss_kib.end} KiB`);
  assert.equal(f.runs_after, 1, 'no new runs');
});
