// Every answer the agent gives is documented: for each exchange below (every operation, its success and each
// refusal it can meet), the status must be listed under the operation in agent/openapi.json and the body must
// validate against the schema documented for that status and content type (results by $ref to
// schemas/results.schema.json).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

import { postRun, rawHttp, rawRequest, repoRoot, startAgent, waitRun } from './lib/agent.js';

const doc = JSON.parse(fs.readFileSync(path.join(repoRoot, 'agent', 'openapi.json'), 'utf8'));
const results = JSON.parse(fs.readFileSync(path.join(repoRoot, 'schemas', 'results.schema.json'), 'utf8'));

// The document's file references resolved to the results schema's $id, so that one Ajv instance holds both.
function resolveFileRefs(node) {
  if (Array.isArray(node)) return node.map(resolveFileRefs);
  if (node && typeof node === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(node))
      out[k] =
        k === '$ref' && v.startsWith('../schemas/results.schema.json')
          ? v.replace('../schemas/results.schema.json', results.$id)
          : resolveFileRefs(v);
    return out;
  }
  return node;
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(results);
ajv.addSchema({ $id: 'https://layoutscope.invalid/openapi.json', components: resolveFileRefs(doc.components) });

function operation(method, urlPath) {
  const p = urlPath.split('?')[0];
  for (const [template, item] of Object.entries(doc.paths)) {
    const re = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (re.test(p) && item[method]) return { template, op: item[method] };
  }
  return null;
}

function schemaFor(response, contentType) {
  let r = response;
  if (r.$ref) r = doc.components.responses[r.$ref.split('/').pop()];
  const type = Object.keys(r.content || {}).find((t) => contentType.startsWith(t));
  assert.ok(type, `content type ${contentType} documented`);
  return resolveFileRefs(r.content[type].schema);
}

async function check(method, urlPath, { status, headers = {}, body, raw } = {}, agent) {
  let res;
  if (raw) {
    const r = await rawRequest(agent.port, raw);
    res = { status: r.status, type: r.headers['content-type'] || '', text: r.body };
  } else {
    const r = await fetch(agent.base + urlPath, { method: method.toUpperCase(), headers, body });
    res = {
      status: r.status,
      type: r.headers.get('content-type') || '',
      text: method === 'get' && urlPath.endsWith('/events') ? '' : await r.text(),
    };
  }
  if (status) assert.equal(res.status, status, `${method} ${urlPath}: ${res.text.slice(0, 300)}`);
  const found = operation(method, urlPath);
  assert.ok(found, `${method} ${urlPath} is an operation of the document`);
  assert.ok(found.op.operationId, `${method} ${found.template} has an operationId`);
  const response = found.op.responses[String(res.status)];
  assert.ok(response, `${method} ${found.template} documents ${res.status}`);
  if (!res.text) return res;
  const schema = schemaFor(response, res.type);
  if (res.type.startsWith('application/json')) {
    const validate = ajv.compile({
      $ref: schema.$ref ? `https://layoutscope.invalid/openapi.json${schema.$ref}` : undefined,
      ...(schema.$ref ? {} : schema),
    });
    const ok = validate(JSON.parse(res.text));
    assert.ok(ok, `${method} ${urlPath} ${res.status}: ${ajv.errorsText(validate.errors)}`);
  }
  return res;
}

