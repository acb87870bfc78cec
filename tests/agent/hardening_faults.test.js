// The agent under a full results disk and a crash at every step of a record write: no run is lost or
// reported "succeeded" without its record on disk. The faults come from two places: a real 2 MiB tmpfs
// (mounted when the tests run as root; skipped with a message otherwise) and the --test-endpoints hook
// POST /v1/_test/fail-record-write, which fails a chosen write step with ENOSPC or kills the agent there
// (SIGKILL) on any file system.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';

import { postRun, startAgent, tempDir, waitRun } from './lib/agent.js';

const QUICK = {
  benchmark: 'aos_soa',
  params: { n: 1024, touch_fields: [1], layouts: ['soa'], min_samples: 1, max_samples: 2, warmup: 0 },
};
// A record of some tens of KiB: eight states.
const WIDE = {
  benchmark: 'aos_soa',
  params: { n: 1024, touch_fields: [1, 2, 4, 8], layouts: ['aos', 'soa'], min_samples: 1, max_samples: 2, warmup: 0 },
};

async function arm(agent, fault) {
  const r = await agent.fetch('/v1/_test/fail-record-write', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(fault),
  });
  assert.equal(r.status, 200, await r.clone().text());
}

function tempFiles(results) {
  return fs.readdirSync(results).filter((n) => n.endsWith('.tmp'));
}

