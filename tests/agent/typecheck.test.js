// The page's types of the agent's answers against the agent. The page's build generates them
// (web/scripts/gen-agent-types.mjs): agent/openapi_bundle.cmake writes the OpenAPI description as the agent serves
// it to web/src/generated/agent-openapi.json and openapi-typescript makes web/src/generated/agent-api.d.ts of it.
// Both must be what the running agent serves now (a schema edited after the page was built fails here), and the
// interfaces web/src/bench/results.ts still declares for the results document must accept what the description
// says the agent sends (tsc --strict).
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

// The text of `interface Name { ... }` (exported or not) in a TypeScript file, found by brace matching.
function interfaceText(file, name) {
  const text = fs.readFileSync(file, 'utf8');
  const m = new RegExp(`(?:export )?interface ${name}\\b[^{]*\\{`).exec(text);
  assert.ok(m, `${path.relative(repoRoot, file)} declares interface ${name}`);
  let depth = 0;
  for (let i = m.index + m[0].length - 1; i < text.length; ++i) {
    if (text[i] === '{') ++depth;
    else if (text[i] === '}' && --depth === 0) return `export ${text.slice(m.index, i + 1).replace(/^export /, '')}\n`;
  }
  throw new Error(`unbalanced braces in interface ${name}`);
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
  const types = fs.readFileSync(path.join(repoRoot, 'web', 'src', 'bench', 'types.ts'), 'utf8');
  for (const [name, schema] of [
    ['Device', 'Device'],
    ['ParamSpec', 'ParameterSpec'],
    ['BenchSpec', 'Benchmark'],
    ['RunSummary', 'RunSummary'],
  ]) {
    assert.match(types, new RegExp(`export type ${name} = Schemas\\['${schema}'\\];`));
    assert.doesNotMatch(types, new RegExp(`interface ${name}\\b`));
  }
});

test(
  "types generated from openapi.json satisfy the page client's interfaces (tsc --strict)",
  { timeout: 180000 },
  () => {
    const dir = tempDir('ls-typecheck-');
    try {
      const gen = spawnSync(
        bin('openapi-typescript'),
        [path.join(repoRoot, 'agent', 'openapi.json'), '-o', path.join(dir, 'agent-api.d.ts')],
        { encoding: 'utf8' },
      );
      assert.equal(gen.status, 0, gen.stderr);
      const results = path.join(repoRoot, 'web', 'src', 'bench', 'results.ts');
      // web/src/bench/types.ts names these from the generated types; the results document's reading types are
      // the page's own and must accept what the description says
      const page =
        "import type { components } from './agent-api';\ntype Schemas = components['schemas'];\n" +
        "export type Device = Schemas['Device'];\nexport type BenchSpec = Schemas['Benchmark'];\n" +
        "export type RunSummary = Schemas['RunSummary'];\n" +
        ['ResultsDoc', 'Summary', 'State', 'Predicted', 'PredictedAccess', 'ConvertInput', 'ConvertPlan']
          .map((n) => interfaceText(results, n))
          .join('');
      fs.writeFileSync(path.join(dir, 'page-types.ts'), page);
      fs.copyFileSync(path.join(here, 'typecheck', 'agrees.ts'), path.join(dir, 'agrees.ts'));
      const tsc = spawnSync(
        bin('tsc'),
        [
          '--noEmit',
          '--strict',
          '--target',
          'es2022',
          '--moduleResolution',
          'bundler',
          '--module',
          'esnext',
          path.join(dir, 'agrees.ts'),
        ],
        { encoding: 'utf8' },
      );
      assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
);
