// Starting layoutscope-agent instances and talking to them over real HTTP (fetch) and raw sockets (net),
// for the cases fetch cannot send: chunked bodies, Content-Encoding, an empty Host, a client that stalls.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '..', '..', '..');
export const agentBin = process.env.LAYOUTSCOPE_AGENT_BIN || path.join(repoRoot, 'build', 'bin', 'layoutscope-agent');

export function tempDir(prefix = 'ls-agent-') {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

// Starts an agent on a free port (--port 0) with the CPU backend; resolves once it printed its URL.
export async function startAgent(extraArgs = [], { dir, backend = 'cpu' } = {}) {
  const ownDir = !dir; // a folder we made is removed on stop(); a given one belongs to the caller
  dir = dir || tempDir();
  const resultsDir = path.join(dir, 'results');
  const tokenFile = path.join(dir, 'token');
  const args = [
    '--port',
    '0',
    '--backend',
    backend,
    '--results-dir',
    resultsDir,
    '--token-file',
    tokenFile,
    ...extraArgs,
  ];
  const proc = spawn(agentBin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stderr.on('data', (d) => {
    stderr += d;
  });
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`agent did not start: ${stderr}`)), 10000);
    proc.stdout.on('data', (d) => {
      stdout += d;
      const m = stdout.match(/open (http:\/\/\S+)/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`agent exited ${code}: ${stderr}`));
    });
  });
  const u = new URL(url);
  const token = new URLSearchParams(u.hash.slice(1)).get('token');
  const base = `${u.protocol}//${u.host}`;
  const agent = {
    proc,
    url,
    base,
    token,
    port: Number(u.port),
    dir,
    resultsDir,
    tokenFile,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    auth: { Authorization: `Bearer ${token}` },
    fetch: (p, init = {}) =>
      fetch(base + p, { ...init, headers: { Authorization: `Bearer ${token}`, ...(init.headers || {}) } }),
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const done = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 5000);
      await done;
      clearTimeout(t);
      if (ownDir) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return agent;
}

// An agent described by run.sh's environment, or a fresh one.
export async function sharedAgent() {
  const url = process.env.LAYOUTSCOPE_AGENT_URL;
  if (!url) return startAgent();
  const u = new URL(url);
  const token = new URLSearchParams(u.hash.slice(1)).get('token');
  const base = `${u.protocol}//${u.host}`;
  return {
    url,
    base,
    token,
    port: Number(u.port),
    resultsDir: process.env.LAYOUTSCOPE_AGENT_RESULTS,
    shared: true,
    auth: { Authorization: `Bearer ${token}` },
    fetch: (p, init = {}) =>
      fetch(base + p, { ...init, headers: { Authorization: `Bearer ${token}`, ...(init.headers || {}) } }),
    async stop() {},
  };
}

// Sends raw bytes, reads until the server closes (or timeoutMs); parses the first response.
export function rawRequest(port, data, { timeoutMs = 5000, keepOpenMs = 0 } = {}) {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    const chunks = [];
    let closed = false;
    const timer = setTimeout(() => {
      sock.destroy();
      finish(true);
    }, timeoutMs);
    function finish(timedOut) {
      if (closed) return;
      closed = true;
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      resolve({ ...parseResponse(text), raw: text, timedOut });
    }
    sock.on('connect', async () => {
      for (const part of Array.isArray(data) ? data : [data]) {
        sock.write(part);
        if (keepOpenMs) await new Promise((r) => setTimeout(r, keepOpenMs));
      }
    });
    sock.on('data', (d) => chunks.push(d));
    sock.on('end', () => finish(false));
    sock.on('close', () => finish(false));
    sock.on('error', (e) => (chunks.length ? finish(false) : reject(e)));
  });
}

export function parseResponse(text) {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return { status: 0, headers: {}, body: '' };
  const lines = text.slice(0, end).split('\r\n');
  const status = Number(lines[0].split(' ')[1]);
  const headers = {};
  for (const l of lines.slice(1)) {
    const i = l.indexOf(':');
    headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  return { status, headers, body: text.slice(end + 4) };
}

export function rawHttp(method, p, headers, body = '') {
  const lines = [`${method} ${p} HTTP/1.1`];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  return Buffer.concat([
    Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1'),
    Buffer.isBuffer(body) ? body : Buffer.from(body),
  ]);
}

// Reads a server-sent event stream with fetch until `event: end`; returns the parsed events.
export async function readEvents(agent, id, { timeoutMs = 60000 } = {}) {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), timeoutMs);
  const res = await agent.fetch(`/v1/runs/${id}/events`, { signal: ctl.signal });
  const events = [];
  const decoder = new TextDecoder();
  let buf = '';
  try {
    for await (const chunk of res.body) {
      buf += decoder.decode(chunk, { stream: true });
      let i;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        if (block.startsWith(':')) continue;
        const ev = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (ev) events.push({ event: ev, data: data ? JSON.parse(data) : null });
        if (ev === 'end') {
          ctl.abort();
          return { res, events };
        }
      }
    }
  } catch (e) {
    if (!(e.name === 'AbortError' && events.at(-1)?.event === 'end')) throw e;
  } finally {
    clearTimeout(timer);
  }
  return { res, events };
}

export async function postRun(agent, body, headers = {}) {
  return agent.fetch('/v1/runs', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

// Waits until the run is in a final state (polling); returns the record.
export async function waitRun(agent, id, timeoutMs = 60000) {
  const t0 = Date.now();
  for (;;) {
    const r = await agent.fetch(`/v1/runs/${id}`);
    const rec = await r.json();
    if (['succeeded', 'failed', 'cancelled', 'interrupted'].includes(rec.status)) return rec;
    if (Date.now() - t0 > timeoutMs) throw new Error(`run ${id} still ${rec.status}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

export function summary(state, suffix) {
  const s = state.summaries.find((x) => x.tag.endsWith(suffix));
  return s ? s.value : undefined;
}
