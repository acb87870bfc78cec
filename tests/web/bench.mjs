// The numbers (printed, not asserted): click -> highlight on the 128x512 TMEM view (p50/p95), time to
// first interactive figure from a local server (7 cold loads), bytes transferred on the first load, the longest
// task while loading, whether the panel chunk is fetched unasked, the playground's paste -> figure (64K elements)
// and click -> highlight (1M cells), gzip transfer size of JS+WASM+CSS, WASM vs native mappings/s on the same
// layouts as bench/ (native from build/bin/layoutscope-bench when it exists).
// Run: node tests/web/bench.mjs   (needs web/dist: tests/web/run.sh or `npm run build` in web/)
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { loadModule } from '../wasm/load.mjs';
import { launch, root } from './browser.mjs';
import { start } from './serve.mjs';

const q = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const WORKLOADS = {
  BM_ForwardTile4Mode: 'S[(4,2,2,4):(16,4,8,1)]',
  BM_ForwardTile4ModeLarge: 'S[(64,32,16,32):(16384,32,512,1)]',
  BM_ForwardNonPow2: 'S[(3,5,7,9):(315,63,9,1)]',
  BM_ForwardScaleFactorsWithReplicas: 'S[(4,32,4):(1@TCol,1@TLane,1@byte)] + R[4:32@TLane]',
  BM_ForwardSwizzled: 'Swizzle<3,3,3> o S[(64,64):(64,1)]',
};

// 1. WASM vs native mappings/s
const m = await loadModule();
const wasm = {};
for (const [name, layout] of Object.entries(WORKLOADS)) {
  let passes = 1,
    r;
  for (;;) {
    r = m.mapThroughput(layout, passes);
    if (!r.ok) throw new Error(r.error.message);
    if (r.seconds > 0.25) break;
    passes *= 4;
  }
  // V8 runs a wasm function in its baseline tier until it is hot and has no on-stack replacement, so
  // one long call can be measured entirely in baseline code: repeat and keep the best (optimized) run.
  let best = r.mappings / r.seconds;
  for (let i = 0; i < 5; i++) {
    r = m.mapThroughput(layout, passes);
    best = Math.max(best, r.mappings / r.seconds);
  }
  wasm[name] = best;
}
const native = {};
const benchBin = join(root, 'build', 'bin', 'layoutscope-bench');
if (existsSync(benchBin)) {
  const out = JSON.parse(
    execFileSync(benchBin, ['--benchmark_format=json', '--benchmark_filter=BM_Forward'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }),
  );
  for (const b of out.benchmarks) if (b['mappings/s'] !== undefined) native[b.name] = b['mappings/s'];
}
console.log('WASM vs native mappings/s (same layouts as bench/):');
for (const name of Object.keys(WORKLOADS)) {
  const n = native[name];
  console.log(
    `  ${name.padEnd(36)} wasm ${(wasm[name] / 1e6).toFixed(1).padStart(7)} M/s` +
      (n
        ? `   native ${(n / 1e6).toFixed(1).padStart(7)} M/s   ratio ${(wasm[name] / n).toFixed(2)}`
        : '   (native: build/bin/layoutscope-bench absent)'),
  );
}

// 2. transfer size (gzip -9) of what the page loads: index.html, its entry, every figure's chunk (the first before
// its figure, the others when near the viewport or idle), CSS, the module and its worker. The benchmark panel
// (Observable Plot, the schema validator) is a chunk loaded on demand; layoutscope.js (every figure in one file, for
// docs sites) and embed.html's files are not loaded by the page: reported apart.
const dist = join(root, 'web', 'dist');
const gzOf = (f) => gzipSync(readFileSync(join(dist, f)), { level: 9 }).length;
const assets = readdirSync(join(dist, 'assets'))
  .map((f) => join('assets', f))
  .filter((f) => /\.(js|wasm|css)$/.test(f));
