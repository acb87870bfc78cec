// The committed H200 runs (docs/results/) opened in the benchmark panel with no agent: every access of every run
// is drawn, lanes from the engine's walk (the results predate per-lane elements) and only where the engine's cost
// of those lanes equals the recorded one. The expected lanes are worked out here from the access's own words, and
// the costs are the recorded numbers; nothing is read from the page's code.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { launch, root } from './browser.mjs';
import { start } from './serve.mjs';

const artifacts = join(root, 'build', 'artifacts');
mkdirSync(artifacts, { recursive: true });
const P = 'ls-bench-panel';
let server, browser, page;
const errors = [];

before(async () => {
  server = await start(join(root, 'web', 'dist'));
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(server.url);
  // the panel is built when it scrolls into view
  await page.locator(P).scrollIntoViewIfNeeded();
  await page.locator(`${P} button.open-reference`).click({ timeout: 60_000 });
  await page.waitForFunction(
    () =>
      document.querySelector('ls-bench-panel').shadowRoot.querySelectorAll('table.predictions tr.prediction').length >=
      30,
    null,
    { timeout: 20_000 },
  );
});
after(async () => {
  await browser?.close();
  await server?.close();
});

const host = () => page.locator(`${P} .figure-host`);
/** The drawn lanes: each lane word's title ("+N B: lane L") as [byte offset from the first line, lane]. */
const laneWords = () =>
  host()
    .locator('svg.lanes rect.lane-word title')
    .allTextContents()
    .then((ts) => ts.map((t) => /^\+(\d+) B: lane (\d+)$/.exec(t).slice(1).map(Number)));
async function open(variant, source, index) {
  await page.locator(`${P} tr.prediction[data-variant="${variant}"][data-source^="${source}"] .open-figure`).click();
  await host().locator('.access-choice button').nth(index).click();
  await host().locator('.access-text').waitFor();
}

test('every access of the four reference runs draws its lanes: none is left with "no lanes to draw"', async () => {
  const rows = await page
    .locator(`${P} tr.prediction`)
    .evaluateAll((trs) =>
      trs.filter((tr) => tr.querySelector('.open-figure')).map((tr) => [tr.dataset.variant, tr.dataset.source]),
    );
  assert.ok(rows.length >= 30, `${rows.length} rows`);
  const missing = [];
  let drawn = 0;
  for (const [variant, source] of rows) {
    await page.locator(`${P} tr.prediction[data-variant="${variant}"][data-source="${source}"] .open-figure`).click();
    const n = await host().locator('.access-choice button').count();
    for (let i = 0; i < n; ++i) {
      await host().locator('.access-choice button').nth(i).click();
      if ((await host().locator('.no-lanes').count()) > 0) {
        missing.push(`${source} ${variant} #${i}: ${await host().locator('.access-text').innerText()}`);
        continue;
      }
      assert.ok((await host().locator('svg.lanes rect.lane-word').count()) > 0, `${variant} #${i} draws lanes`);
      ++drawn;
    }
  }
  assert.deepEqual(missing, []);
  assert.ok(drawn >= 100, `${drawn} accesses drawn`);
  assert.deepEqual(errors, []);
});

test('the TMA store: one thread issues it, drawn as its 16 chunks of 16 B along one 256 B row piece (8 sectors)', async () => {
  // "one bulk copy (TMA) writes a 256 B output row piece ..., shown as its 16 chunks of 16 B", recorded 16 lanes,
  // 8 sectors per request: chunks 0..15 at bytes 0, 16, ..., 240 of one row, 4 words each
  await open('tile64_pad 4096', 'h200-profile-transpose', 1);
  assert.equal(await host().locator('.engine-walk').getAttribute('data-walk'), 'bulk');
  assert.match(await host().locator('.engine-walk').innerText(), /issued by one thread.*16 chunks of 16 B.* 8 sectors/);
  const words = await laneWords();
  assert.equal(words.length, 64);
  assert.deepEqual(
    words,
    Array.from({ length: 64 }, (_, w) => [4 * w, Math.floor(w / 4)]),
  );
  assert.match(await host().locator('.cost').innerText(), /16 lanes × 16 B: 8 sectors/);
  await host().screenshot({ path: join(artifacts, 'reference-lanes-tma.png') });
});

