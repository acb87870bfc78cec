// The run request is described once, in schemas/run-request.schema.json; the build makes the rest from it:
// the request part of GET /openapi.json, the catalogue of GET /v1/benchmarks and the parser's limits
// (bench/request_limits.hpp). Each part is checked here against the schema file as it is now, so that a
// schema edit the build did not carry through (a stale document, a hand-kept constant) fails.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import Ajv2020 from 'ajv/dist/2020.js';

import { postRun, repoRoot, sharedAgent } from './lib/agent.js';

const schema = JSON.parse(fs.readFileSync(path.join(repoRoot, 'schemas', 'run-request.schema.json'), 'utf8'));
const defs = schema.$defs;
const resolve = (node) => (node && node.$ref ? resolve(defs[node.$ref.replace('#/$defs/', '')]) : node);

// Every parameter of one benchmark: its params schema's properties and those of what it includes (allOf).
function parameters(params) {
  const out = {};
  for (const part of params.allOf || []) Object.assign(out, parameters(resolve(part)));
  for (const [k, v] of Object.entries(params.properties)) out[k] = resolve(v);
  return out;
}
const benchmarks = schema.oneOf.map((r) => {
  const request = resolve(r);
  return { name: request.properties.benchmark.const, params: parameters(resolve(request.properties.params)) };
});

// A request of each benchmark that the agent would run (small), to which one bad value is added.
const base = {
  aos_soa: { n: 64, touch_fields: 1, layouts: ['aos'] },
  transpose: { dim: 8, variants: ['copy'] },
  convert: { shape: [4, 4], perm: [1, 0], dtype: 'f32' },
  reshard: {
    from: 'S[(2,4,64):(1@gpuid_x,64,1)]',
    to: 'S[(8,64):(64,1)] + R[2:1@gpuid_x]',
    shape: [8, 64],
    mesh: 'gpuid_x=2',
  },
  collective: { op: 'all_gather', gpus: 2 },
  smem_access: { layout: 'S[(32,32):(32,1)]', shape: [32, 32], dtype: 'f32', instr: 'LDS.32' },
  // smem_access's second form: a writer/reader pair on one of the advisor's candidates
  smem_access_pair: {
    writer: 'rows;STS.32',
    reader: 'columns;LDS.32',
    tile: [32, 32],
    dtype: 'f32',
    candidate: 'pad 4 B',
  },
  global_access: { layout: 'S[(32,32):(32,1)]', shape: [32, 32], dtype: 'f32', instr: 'LDG.32' },
};

