// Strict CSP: the module must work with string code generation disabled (no eval, no new Function), as on a
// page with `script-src 'self' 'wasm-unsafe-eval'`. Node's --disallow-code-generation-from-strings is the
// same V8 switch; the child proves the switch is on before using the module.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const child = `
import { loadModule } from ${JSON.stringify(new URL('./load.mjs', import.meta.url).href)};
let evalBlocked = false;
try { new Function('return 1')(); } catch { evalBlocked = true; }
const m = await loadModule();
const f = m.forwardIndex('S[(8,4,2):(4@laneid,1@laneid,1@reg)]', [8, 8], 43);
const t = m.table('S[(128,256):(1@TLane,1@TCol)]', [128, 256], 0);
const e = m.parseLayout('S[(8,4):(4,1]');
console.log(JSON.stringify({ evalBlocked, lane: f.positions[0][0], slot: f.positions[0][1], cells: t.elements, err: e.ok }));
`;

test('loads and maps with code generation from strings disabled', () => {
  const r = spawnSync(
    process.execPath,
    ['--disallow-code-generation-from-strings', '--input-type=module', '-e', child],
    {
      encoding: 'utf8',
      cwd: fileURLToPath(new URL('.', import.meta.url)),
    },
  );
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout.trim().split('\n').pop());
  assert.deepEqual(out, { evalBlocked: true, lane: 21, slot: 1, cells: 32768, err: false });
});