const later = [...assets.filter((f) => /assets\/(panel|embed)-/.test(f)), 'layoutscope.js'];
const files = ['index.html', ...assets.filter((f) => !later.includes(f))];
const gz = files.reduce((a, f) => a + gzOf(f), 0);
console.log(`transfer size, gzip: ${(gz / 1024).toFixed(1)} KiB (${files.join(', ')}; target <= 300 KB)`);
for (const f of later) console.log(`  loaded later / elsewhere: ${f} ${(gzOf(f) / 1024).toFixed(1)} KiB gzip`);

// 3. time to first interactive figure, 4. TMEM click -> highlight
const server = await start(dist);
const browser = await launch();
try {
  // cold loads: a fresh context each (empty cache), the test server sending the build's precompressed files as
  // the agent does. Transferred bytes are the encoded response bodies and headers the browser received.
  const ttfi = [],
    transferred = [],
    longest = [],
    panelFetched = [],
    before = [];
  for (let i = 0; i < 7; ++i) {
    const ctx = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await ctx.newPage();
    await page.addInitScript(() => {
      window.__longTasks = [];
      new PerformanceObserver((l) => window.__longTasks.push(...l.getEntries().map((e) => e.duration))).observe({
        type: 'longtask',
        buffered: true,
      });
    });
    const responses = [];
    page.on('requestfinished', (r) => responses.push(r));
    await page.goto(server.url, { waitUntil: 'commit' });
    // the time at which the predicate first held, taken in the page (not after a round trip to this process)
    const at = await page.waitForFunction(
      () =>
        document.querySelector('ls-tile-layout')?.shadowRoot?.querySelector('.view [data-hit]') ? performance.now() : 0,
      null,
      { polling: 'raf' },
    );
    ttfi.push(await at.jsonValue());
    // what the first figure waited for: the requests started before it was interactive (encoded bodies)
    before.push(
      await page.evaluate((t) => {
        const rs = performance.getEntriesByType('resource').filter((e) => e.startTime < t);
        return { n: rs.length + 1, bytes: rs.reduce((a, e) => a + e.encodedBodySize, 0) };
      }, ttfi.at(-1)),
    );
    // then idle for 3 s: the other figures come in one per idle period; nothing fetches the panel chunk
    await page.waitForTimeout(3000);
    let bytes = 0;
    for (const r of responses) {
      const z = await r.sizes();
      bytes += z.responseBodySize + z.responseHeadersSize;
    }
    transferred.push(bytes);
    longest.push(Math.max(0, ...(await page.evaluate(() => window.__longTasks))));
    panelFetched.push(responses.some((r) => /assets\/panel-/.test(r.url())));
    if (i === 6) {
      // each figure's first computation and its render (Lit commits in the same task): where a long task comes from
      const m = await page.evaluate(() =>
        performance
          .getEntriesByType('measure')
          .filter((e) => e.name.startsWith('ls-first-render'))
          .map((e) => `${e.name.slice(16)} ${e.duration.toFixed(0)} ms`),
      );
      console.log(`first render per figure (last load): ${m.join(', ')}`);
    }
    await ctx.close();
  }
  console.log(
    `time to first interactive figure: median ${q(ttfi, 0.5).toFixed(0)} ms, max ${Math.max(...ttfi).toFixed(0)} ms over ${ttfi.length} cold loads (target <= 500 ms)`,
  );
  console.log(
    `before the first figure (last load): ${before.at(-1).n} requests (the page included), ${(before.at(-1).bytes / 1024).toFixed(1)} KiB of bodies besides the HTML`,
  );
  console.log(
    `transferred on first load (3 s after): median ${(q(transferred, 0.5) / 1024).toFixed(1)} KiB (target <= 300 KB); panel chunk fetched in ${panelFetched.filter(Boolean).length} of ${panelFetched.length} loads`,
  );
  console.log(
    `longest task during the first load: median ${q(longest, 0.5).toFixed(0)} ms, max ${Math.max(...longest).toFixed(0)} ms`,
  );

  const ctx = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await ctx.newPage();
  await page.goto(server.url + '#tmem.n=512');
  const canvas = page.locator('ls-tmem canvas');
  await canvas.waitFor();
  await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox();
  const scale = box.width / (44 + 512 * 2 + 12);
  const lat = [];
  for (let i = 0; i < 200; ++i) {
    const lane = (i * 37) % 128,
      col = (i * 101) % 512;
    await canvas.click({ position: { x: (44 + col * 2 + 1) * scale, y: (22 + lane * 3 + 1.5) * scale } });
    // from the pointer event to the painted canvas, measured in the page
    lat.push(Number(await page.locator('ls-tmem').getAttribute('data-latency')));
  }
  console.log(
    `TMEM 128x512 click -> highlight: p50 ${q(lat, 0.5).toFixed(2)} ms, p95 ${q(lat, 0.95).toFixed(2)} ms over ${lat.length} clicks (target p95 <= 16 ms)`,
  );
  await ctx.close();

  // 5. playground: paste -> figure (64K elements), click -> highlight on a 1M-cell raster
  const pctx = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  const pp = await pctx.newPage();
  await pp.goto(server.url + '#fig=play');
  const PG = 'ls-playground';
  await pp.locator(`${PG} .view`).waitFor();
  const show = async (layout, shape) => {
    await pp.fill(`${PG} input[name=layout]`, layout);
    await pp.fill(`${PG} input[name=shape]`, shape);
    await pp.click(`${PG} button[type=submit]`);
    await pp.locator(`${PG}:not([aria-busy])`).waitFor(); // a large layout is prepared in the background
    await pp.locator(`${PG} .view`).waitFor();
  };
  const paste = [];
  for (let i = 0; i < 9; ++i) {
    await show(i % 2 ? 'S[(256,256):(1,256)]' : 'Swizzle<3,3,3> o S[(256,256):(256,1)]', '256,256');
    paste.push(Number(await pp.locator(PG).getAttribute('data-latency')));
  }
  console.log(
    `playground paste -> figure, 65,536 elements: p50 ${q(paste, 0.5).toFixed(1)} ms, max ${Math.max(...paste).toFixed(1)} ms (target <= 50 ms)`,
  );
  await pp.evaluate(() => {
    window.__lt = [];
    window.__po = new PerformanceObserver((l) => window.__lt.push(...l.getEntries().map((e) => e.duration)));
    window.__po.observe({ type: 'longtask' });
  });
  const t0 = Date.now();
  await show('S[(1024,1024):(1,1024)]', '1024,1024');
  const applyMs = Date.now() - t0;
  await pp.waitForTimeout(300);
  const applyLongest = Math.max(0, ...(await pp.evaluate(() => window.__lt)));
  console.log(
    `playground apply 1,048,576 cells: drawn after ${applyMs} ms, longest main-thread task ` +
      `${applyLongest.toFixed(0)} ms (0: none over 50 ms; target <= 50 ms)`,
  );
  const pcanvas = pp.locator(`${PG} canvas`);
  await pcanvas.scrollIntoViewIfNeeded();
  const cb = await pcanvas.boundingBox();
  const clicks = [];
  for (let i = 0; i < 100; ++i) {
    const b = await pp
      .locator(PG)
      .evaluate((el, x) => el.cellBox(`L:${x}`), ((i * 7919) % 1024) * 1024 + ((i * 104729) % 1024));
    const sw = await pcanvas.evaluate((c) => c.width / Math.min(2, window.devicePixelRatio || 1));
    const k = cb.width / sw;
    await pp.mouse.click(cb.x + (b.x + b.w / 2) * k, cb.y + (b.y + b.h / 2) * k);
    clicks.push(Number(await pp.locator(PG).getAttribute('data-latency')));
  }
  console.log(
    `playground 1,048,576-cell click -> highlight: p50 ${q(clicks, 0.5).toFixed(2)} ms, p95 ${q(clicks, 0.95).toFixed(2)} ms over ${clicks.length} clicks (target p95 <= 16 ms)`,
  );
  await pctx.close();
} finally {
  await browser.close();
  await server.close();
}
