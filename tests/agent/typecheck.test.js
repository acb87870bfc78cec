// The page's types of the agent's answers against the agent. The page's build generates them
// (web/scripts/gen-agent-types.mjs): agent/openapi_bundle.cmake writes the OpenAPI description as the agent serves
// it (with the run request and results schemas bundled in) to web/src/generated/agent-openapi.json and
// openapi-typescript makes web/src/generated/agent-api.d.ts of it. Both must be what the running agent serves now
// (a schema edited after the page was built fails here); the page names every answer and every part of the results
// document from that file, declares none by hand, and compiles against it (tsc --strict, web/tsconfig.json).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

import { agentValuesText } from '../../web/scripts/agent-values.mjs';
import { repoRoot, sharedAgent, tempDir } from './lib/agent.js';

const here = path.join(repoRoot, 'tests', 'agent');
const bin = (name) => path.join(here, 'node_modules', '.bin', name);
const generated = path.join(repoRoot, 'web', 'src', 'generated');

// A file the page's build generated, or a failure saying how to make it.
function generatedText(name) {
  const file = path.join(generated, name);
  assert.ok(fs.existsSync(file), `${path.relative(repoRoot, file)} is missing: build the page (scripts/build.sh web)`);
  return fs.readFileSync(file, 'utf8');
}

// openapi-typescript (the version the page's build pins) on a description's text.
function typesOf(docText, dir) {
  const doc = path.join(dir, 'served-openapi.json');
  const out = path.join(dir, 'served-api.d.ts');
  fs.writeFileSync(doc, docText);
  const gen = spawnSync(bin('openapi-typescript'), [doc, '-o', out, '--silent'], { encoding: 'utf8' });
  assert.equal(gen.status, 0, gen.stderr);
  return fs.readFileSync(out, 'utf8');
}

