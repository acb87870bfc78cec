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

test('the page was built from the description the agent serves: same document, same generated types', async () => {
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
  // no answer typed inline at a call: every client.json<...> names a generated type
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
