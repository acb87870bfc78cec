// The scan's speed in the browser (printed, not asserted): a 2,000-line TTGIR dump (the fixture dumps of six
// kernels, twice, their aliases renamed apart so every layout is read anew) scanned by the WASM module's
// scanTtgir in headless Chromium: min, median and max of 31 runs after one warm-up, and the machine's load
// average (other work on a 2-core machine moves the median and max; the min much less); native time for
// reference.
// Run: node tests/web/scan-bench.mjs   (needs build-wasm/wasm: cmake --build build-wasm --target layoutscope_wasm;
// LAYOUTSCOPE_WASM_DIR=dir measures another build of the module)
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { launch, root } from './browser.mjs';

const wasmDir = process.env.LAYOUTSCOPE_WASM_DIR ?? join(root, 'build-wasm', 'wasm');
const fixtures = join(root, 'tests', 'engine', 'fixtures', 'triton');

function dump(minLines) {
  const files = readdirSync(fixtures)
    .filter((f) => f.endsWith('.mlir'))
    .sort();
  const parts = [];
  let lines = 0;
  for (let copy = 0; lines < minLines; copy++) {
    for (const [k, f] of files.entries()) {
      let text = readFileSync(join(fixtures, f), 'utf8');
      const names = [...text.matchAll(/^#(\w+) = /gm)].map((m) => m[1]).sort((a, b) => b.length - a.length);
      for (const n of names) text = text.replace(new RegExp(`#${n}\\b`, 'g'), `#${n}_${copy}_${k}`);
      parts.push(text);
      lines += text.split('\n').length;
    }
  }
  return parts.join('\n');
}

const text = dump(2000);
const lineCount = text.split('\n').length;
const browser = await launch();
const page = await browser.newPage();
const origin = 'http://scan.bench';
await page.route(`${origin}/**`, (route) => {
  const name = new URL(route.request().url()).pathname.slice(1);
  if (name === '') return route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>scan</title>' });
  const type = name.endsWith('.wasm') ? 'application/wasm' : 'text/javascript';
  return route.fulfill({ contentType: type, body: readFileSync(join(wasmDir, name)) });
});
await page.goto(origin + '/');
const r = await page.evaluate(async (dumpText) => {
  const { default: create } = await import('/layoutscope.js');
  const m = await create();
  const first = m.scanTtgir(dumpText);
  const times = [];
  for (let i = 0; i < 31; i++) {
    const t0 = performance.now();
    m.scanTtgir(dumpText);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return {
    min: times[0],
    median: times[15],
    max: times[30],
    ops: first.ops.length,
    aliases: first.aliases.length,
    issues: first.issues.length,
  };
}, text);
await browser.close();
console.log(
  `scan in headless Chromium (WASM): ${lineCount} lines, ${r.aliases} layouts, ${r.ops} ops, ${r.issues} issues: ` +
    `min ${r.min.toFixed(1)} ms, median ${r.median.toFixed(1)} ms, max ${r.max.toFixed(1)} ms (target <= 200 ms); ` +
    `load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
);
const native = join(root, 'build', 'bin', 'layoutscope');
if (existsSync(native)) {
  const t0 = process.hrtime.bigint();
  execFileSync(native, ['scan', '-'], { input: text, encoding: 'utf8' });
  console.log(`native CLI (process start included): ${(Number(process.hrtime.bigint() - t0) / 1e6).toFixed(1)} ms`);
}
