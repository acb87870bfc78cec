// Cancelling a run stops its work within a second, even in the longest step before the first sample. A convert
// whose source spans 16 times the elements it reads (the most the request bounds allow) spends its first
// seconds filling that span with input on the CPU backend; a DELETE then must end the run (status
// "cancelled") within 1 s, and the agent must take the next run on the same device.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { postRun, startAgent, waitRun } from './lib/agent.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let agent;
before(async () => {
  agent = await startAgent();
});
after(async () => {
  await agent.stop();
});

// n u8 elements read with stride 16: the source spans 16 (n - 1) + 1 elements (402 MB at n = 1.5 x 2^24),
// within the 16x span bound; source + destination + the two ceiling buffers = 478 MB, within the CPU
// backend's 512 MiB.
const n = 3 << 23;
const BIG_SPAN = {
  src: `S[${n}:16]`,
  dst: `S[${n}:1]`,
  shape: [n],
  dtype: 'u8',
  repetitions: 1,
  warmup: 0,
};

describe('cancel', () => {
  test('a DELETE during the input fill of a convert with a 402 MB source ends the run within 1 s', async () => {
    const r = await postRun(agent, { benchmark: 'convert', params: BIG_SPAN });
    assert.equal(r.status, 202, await r.clone().text());
    const { id } = await r.json();
    // Wait until the worker has the run (the buffers are allocated and filled first), then a little more.
    for (let i = 0; ; ++i) {
      const rec = await (await agent.fetch(`/v1/runs/${id}`)).json();
      if (rec.status === 'running') break;
      assert.ok(i < 400, `run still ${rec.status}`);
      await sleep(10);
    }
    await sleep(150);
    const t0 = performance.now();
    const del = await agent.fetch(`/v1/runs/${id}`, { method: 'DELETE' });
    assert.ok([200, 202].includes(del.status), `DELETE -> ${del.status}`);
    let rec;
    for (;;) {
      rec = await (await agent.fetch(`/v1/runs/${id}`)).json();
      if (['succeeded', 'failed', 'cancelled', 'interrupted'].includes(rec.status)) break;
      assert.ok(performance.now() - t0 < 60000, 'the run never ended');
      await sleep(10);
    }
    const ms = performance.now() - t0;
    console.log(`# DELETE to "${rec.status}": ${ms.toFixed(0)} ms`);
    assert.equal(rec.status, 'cancelled', rec.error);
    assert.ok(ms < 1000, `the run ended ${ms.toFixed(0)} ms after the DELETE`);
    // The device is free again: a small run is accepted and succeeds.
    const next = await postRun(agent, {
      benchmark: 'convert',
      params: { shape: [16, 8], perm: [1, 0], dtype: 'f32', repetitions: 1, warmup: 0 },
    });
    assert.equal(next.status, 202, await next.clone().text());
    assert.equal((await waitRun(agent, (await next.json()).id)).status, 'succeeded');
  });
});