describe('every answer matches the OpenAPI document', () => {
  let agent;
  let auth;
  let id;
  before(async () => {
    agent = await startAgent();
    auth = { Authorization: `Bearer ${agent.token}` };
    const r = await postRun(agent, { benchmark: 'transpose', params: { dim: 40, repetitions: 2 } });
    id = (await r.json()).id;
    assert.equal((await waitRun(agent, id)).status, 'succeeded');
  });
  after(async () => {
    await agent.stop();
  });
  const json = (extra = {}) => ({ ...auth, 'Content-Type': 'application/json', ...extra });
  const host = () => `127.0.0.1:${agent.port}`;

  test('every operation has an operationId, unique', () => {
    const ids = Object.values(doc.paths).flatMap((item) =>
      Object.values(item)
        .filter((o) => o.responses)
        .map((o) => o.operationId),
    );
    assert.ok(ids.every(Boolean));
    assert.equal(new Set(ids).size, ids.length);
  });

  test('successes', async () => {
    await check('get', '/healthz', { status: 200 }, agent);
    await check('get', '/readyz', { status: 200 }, agent);
    await check('get', '/version', { status: 200 }, agent);
    await check('get', '/openapi.json', { status: 200 }, agent);
    await check('get', '/v1/devices', { status: 200, headers: auth }, agent);
    await check('get', '/v1/benchmarks', { status: 200, headers: auth }, agent);
    await check('get', '/v1/runs', { status: 200, headers: auth }, agent);
    await check('get', '/v1/runs?limit=1', { status: 200, headers: auth }, agent);
    await check('get', `/v1/runs/${id}`, { status: 200, headers: auth }, agent); // with its results document
    await check('get', `/v1/runs/${id}?format=csv`, { status: 200, headers: auth }, agent);
    await check('get', `/v1/runs/${id}/events`, { status: 200, headers: auth }, agent);
  });

  test('a run from 202 to cancel, with 409 for the busy device', async () => {
    const long = {
      benchmark: 'aos_soa',
      params: {
        n: 1 << 20,
        touch_fields: [1, 2, 4, 8],
        layouts: ['aos', 'soa'],
        min_samples: 200,
        max_samples: 200,
        warmup: 0,
      },
    };
    const accepted = await check(
      'post',
      '/v1/runs',
      { status: 202, headers: json(), body: JSON.stringify(long) },
      agent,
    );
    const runId = JSON.parse(accepted.text).id;
    await check('post', '/v1/runs', { status: 409, headers: json(), body: JSON.stringify(long) }, agent);
    await check('get', `/v1/runs/${runId}`, { status: 200, headers: auth }, agent);
    const del = await check('delete', `/v1/runs/${runId}`, { headers: auth }, agent);
    assert.ok([200, 202].includes(del.status));
    await waitRun(agent, runId);
    await check('delete', `/v1/runs/${runId}`, { status: 409, headers: auth }, agent);
  });

  test('refusals', async () => {
    await check('get', '/v1/runs', { status: 401 }, agent);
    await check('get', '/healthz', { status: 403, raw: rawHttp('GET', '/healthz', { Host: 'evil.example' }) }, agent);
    await check(
      'get',
      '/healthz',
      { status: 400, raw: Buffer.from(`GET /healthz HTTP/1.1\r\nHost: ${host()}\r\nHost: ${host()}\r\n\r\n`) },
      agent,
    );
    await check('post', '/v1/runs', { status: 400, headers: json(), body: '{"benchmark":' }, agent);
    await check(
      'post',
      '/v1/runs',
      { status: 415, headers: { ...auth, 'Content-Type': 'text/plain' }, body: '{}' },
      agent,
    );
    await check('post', '/v1/runs', { status: 413, headers: json(), body: `{"x":"${'a'.repeat(70000)}"}` }, agent);
    await check(
      'post',
      '/v1/runs',
      {
        status: 411,
        raw: rawHttp(
          'POST',
          '/v1/runs',
          { Host: host(), ...json(), 'Transfer-Encoding': 'chunked' },
          '2\r\n{}\r\n0\r\n\r\n',
        ),
      },
      agent,
    );
    await check(
      'post',
      '/v1/runs',
      { status: 422, headers: json(), body: '{"benchmark":"aos_soa","params":{"n":1}}' },
      agent,
    );
    await check(
      'post',
      '/v1/runs',
      { status: 422, headers: json(), body: '{"benchmark":"aos_soa","benchmark":"aos_soa"}' },
      agent,
    );
    await check('get', '/v1/runs?limit=0', { status: 422, headers: auth }, agent);
    await check('get', `/v1/runs/${id}?format=xml`, { status: 422, headers: auth }, agent);
    await check('get', '/v1/runs/nope', { status: 404, headers: auth }, agent);
    await check('get', '/v1/runs/nope/events', { status: 404, headers: auth }, agent);
    await check('delete', '/v1/runs/nope', { status: 404, headers: auth }, agent);
    const put = await fetch(`${agent.base}/v1/runs`, { method: 'PUT', headers: json(), body: '{}' });
    assert.equal(put.status, 405);
    assert.ok(doc.paths['/v1/runs'].post.responses['405'], '405 documented');
    const big = await rawRequest(
      agent.port,
      Buffer.from(
        `GET /healthz HTTP/1.1\r\nHost: ${host()}\r\nX-Big: ${'a'.repeat(8000)}\r\nX-Big2: ${'a'.repeat(8000)}\r\nX-Big3: ${'a'.repeat(8000)}\r\n\r\n`,
      ),
    );
    assert.equal(big.status, 431);
    assert.ok(doc.paths['/healthz'].get.responses['431'], '431 documented');
  });
});

// The live document, as a client would read it from a running agent: Redocly's linter and openapi-typescript
// both take the URL itself (no other file is reachable through it).
describe('GET /openapi.json read by OpenAPI tools', () => {
  let agent;
  before(async () => {
    agent = await startAgent();
  });
  after(async () => {
    await agent.stop();
  });
  const bin = (name) => path.join(repoRoot, 'tests', 'agent', 'node_modules', '.bin', name);
  const quiet = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };

  test('redocly lint finds no error', { timeout: 120000 }, async () => {
    const r = spawnSync(bin('redocly'), ['lint', `${agent.base}/openapi.json`, '--format', 'summary'], {
      encoding: 'utf8',
      env: quiet,
      timeout: 110000,
    });
    assert.equal(r.status, 0, r.stdout + r.stderr);
  });

  test('openapi-typescript generates the types from the URL', { timeout: 120000 }, async () => {
    const out = path.join(agent.dir, 'agent-api.d.ts');
    const r = spawnSync(bin('openapi-typescript'), [`${agent.base}/openapi.json`, '-o', out], {
      encoding: 'utf8',
      timeout: 110000,
    });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const types = fs.readFileSync(out, 'utf8');
    assert.match(types, /Results: \{/);
  });
});