// The values just outside each bound the schema states: [what, value], for a number, the array form of a
// number (oneOf), and an array's items and length.
function outside(p) {
  const out = [];
  const scalar = p.oneOf ? resolve(p.oneOf[0]) : p.type === 'array' ? null : p;
  const array = p.oneOf ? resolve(p.oneOf[1]) : p.type === 'array' ? p : null;
  const items = array ? resolve(array.items) : null;
  const integer = (s) => s.type === 'integer' || (Array.isArray(s.type) && s.type.includes('integer'));
  if (scalar && typeof scalar.maximum === 'number')
    out.push(['maximum', scalar.maximum + (integer(scalar) ? 1 : scalar.maximum * 1e-3)]);
  if (scalar && typeof scalar.minimum === 'number' && integer(scalar)) out.push(['minimum', scalar.minimum - 1]);
  if (scalar && typeof scalar.exclusiveMinimum === 'number') out.push(['exclusiveMinimum', scalar.exclusiveMinimum]);
  if (items && typeof items.maximum === 'number') out.push(['items.maximum', [items.maximum + 1]]);
  if (items && typeof items.minimum === 'number') out.push(['items.minimum', [items.minimum - 1]]);
  if (array && typeof array.maxItems === 'number') {
    const one = items && items.enum ? items.enum : [items && typeof items.minimum === 'number' ? items.minimum : 1];
    // distinct values where the schema asks for them (uniqueItems), repeated otherwise
    const values = Array.from({ length: array.maxItems + 1 }, (_, i) =>
      array.uniqueItems ? i + 2 : one[i % one.length],
    );
    if (!(items && items.enum && array.uniqueItems)) out.push(['maxItems', values]);
  }
  return out;
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
const validateRequest = ajv.compile(schema);

describe('the run request schema is the one description of a request', () => {
  let agent;
  before(async () => {
    agent = await sharedAgent();
  });
  after(async () => {
    await agent.stop();
  });

  test('GET /openapi.json holds the schema as components.schemas.RunRequest', async () => {
    const doc = await (await fetch(`${agent.base}/openapi.json`)).json();
    const { $id, $schema, ...rest } = schema;
    assert.ok($id && $schema);
    const rooted = JSON.parse(JSON.stringify(rest).replaceAll('"#/$defs/', '"#/components/schemas/RunRequest/$defs/'));
    assert.deepEqual(doc.components.schemas.RunRequest, rooted);
    const post = doc.paths['/v1/runs'].post.requestBody.content['application/json'].schema;
    assert.deepEqual(post, { $ref: '#/components/schemas/RunRequest' });
  });

  test('GET /v1/benchmarks lists every benchmark and parameter of the schema, with its bounds', async () => {
    const catalogue = await (await agent.fetch('/v1/benchmarks')).json();
    assert.deepEqual(
      catalogue.benchmarks.map((b) => b.name),
      benchmarks.map((b) => b.name),
    );
    for (const { name, params } of benchmarks) {
      const listed = catalogue.benchmarks.find((b) => b.name === name).parameters;
      assert.deepEqual(Object.keys(listed).sort(), Object.keys(params).sort(), name);
      for (const [key, p] of Object.entries(params)) {
        const forms = [p, ...(p.oneOf || []).map(resolve)];
        for (const f of [...forms]) if (f.items) forms.push(resolve(f.items));
        const first = (k) => forms.find((f) => k in f)?.[k];
        for (const k of ['minimum', 'maximum', 'exclusiveMinimum', 'maxItems', 'enum'])
          assert.deepEqual(listed[key][k], first(k), `${name}.${key}.${k}`);
        assert.equal(listed[key].description, p.description, `${name}.${key}.description`);
        if ('default' in p) assert.deepEqual(listed[key].default, p.default, `${name}.${key}.default`);
      }
    }
  });

  test('the base requests are valid by the schema', () => {
    for (const [form, params] of Object.entries(base)) {
      const name = form.replace('_pair', '');
      assert.ok(validateRequest({ benchmark: name, params }), `${form}: ${ajv.errorsText(validateRequest.errors)}`);
    }
  });

  test('a value just outside a bound of the schema: the schema refuses it, and the agent 422 naming it', async () => {
    let checked = 0;
    const unreachable = new Set();
    for (const { name, params } of benchmarks)
      for (const [key, p] of Object.entries(params))
        for (const [what, value] of outside(p)) {
          const pairKey = name === 'smem_access' && ['writer', 'reader', 'tile', 'candidate'].includes(key);
          const body = { benchmark: name, params: { ...base[pairKey ? 'smem_access_pair' : name], [key]: value } };
          assert.equal(validateRequest(body), false, `the schema accepts ${name}.${key} ${what}`);
          const r = await postRun(agent, body);
          const text = await r.text();
          assert.equal(r.status, 422, `${name}.${key} ${what} = ${JSON.stringify(value)}: ${text}`);
          const { field, message } = JSON.parse(text).error;
          // a collective's sizes are checked after its GPUs are counted: a machine with fewer than two stops there
          if (/needs \d+ GPUs, this machine has [01]\b/.test(message)) {
            unreachable.add(name);
            continue;
          }
          assert.ok(
            field === `params.${key}` || field.startsWith(`params.${key}[`),
            `${name}.${key} ${what}: the error names ${field}`,
          );
          ++checked;
        }
    assert.ok(checked >= 40, `${checked} bounds checked`);
    assert.ok(
      [...unreachable].every((n) => n === 'collective'),
      [...unreachable].join(),
    );
  });
});
