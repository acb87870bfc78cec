// Requests the request fuzz target (tests/fuzz/request_fuzz.cpp) found answered wrongly, as the agent answers
// them over HTTP now: each a 422 whose error names a field the client can point at.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { postRun, sharedAgent } from './lib/agent.js';

let agent;
before(async () => {
  agent = await sharedAgent();
});
after(async () => {
  await agent.stop();
});

describe('request fuzz findings', () => {
  test('an empty top-level key -> 422 naming the body (it named no field)', async () => {
    const r = await postRun(agent, { '': { shape: [0, 2, 1, 3], dtype: 'bf16' } });
    assert.equal(r.status, 422);
    const { error } = await r.json();
    assert.equal(error.code, 'invalid_parameter');
    assert.equal(error.field, 'body');
    assert.match(error.message, /unknown field ""/);
  });

  test('an unknown top-level key is still named itself', async () => {
    const r = await postRun(agent, { benchmark: 'aos_soa', extra: 1 });
    assert.equal(r.status, 422);
    assert.equal((await r.json()).error.field, 'extra');
  });
});
