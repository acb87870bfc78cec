// Generates the page's types of the agent's requests and answers, web/src/generated/agent-api.d.ts (git-ignored),
// with openapi-typescript from the OpenAPI description exactly as the agent serves it (GET /openapi.json):
// agent/openapi_bundle.cmake bundles agent/openapi.json with the schemas it refers to (schemas/: the run request,
// the results document) into web/src/generated/agent-openapi.json, the text the agent's build compiles in.
// web/src/bench/types.ts and results.ts name the types the page uses from it, and agent-values.ts (agent-values.mjs)
// holds the few values it needs at run time (the final run statuses, the convert form's inputs); nothing about
// the agent's answers is written by hand. tests/agent/typecheck.test.js fails when these files differ from what
// the running agent serves. Run from web/ (npm run gen); needs cmake, like the agent's build.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentValuesText } from './agent-values.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const out = join(root, 'web', 'src', 'generated');
const doc = join(out, 'agent-openapi.json');
const types = join(out, 'agent-api.d.ts');
const values = join(out, 'agent-values.ts');
mkdirSync(out, { recursive: true });

function run(what, cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) {
    console.error(
      `gen-agent-types: ${what} failed (${cmd} ${args.join(' ')}):\n${r.stdout ?? ''}${r.stderr ?? ''}${r.error ?? ''}`,
    );
    process.exit(1);
  }
}
run('bundling the OpenAPI description', 'cmake', [`-DOUT=${doc}`, '-P', join(root, 'agent', 'openapi_bundle.cmake')]);
run('openapi-typescript', join(root, 'web', 'node_modules', '.bin', 'openapi-typescript'), [
  doc,
  '-o',
  types,
  '--silent',
]);
writeFileSync(values, agentValuesText(JSON.parse(readFileSync(doc, 'utf8'))));
console.log(`gen-agent-types: agent/openapi.json + schemas/ -> ${doc} -> ${types}, ${values}`);
