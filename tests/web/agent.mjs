// Starts a real layoutscope-agent (CPU backend, free port, its own temporary folder) serving web/dist, for the
// panel and embedding tests; stop() ends it (SIGTERM, then SIGKILL) and removes the folder.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root } from './browser.mjs';

export function agentBinary() {
  const candidates = [
    process.env.LAYOUTSCOPE_AGENT_BIN,
    join(root, 'build', 'bin', 'layoutscope-agent'),
    join(root, 'build-agent', 'bin', 'layoutscope-agent'),
  ];
  const bin = candidates.find((p) => p && existsSync(p));
  if (!bin)
    throw new Error(
      `no layoutscope-agent binary (tried ${candidates.filter(Boolean).join(', ')}); build it: cmake --build build --target layoutscope-agent`,
    );
  return bin;
}

export async function startAgent(extra = []) {
  const dir = mkdtempSync(join(tmpdir(), 'ls-web-agent-'));
  const args = [
    '--port',
    '0',
    '--backend',
    'cpu',
    '--results-dir',
    join(dir, 'results'),
    '--token-file',
    join(dir, 'token'),
    '--web',
    join(root, 'web', 'dist'),
    ...extra,
  ];
  const proc = spawn(agentBinary(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '',
    err = '';
  proc.stderr.on('data', (d) => (err += d));
  const url = await new Promise((ok, bad) => {
    const timer = setTimeout(() => bad(new Error(`agent did not print its URL: ${err}`)), 10_000);
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /open (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        ok(m[1]);
      }
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      bad(new Error(`agent exited with ${code}: ${err}`));
    });
  });
  const u = new URL(url);
  const token = new URLSearchParams(u.hash.slice(1)).get('token');
  const base = u.origin;
  return {
    url,
    base,
    token,
    fetch: (path, init = {}) =>
      fetch(base + path, { ...init, headers: { Authorization: `Bearer ${token}`, ...(init.headers ?? {}) } }),
    get stderr() {
      return err;
    },
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) {
        const done = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        const t = setTimeout(() => proc.kill('SIGKILL'), 5000);
        await done;
        clearTimeout(t);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A port nothing listens on (bound, then released). */
export async function closedPort() {
  const { createServer } = await import('node:net');
  return new Promise((ok) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = s.address().port;
      s.close(() => ok(port));
    });
  });
}