describe('record writes that fail (ENOSPC injected)', () => {
  test('the first record cannot be written: POST answers 507 naming the folder, nothing is listed', async () => {
    const a = await startAgent(['--test-endpoints']);
    try {
      await arm(a, { step: 'write', skip: 0 });
      const r = await postRun(a, QUICK);
      assert.equal(r.status, 507);
      const body = await r.json();
      assert.equal(body.error.field, 'results_dir');
      assert.ok(body.error.message.includes(a.resultsDir), body.error.message);
      assert.match(body.error.message, /No space left on device/);
      assert.deepEqual((await (await a.fetch('/v1/runs')).json()).runs, []);
      assert.deepEqual(tempFiles(a.resultsDir), []);
      // The device was not kept: the next request runs.
      const next = await postRun(a, QUICK);
      assert.equal(next.status, 202);
      assert.equal((await waitRun(a, (await next.json()).id)).status, 'succeeded');
    } finally {
      await a.stop();
    }
  });

  for (const [step, skip, what] of [
    ['open', 1, 'the "running" record'],
    ['fsync', 2, 'the final record (fsync)'],
    ['rename', 2, 'the final record (rename)'],
    ['folder_sync', 2, 'the final record (folder fsync)'],
  ]) {
    test(`${what} cannot be written: the run is failed, naming the folder, on disk and after a restart`, async () => {
      const dir = tempDir();
      let a = await startAgent(['--test-endpoints'], { dir });
      let id;
      try {
        await arm(a, { step, skip });
        const r = await postRun(a, QUICK);
        assert.equal(r.status, 202);
        id = (await r.json()).id;
        const rec = await waitRun(a, id);
        assert.equal(rec.status, 'failed');
        assert.ok(rec.error.includes(a.resultsDir), rec.error);
        assert.match(rec.error, /No space left on device/);
        assert.equal(rec.result, null);
        const listed = (await (await a.fetch('/v1/runs')).json()).runs.find((x) => x.id === id);
        assert.equal(listed.status, 'failed');
        const onDisk = JSON.parse(fs.readFileSync(path.join(a.resultsDir, `${id}.json`), 'utf8'));
        assert.equal(onDisk.status, 'failed');
        assert.deepEqual(tempFiles(a.resultsDir), []);
      } finally {
        await a.stop();
      }
      a = await startAgent([], { dir });
      try {
        assert.equal((await (await a.fetch(`/v1/runs/${id}`)).json()).status, 'failed');
      } finally {
        await a.stop();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  test('neither the final record nor the smaller failed one fits: failed (served from memory), /readyz 503 until a write works', async () => {
    const a = await startAgent(['--test-endpoints']);
    try {
      // the final write, its retry without the result, and the readiness probe
      await arm(a, { step: 'write', skip: 2, times: 3 });
      const { id } = await (await postRun(a, QUICK)).json();
      const rec = await waitRun(a, id);
      assert.equal(rec.status, 'failed');
      assert.ok(rec.error.includes(a.resultsDir), rec.error);
      const ready = await fetch(`${a.base}/readyz`);
      assert.equal(ready.status, 503);
      const why = (await ready.json()).reason;
      assert.ok(why.includes(a.resultsDir), why);
      assert.match(why, /No space left on device/);
      // The disk has room again (the fault is spent): ready, and runs succeed.
      assert.equal((await fetch(`${a.base}/readyz`)).status, 200);
      const next = await (await postRun(a, QUICK)).json();
      assert.equal((await waitRun(a, next.id)).status, 'succeeded');
    } finally {
      await a.stop();
    }
  });
});

describe('kill -9 at every step of every record write', () => {
  const steps = ['open', 'write', 'fsync', 'rename', 'folder_sync'];
  // skip 0: the "queued" record, 1: the "running" one, 2: the final one.
  for (const skip of [0, 1, 2])
    for (const step of steps)
      test(`killed before ${step} of write ${skip + 1}: after a restart the run is listed as written, never succeeded without its result`, async () => {
        const dir = tempDir();
        let a = await startAgent(['--test-endpoints'], { dir });
        let accepted;
        try {
          await arm(a, { step, action: 'kill', skip });
          const exited = new Promise((r) => a.proc.once('exit', (code, signal) => r(signal)));
          try {
            const r = await postRun(a, QUICK);
            if (r.status === 202) accepted = (await r.json()).id;
          } catch {
            // killed before it answered
          }
          assert.equal(await exited, 'SIGKILL');
        } finally {
          await a.stop();
        }
        a = await startAgent([], { dir });
        try {
          const runs = (await (await a.fetch('/v1/runs')).json()).runs;
          if (accepted)
            assert.deepEqual(
              runs.map((x) => x.id),
              [accepted],
              'a run answered 202 is never lost',
            );
          // Past its first write a run is on disk, whether or not the kill came before the 202 was sent.
          if (skip > 0) assert.equal(runs.length, 1);
          assert.ok(runs.length <= 1);
          for (const s of runs) {
            const rec = await (await a.fetch(`/v1/runs/${s.id}`)).json();
            if (skip === 2 && step === 'folder_sync') {
              // Killed after the final rename: the finished record is in place, result and all.
              assert.equal(rec.status, 'succeeded', JSON.stringify(rec));
              assert.equal(typeof rec.result, 'object');
              assert.ok(rec.result && Array.isArray(rec.result.benchmarks));
            } else {
              // Killed before the final record was in place: interrupted, never succeeded.
              assert.equal(rec.status, 'interrupted', JSON.stringify(rec));
              assert.equal(rec.result, null);
            }
          }
          assert.deepEqual(tempFiles(a.resultsDir), [], 'stale temporary files removed');
          assert.equal((await fetch(`${a.base}/readyz`)).status, 200);
        } finally {
          await a.stop();
          fs.rmSync(dir, { recursive: true, force: true });
        }
      });
});

describe('a real full disk (2 MiB tmpfs)', () => {
  test('a run whose record does not fit fails naming the folder; /readyz reports the full folder', async (t) => {
    const dir = tempDir();
    const results = path.join(dir, 'results');
    fs.mkdirSync(results);
    const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', results], { encoding: 'utf8' });
    if (mount.status !== 0) {
      fs.rmSync(dir, { recursive: true, force: true });
      t.skip(`cannot mount a tmpfs here (needs root): ${(mount.stderr || mount.error?.message || '').trim()}`);
      return;
    }
    let a;
    try {
      a = await startAgent([], { dir });
      assert.equal((await fetch(`${a.base}/readyz`)).status, 200);
      // Fill the disk, then give back two pages: room for the small records, not for the result.
      const filler = path.join(results, 'filler');
      const fd = fs.openSync(filler, 'w');
      const chunk = Buffer.alloc(64 << 10, 1);
      let size = 0;
      for (;;) {
        try {
          size += fs.writeSync(fd, chunk);
        } catch (e) {
          assert.equal(e.code, 'ENOSPC');
          break;
        }
      }
      fs.ftruncateSync(fd, Math.max(0, size - 8192));
      fs.closeSync(fd);
      const ready = await fetch(`${a.base}/readyz`);
      assert.equal(ready.status, 503);
      assert.ok((await ready.json()).reason.includes(results));
      const r = await postRun(a, WIDE);
      assert.equal(r.status, 202, await r.clone().text());
      const { id } = await r.json();
      const rec = await waitRun(a, id);
      assert.equal(rec.status, 'failed');
      assert.ok(rec.error.includes(results), rec.error);
      assert.match(rec.error, /No space left on device/);
      const listed = (await (await a.fetch('/v1/runs')).json()).runs.find((x) => x.id === id);
      assert.equal(listed.status, 'failed');
      await a.stop();
      a = await startAgent([], { dir });
      const again = await a.fetch(`/v1/runs/${id}`);
      assert.equal(again.status, 200);
      assert.equal((await again.json()).status, 'failed');
      // Room again: ready, and the same run succeeds.
      fs.rmSync(filler);
      assert.equal((await fetch(`${a.base}/readyz`)).status, 200);
      const ok = await (await postRun(a, WIDE)).json();
      assert.equal((await waitRun(a, ok.id)).status, 'succeeded');
    } finally {
      if (a) await a.stop();
      spawnSync('umount', [results]);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