test('the page was built from the description the agent serves: same document, same generated types and values', async () => {
  const agent = await sharedAgent();
  const dir = tempDir('ls-drift-');
  try {
    const res = await agent.fetch('/openapi.json');
    assert.equal(res.status, 200);
    const served = await res.text();
    assert.ok(
      served === generatedText('agent-openapi.json'),
      'web/src/generated/agent-openapi.json differs from GET /openapi.json: rebuild the page (scripts/build.sh web)',
    );
    assert.ok(
      typesOf(served, dir) === generatedText('agent-api.d.ts'),
      'web/src/generated/agent-api.d.ts differs from the types of GET /openapi.json: rebuild the page',
    );
    assert.ok(
      agentValuesText(JSON.parse(served)) === generatedText('agent-values.ts'),
      'web/src/generated/agent-values.ts differs from the values of GET /openapi.json: rebuild the page',
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await agent.stop();
  }
});

test('the page names its agent types from the generated file, not by hand', () => {
  const bench = path.join(repoRoot, 'web', 'src', 'bench');
  const types = fs.readFileSync(path.join(bench, 'types.ts'), 'utf8');
  for (const [name, schema] of [
    ['Device', 'Device'],
    ['ParamSpec', 'ParameterSpec'],
    ['BenchSpec', 'Benchmark'],
    ['RunSummary', 'RunSummary'],
    ['DevicesAnswer', 'Devices'],
    ['Catalogue', 'Catalogue'],
    ['RunPage', 'RunPage'],
    ['RunAccepted', 'RunAccepted'],
    ['RunRecord', 'Run'],
  ]) {
    assert.match(types, new RegExp(`export type ${name} = Schemas\\['${schema}'\\];`));
    assert.doesNotMatch(types, new RegExp(`interface ${name}\\b`));
  }
  // the results document and its parts: the results schema's definitions, bundled under Results.$defs
  const results = fs.readFileSync(path.join(bench, 'results.ts'), 'utf8');
  assert.match(results, /export type ResultsDoc = Omit<components\['schemas'\]\['Results'\], '\$defs'>;/);
  for (const [name, def] of [
    ['State', 'state'],
    ['Summary', 'summary'],
    ['Predicted', 'predicted'],
    ['ConvertInput', 'convertInput'],
    ['ConvertPlan', 'convertPlan'],
  ]) {
    assert.match(results, new RegExp(`export type ${name} = Defs\\['${def}'\\];`));
    assert.doesNotMatch(results, new RegExp(`interface ${name}\\b`));
  }
  assert.match(results, /export type PredictedAccess = Defs\['accessPrediction'\]/);
  assert.match(types, /export \{ CONVERT_INPUTS, FINAL_RUN_STATUSES \} from '\.\.\/generated\/agent-values\.js';/);
  // no answer typed inline at a call (every client.json<...> names a generated type), no list of run statuses
  for (const file of fs.readdirSync(bench).filter((f) => f.endsWith('.ts'))) {
    const text = fs.readFileSync(path.join(bench, file), 'utf8');
    assert.doesNotMatch(text, /\[\s*'succeeded',/, `web/src/bench/${file} lists run statuses by hand`);
  }

  for (const file of fs.readdirSync(bench).filter((f) => f.endsWith('.ts'))) {
    const text = fs.readFileSync(path.join(bench, file), 'utf8');
    const inline = [...text.matchAll(/\.json<\s*\{/g)];
    assert.equal(inline.length, 0, `web/src/bench/${file} types an agent answer inline (.json<{ ... }>)`);
  }
});

test('the page compiles against the generated types (tsc --strict, web/tsconfig.json)', { timeout: 300000 }, () => {
  generatedText('agent-api.d.ts');
  const tsc = spawnSync(bin('tsc'), ['--noEmit', '-p', path.join(repoRoot, 'web', 'tsconfig.json')], {
    encoding: 'utf8',
  });
  assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
});

// Every results document committed under docs/results (a document, or a run record holding one under "result",
// in .json and .jsonl files), as the tests of the agent read them (Ajv, strict).
function committedResults() {
  const out = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (entry.name.endsWith('.json') || entry.name.endsWith('.jsonl')) {
        const text = fs.readFileSync(file, 'utf8');
        const values = entry.name.endsWith('.json') ? [JSON.parse(text)] : [];
        if (entry.name.endsWith('.jsonl'))
          for (const line of text.split('\n').filter((l) => l.trim().startsWith('{'))) values.push(JSON.parse(line));
        for (const v of values) {
          const doc = v?.result?.benchmarks ? v.result : v;
          if (doc?.schema_version && doc?.benchmarks) out.push({ file: path.relative(repoRoot, file), doc });
        }
      }
    }
  };
  walk(path.join(repoRoot, 'docs', 'results'));
  return out;
}

test('the results schema takes every committed results document and refuses what its types do not allow', () => {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false });
  addFormats(ajv);
  const validate = ajv.compile(
    JSON.parse(fs.readFileSync(path.join(repoRoot, 'schemas', 'results.schema.json'), 'utf8')),
  );
  const docs = committedResults();
  // aos_soa, transpose and their profile runs, and the six kinds of the every-kind run
  assert.ok(docs.length >= 10, `${docs.length} results documents under docs/results`);
  for (const { file, doc } of docs) assert.ok(validate(doc), `${file}: ${ajv.errorsText(validate.errors)}`);

  const of = (name) => structuredClone(docs.find((d) => d.file.endsWith(name)).doc);
  const refused = (doc, what) => assert.equal(validate(doc), false, `${what} is refused`);
  let doc = of('h200-transpose.json');
  doc.benchmarks[0].states[0].axis_values.dim = { n: 1 };
  refused(doc, 'an axis value that is an object');
  doc = of('h200-transpose.json');
  doc.benchmarks[0].axes[0].values.push(null);
  refused(doc, 'a null on an axis');
  doc = of('h200-profile-transpose.json');
  doc.benchmarks[0].states[0].profile.metrics.CC = '9.0';
  refused(doc, 'a counter that is not a number');
  doc = of('every-kind-convert.json');
  delete doc.benchmarks[0].states[0].plan.predicted_per_warp_instruction.global_read.sectors;
  refused(doc, "a plan's global cost without sectors");
  doc = of('every-kind-smem_access.json');
  doc.benchmarks[0].states[0].predicted.shared[0].lane_elements[0][0] = 'lane 0';
  refused(doc, 'a lane element that is not an integer');
  doc = of('every-kind-reshard.json');
  doc.benchmarks[0].mesh_devices[0].multiprocessors = '132';
  refused(doc, 'a mesh device with a count as text');
});
