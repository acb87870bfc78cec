// Cancelling a run stops its work within a second, in every long step of a convert on the CPU backend. A convert
// whose source spans 16 times the elements it reads (the most the request bounds allow) spends its first
// seconds filling that span with input; a large transpose spends seconds verifying its destination. A DELETE
// in either step must end the run (status "cancelled") within 1 s, and the agent must take the next run on the
// same device.
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

// A DELETE once the run's message says it reached a step (`phase` matches the message), 150 ms into it; the
// run must end "cancelled" within 1 s and the device take the next run.
async function cancelDuring(params, phase) {
  const r = await postRun(agent, { benchmark: 'convert', params });
  assert.equal(r.status, 202, await r.clone().text());
  const { id } = await r.json();
  const t = performance.now();
  for (;;) {
    const rec = await (await agent.fetch(`/v1/runs/${id}`)).json();
    if (rec.status === 'running' && phase(rec.message)) break;
    assert.ok(['queued', 'running'].includes(rec.status), `run ${rec.status} before the step: ${rec.error}`);
    assert.ok(performance.now() - t < 120000, `the run never reached the step (message ${rec.message})`);
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
    assert.ok(performance.now() - t0 < 120000, 'the run never ended');
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
}

// A transpose of 2^26 u8 elements (64 MiB each side, 256 MiB with the ceiling buffers): its fill and ceilings
// take a few seconds, then the case (message "case0") runs the plan on the host element by element and
// verifies all 2^26 destination elements through both layouts (message "case0: verify"), seconds each.
const TRANSPOSE = { shape: [8192, 8192], perm: [1, 0], dtype: 'u8', repetitions: 1, warmup: 0 };

// Twice that transpose (2^27 u8 elements, 384 MiB with the ceiling buffers, within the CPU backend's 512 MiB):
// its host execution of the plan (message "case0", before "case0: verify") takes seconds.
const WIDE_TRANSPOSE = { ...TRANSPOSE, shape: [8192, 16384] };

describe('cancel', () => {
  test('a DELETE during the input fill of a convert with a 402 MB source ends the run within 1 s', async () => {
    await cancelDuring(BIG_SPAN, (m) => m === 'starting');
  });

  test('a DELETE during the verification of a 2^26-element transpose ends the run within 1 s', async () => {
    await cancelDuring(TRANSPOSE, (m) => m === 'case0: verify');
  });

  // the plan's host execution (execute_convert_host) asks the run's control every 2^20 elements moved
  test('a DELETE during the host execution of a 2^27-element transpose ends the run within 1 s', async () => {
    await cancelDuring(WIDE_TRANSPOSE, (m) => m === 'case0');
  });
});