test('the tile64 column of chunks: lane l at tile(4 (l % 16), 4 (l / 16)), 4 wavefronts on the padded tile', async () => {
  // S[(16,4,64):(260,64,1)]: row 4a starts at word 260 a, so lane l's first word is 260 (l % 16) + 4 (l / 16),
  // byte 4 times that; its 16 B are 4 words
  await open('tile64_pad 4096', 'h200-profile-transpose', 3);
  assert.match(await host().locator('.access-text').innerText(), /column of chunks/);
  assert.equal(await host().locator('.engine-walk').getAttribute('data-walk'), 'chunks');
  const want = [];
  for (let l = 0; l < 32; ++l)
    for (let j = 0; j < 4; ++j) want.push([4 * (260 * (l % 16) + 4 * Math.floor(l / 16) + j), l]);
  want.sort((p, q) => p[0] - q[0]);
  // the picture folds untouched 128 B lines, so offsets are compared as (line, word) pairs of the absolute address
  const got = await host()
    .locator('svg.lanes rect.lane-word')
    .evaluateAll((rs) => rs.map((r) => r.querySelector('title').textContent));
  assert.equal(got.length, 128);
  const lanesOfWords = got.map((t) => Number(/lane (\d+)/.exec(t)[1]));
  assert.deepEqual(
    lanesOfWords.slice().sort((a, b) => a - b),
    want.map((w) => w[1]).sort((a, b) => a - b),
  );
  // the 128 B lines those bytes touch, labelled from the first one (+0): lane l's bytes 1040 (l % 16) + 16 (l / 16)
  // .. + 15
  const lines = new Set();
  for (let l = 0; l < 32; ++l) {
    const b = 1040 * (l % 16) + 16 * Math.floor(l / 16);
    lines.add(Math.floor(b / 128));
    lines.add(Math.floor((b + 15) / 128));
  }
  assert.deepEqual(
    await host()
      .locator('svg.lanes text', { hasText: /^\+\d+$/ })
      .allTextContents(),
    [...lines].sort((a, b) => a - b).map((n) => `+${n * 128}`),
  );
  assert.match(await host().locator('.cost').innerText(), /4 wavefronts per instruction \(ideal 4\b/);
  // the swizzled tile's column read, Swizzle<3,2,6> o S[(64,64):(64,1)]: the same lanes, 4 wavefronts
  await open('tile64_swizzle 4096', 'h200-profile-transpose', 3);
  assert.equal(await host().locator('.engine-walk').getAttribute('data-walk'), 'chunks');
  assert.equal(await host().locator('svg.lanes rect.lane-word').count(), 128);
  await host().screenshot({ path: join(artifacts, 'reference-lanes-chunks.png') });
});

test('SoA float4: lane i moves field 0 of records 4i..4i+3, 16 B adjacent in memory: 512 B in one run, 16 sectors', async () => {
  // S[(n,8):(1,n)]: field k of record i at word k n + i, so lane i's 4 words are 4i..4i+3: bytes 16 i .. 16 i + 15
  await open('SOA_VEC (t=1)', 'h200-profile-aos_soa', 0);
  assert.equal(await host().locator('.engine-walk').getAttribute('data-walk'), 'column-vectors');
  const words = await laneWords();
  assert.deepEqual(
    words,
    Array.from({ length: 128 }, (_, w) => [4 * w, Math.floor(w / 4)]),
  );
  assert.match(await host().locator('.cost').innerText(), /32 lanes × 16 B: 16 sectors/);
  await host().screenshot({ path: join(artifacts, 'reference-lanes-soa4.png') });
});
