// The OpenAPI document against the page's client code: TypeScript types generated from agent/openapi.json by
// openapi-typescript must satisfy the interfaces web/src/bench declares for each answer (tsc --strict).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { repoRoot, tempDir } from './lib/agent.js';

const here = path.join(repoRoot, 'tests', 'agent');
const bin = (name) => path.join(here, 'node_modules', '.bin', name);

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
      const panel = path.join(repoRoot, 'web', 'src', 'bench', 'types.ts');
      const results = path.join(repoRoot, 'web', 'src', 'bench', 'results.ts');
      const page =
        ['Device', 'ParamSpec', 'BenchSpec', 'RunSummary'].map((n) => interfaceText(panel, n)).join('') +
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
