// planReshard across the WASM boundary: the plan as a plain object, the mesh in its three spellings, and
// errors as values. Bytes are worked out by hand from nccl-tests' formulas (plan/reshard.hpp).
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { loadModule } from './load.mjs';

let m;
before(async () => {
  m = await loadModule();
});

const FROM = 'S[(2,4,8):(1@gpuid_x,1@gpuid_y,1)]';
const TO = 'S[(2,4,8):(8,1@gpuid_y,1)] + R[2:1@gpuid_x]';

test('an all_gather over gpuid_x: 8 fp32 per device, (2-1) * 8 * 4 = 32 B sent and received', () => {
  const p = m.planReshard(FROM, TO, [2, 4, 8], 'gpuid_x=2,gpuid_y=4');
  assert.equal(p.ok, true, JSON.stringify(p.error));
  assert.equal(p.steps.length, 1);
  const s = p.steps[0];
  assert.equal(s.op, 'all_gather');
  assert.equal(s.axis, 'gpuid_x');
  assert.equal(s.collective, true);
  assert.equal(s.sendBytes, 32);
  assert.equal(s.recvBytes, 32);
  assert.equal(s.sizeBytes, 64);
  assert.equal(s.busFactor, 0.5);
  assert.equal(s.localBefore.layout, 'S[8:1]');
  assert.equal(s.localAfter.layout, 'S[(2,8):(8,1)]');
  assert.deepEqual(s.placementsBefore, ['S(0)', 'S(1)']);
  assert.deepEqual(s.placementsAfter, ['R', 'S(1)']);
  assert.deepEqual(p.mesh, [
    { axis: 'gpuid_x', size: 2 },
    { axis: 'gpuid_y', size: 4 },
  ]);
  assert.equal(p.bandwidths.collectiveBusbwGbps, 360);
  assert.equal(s.predictedSeconds, (64 * 0.5) / 360e9);
});

test('the mesh as an object or as pairs, and bf16 with a measured busbw', () => {
  const a = m.planReshard(FROM, TO, '2,4,8', { gpuid_x: 2, gpuid_y: 4 });
  const b = m.planReshardWith(
    FROM,
    TO,
    [2, 4, 8],
    [
      ['gpuid_x', 2],
      ['gpuid_y', 4],
    ],
    {
      dtype: 'bf16',
      collectiveBusbwGbps: 100,
    },
  );
  assert.equal(a.ok && b.ok, true);
  assert.equal(a.steps[0].sendBytes, 32);
  assert.equal(b.steps[0].sendBytes, 16);
  assert.equal(b.steps[0].predictedSeconds, (32 * 0.5) / 100e9);
});

test('errors are values naming the problem', () => {
  const axis = m.planReshard('S[(2,8):(1@gpuid_z,1)]', 'S[16:1]', [16], 'gpuid_x=2,gpuid_y=4');
  assert.equal(axis.ok, false);
  assert.equal(axis.error.code, 'mesh-axis');
  assert.equal(axis.error.field, 'from');
  const syntax = m.planReshard('S[(2,8):(1@gpuid_x,1]', 'S[16:1]', [16], 'gpuid_x=2');
  assert.equal(syntax.ok, false);
  assert.equal(syntax.error.field, 'from');
  assert.ok(syntax.error.column > 0);
  const mesh = m.planReshard('S[16:1]', 'S[16:1]', [16], 'gpuid_x=2,gpuid_y');
  assert.equal(mesh.ok, false);
  assert.equal(mesh.error.column, 11);
  const bw = m.planReshardWith(FROM, TO, [2, 4, 8], 'gpuid_x=2,gpuid_y=4', { collectiveBusbwGbps: -1 });
  assert.equal(bw.ok, false);
  assert.equal(bw.error.field, 'collectiveBusbwGbps');
});
