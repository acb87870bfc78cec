// The soak's short form (the full form and its figures: agent/README.md, "Load"): concurrent clients mixing
// every endpoint, no new runs; 0 failed requests, /healthz p99 <= 50 ms and max <= 200 ms, RSS flat within 10%.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { soak } from './soak.js';

test('soak (short form): 200 clients, 6,000 requests at 400/s', { timeout: 60000 }, async () => {
  const f = await soak({ clients: 200, requests: 6000, rate: 400 });
  console.log(JSON.stringify(f));
  assert.equal(f.failed, 0, JSON.stringify(f.failures));
  assert.ok(f.healthz.p99_ms <= 50, `/healthz p99 ${f.healthz.p99_ms} ms`);
  assert.ok(f.healthz.max_ms <= 200, `/healthz max ${f.healthz.max_ms} ms`);
  assert.ok(Math.abs(f.rss_kib.change) <= 0.1, `RSS ${f.rss_kib.warm} -> ${f.rss_kib.end} KiB`);
  assert.equal(f.runs_after, 1, 'no new runs');
});
