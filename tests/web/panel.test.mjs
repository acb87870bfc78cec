// The benchmark panel against a real layoutscope-agent (CPU backend, started here on a free port, serving
// web/dist): connect through the URL the agent prints, run a small sweep to 100%, plots and tables, the
// engine's predictions, downloads (JSON validated against the schema, CSV parsed), wrong token, unreachable
// agent, the offline file view. Expected numbers are worked out in the comments, not read from the program.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { AxeBuilder, launch, root } from './browser.mjs';
import { closedPort, startAgent } from './agent.mjs';

const require = createRequire(join(root, 'web', 'package.json'));
const Ajv2020 = require('ajv/dist/2020.js').default;
const addFormats = require('ajv-formats').default;
const schema = JSON.parse(readFileSync(join(root, 'schemas', 'results.schema.json'), 'utf8'));
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
const validate = ajv.compile(schema);

const artifacts = join(root, 'build', 'artifacts');
let agent, browser, page;
const consoleErrors = [];
const P = 'ls-bench-panel';
const text = (sel) => page.locator(`${P} ${sel}`).first().textContent();
/** Leaves only `keep` checked among the checkboxes of a list parameter (absent parameters are skipped). */
async function uncheckAllBut(name, keep) {
  for (const box of await page.locator(`${P} input[type=checkbox][name=${name}]`).all()) {
    const want = keep.includes(await box.getAttribute('value'));
    if ((await box.isChecked()) !== want) await box.click();
  }
}

before(async () => {
  agent = await startAgent();
  browser = await launch();
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, acceptDownloads: true });
  page = await context.newPage();
  page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
});

after(async () => {
  await browser?.close();
  await agent?.stop();
});

test('connect through the printed URL: the agent is ready, its device listed, the token leaves the address bar', async () => {
  await page.goto(agent.url);
  await page.waitForSelector(`${P} .agent.ready`, { timeout: 15_000 });
  assert.match(await text('.agent .devices'), /device 0: .*\(cpu, \d+\s+hardware threads/);
  assert.equal(await page.evaluate(() => /token=/.test(location.hash)), false, 'the token must not stay in the URL');
  // the printed URL opens the page at its top (the figures first), with the panel connected below
  assert.equal(await page.evaluate(() => window.scrollY), 0, 'the page opens at the top');
  assert.ok(await page.locator('h1').isVisible());
  // the run form is built from GET /v1/benchmarks: both benchmarks, with their parameters and bounds
  assert.equal(await page.locator(`${P} button.bench-aos_soa`).count(), 1);
  assert.equal(await page.locator(`${P} button.bench-transpose`).count(), 1);
  assert.equal(await page.locator(`${P} input[name=touch_fields]`).count(), 4);
});

test('bounds are enforced in the form before anything is sent', async () => {
  await page.fill(`${P} input[name=n]`, '8'); // the catalogue's minimum is 32
  assert.match(await text('.form-error'), /n: 8 is below the minimum 32/);
  assert.equal(await page.locator(`${P} .run-button`).isDisabled(), true);
  await page.fill(`${P} input[name=n]`, '4096');
  assert.equal(await page.locator(`${P} .form-error`).count(), 0);
});

let runId;
test('a small AoS/SoA sweep: progress reaches 100%, 8 bars (2 layouts x 4 touch counts), tables, predictions', async () => {
  await page.fill(`${P} input[name=repetitions]`, '3');
  await page.fill(`${P} input[name=warmup]`, '0');
  await uncheckAllBut('layouts', ['aos', 'soa']); // the scalar kernels only: 2 layouts
  await page.click(`${P} .run-button`);
  await page.waitForFunction(
    () =>
      /100% · succeeded/.test(
        document.querySelector('ls-bench-panel').shadowRoot.querySelector('.progress-text')?.textContent ?? '',
      ),
    null,
    { timeout: 30_000 },
  );
  assert.equal(await page.locator(`${P} .bar[role=progressbar]`).getAttribute('aria-valuenow'), '100');
  await page.waitForSelector(`${P} figure[data-plot=aos-bandwidth] svg`);
  assert.equal(await page.locator(`${P} figure[data-plot=aos-bandwidth] g.ls-bandwidth-bars rect`).count(), 8);
  assert.equal(await page.locator(`${P} figure[data-plot=aos-speedup] g.ls-speedup-dots circle`).count(), 4);
  assert.equal(await page.locator(`${P} table.aos-table tbody tr`).count(), 8);
  // the sector-model bound 8/t: AoS reads one 32 B sector per element whatever t, SoA t x 4 B
  const bounds = await page.locator(`${P} table.speedup-table tbody tr td:nth-child(4)`).allTextContents();
  assert.deepEqual(bounds, ['8.00', '4.00', '2.00', '1.00']);
  // predictions from the page's engine: AoS lanes 32 B apart -> 32 sectors; SoA 32 x 4 B contiguous -> 4
  assert.equal((await page.locator(`${P} tr.prediction[data-variant^="AOS"] td.sectors`).textContent()).trim(), '32');
  assert.equal((await page.locator(`${P} tr.prediction[data-variant^="SOA"] td.sectors`).textContent()).trim(), '4');
  assert.equal(await page.locator(`${P} tr.prediction td.error`).count(), 0, 'the agent and the page agree');
  // a CPU run's captions speak of this run, never of another device
  const captions = await page.locator(`${P} figure.plot figcaption`).allTextContents();
  assert.ok(captions.length >= 2);
  for (const c of captions) assert.doesNotMatch(c, /H200/);
  runId = (await agent.fetch('/v1/runs').then((r) => r.json())).runs.at(-1).id;
  await page.locator(P).screenshot({ path: join(artifacts, 'panel-aos.png') });
});

test('clicking a variant draws its lanes from the results; a what-if layout is re-costed by the page', async () => {
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.click(`${P} tr.prediction[data-variant^="AOS"] .open-figure`);
  const host = page.locator(`${P} .figure-host`);
  // the figure opens below the table: the page scrolls to it and its heading takes the focus
  await page.waitForFunction(() => {
    const h = document.querySelector('ls-bench-panel').shadowRoot.querySelector('.figure-host');
    const r = h?.getBoundingClientRect();
    return r && r.top >= 0 && r.top < window.innerHeight;
  });
  assert.equal(
    await page.evaluate(() => document.querySelector('ls-bench-panel').shadowRoot.activeElement?.className),
    'grow figure-title',
  );
  // the results' own numbers: AoS lanes 32 B apart (element i of 8 floats), 4 B each -> one sector per lane
  assert.match(
    await host.locator('.cost.from-results').textContent(),
    /32 lanes × 4 B: 32 sectors of 32 B per request/,
  );
  // 32 lanes x one 4 B word, 32 B apart: 1024 B = 8 lines of 128 B, one word per lane
  assert.equal(await host.locator('svg.lanes rect.lane-word').count(), 32);
  assert.equal(await host.locator('svg.lanes text', { hasText: /^\+\d+$/ }).count(), 8);
  // the same lanes (element i, field 0) in the SoA layout of the same 4096 x 8 tensor: 32 consecutive floats,
  // 128 B = 4 sectors
  await host.locator('input[name=layout]').fill('S[(4096,8):(1,4096)]');
  await host.locator('button.recost').click();
  assert.match(await host.locator('.cost.what-if').textContent(), /32 lanes × 4 B: 4 sectors of 32 B per request/);
  assert.equal(await host.locator('svg.lanes text', { hasText: /^\+\d+$/ }).count(), 1);
  // a typo is the engine's error, pointing at its column
  await host.locator('input[name=layout]').fill('S[(4096,8):(1,4096)');
  await host.locator('button.recost').click();
  assert.match(await host.locator('.access-error').textContent(), /column \d+/);
  await host.locator('button.reset').click();
  assert.equal(await host.locator('.cost.from-results').count(), 1);
});

test('downloads: the JSON is the agent result and validates against the schema; the CSV parses', async () => {
  const [jsonDl] = await Promise.all([page.waitForEvent('download'), page.click(`${P} .export-json >> nth=0`)]);
  const doc = JSON.parse(readFileSync(await jsonDl.path(), 'utf8'));
  assert.ok(validate(doc), JSON.stringify(validate.errors?.slice(0, 5)));
  const record = await agent.fetch(`/v1/runs/${runId}`).then((r) => r.json());
  assert.deepEqual(doc, record.result);
  const [csvDl] = await Promise.all([page.waitForEvent('download'), page.click(`${P} .export-csv >> nth=0`)]);
  const lines = readFileSync(await csvDl.path(), 'utf8')
    .trim()
    .split('\n');
  const head = lines[0].split(',');
  assert.ok(head.includes('useful_bandwidth_B_per_s') && head.includes('touch_fields'), lines[0]);
  assert.equal(lines.length - 1, 8, '2 layouts x 4 touch counts');
  for (const l of lines.slice(1)) assert.equal(l.split(',').length, head.length);
  const [svgDl] = await Promise.all([
    page.waitForEvent('download'),
    page.click(`${P} figure[data-plot=aos-bandwidth] .plot-svg`),
  ]);
  const svg = readFileSync(await svgDl.path(), 'utf8');
  assert.match(svg, /^<svg[^>]+xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  const [pngDl] = await Promise.all([
    page.waitForEvent('download'),
    page.click(`${P} figure[data-plot=aos-bandwidth] .plot-png`),
  ]);
  assert.equal(
    readFileSync(await pngDl.path())
      .subarray(1, 4)
      .toString(),
    'PNG',
  );
});

test("a results file downloads as the agent's own CSV of that run, byte for byte (the module runs its printer)", async () => {
  const record = await agent.fetch(`/v1/runs/${runId}`).then((r) => r.text());
  const agentCsv = await agent.fetch(`/v1/runs/${runId}?format=csv`).then((r) => r.text());
  const dir = mkdtempSync(join(tmpdir(), 'ls-web-csv-'));
  writeFileSync(join(dir, 'aos-record.json'), record);
  const before = await page.locator(`${P} .export-csv`).count();
  await page.setInputFiles(`${P} input.file`, join(dir, 'aos-record.json'));
  await page.waitForFunction(
    (n) => document.querySelector('ls-bench-panel').shadowRoot.querySelectorAll('.export-csv').length > n,
    before,
  );
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`${P} .export-csv >> nth=${before}`)]);
  assert.equal(readFileSync(await dl.path(), 'utf8'), agentCsv);
});

test('transpose: 4 variants; tiled predicts 32 wavefronts, pad 1; the column read drawn, a padded what-if costs 1', async () => {
  await page.click(`${P} button.bench-transpose`);
  await page.fill(`${P} input[name=dim]`, '64');
  await page.fill(`${P} input[name=repetitions]`, '3');
  await page.fill(`${P} input[name=warmup]`, '0');
  await uncheckAllBut('variants', ['copy', 'naive', 'tiled', 'pad']); // the document's four
  await page.click(`${P} .run-button`);
  await page.waitForFunction(
    () => {
      const root = document.querySelector('ls-bench-panel').shadowRoot;
      return (
        /100% · succeeded/.test(root.querySelector('.progress-text')?.textContent ?? '') &&
        root.querySelector('figure[data-plot=transpose-fraction] svg')
      );
    },
    null,
    { timeout: 30_000 },
  );
  assert.equal(await page.locator(`${P} figure[data-plot=transpose-bandwidth] g.ls-bandwidth-bars rect`).count(), 4);
  // a 32-float column of tile[32][32] is one bank 32 times; with a 33-float row it is 32 banks
  assert.equal(
    (await page.locator(`${P} tr.prediction[data-variant="tiled 64"] td.wavefronts`).textContent()).trim(),
    '1 / 32',
  );
  assert.equal(
    (await page.locator(`${P} tr.prediction[data-variant="pad 64"] td.wavefronts`).textContent()).trim(),
    '1 / 1',
  );
  // naive stores a column of a 64-float-wide matrix: 32 lanes in 32 different sectors
  assert.equal(
    (await page.locator(`${P} tr.prediction[data-variant="naive 64"] td.sectors`).textContent()).trim(),
    '4 / 32',
  );
  // the shared tile's column read (the fourth access: load, store, shared store, shared load): tile[i][0] for
  // lane i is word 32 i, bank 0 for every lane: 32 wavefronts where 1 would do
  await page.click(`${P} tr.prediction[data-variant="tiled 64"] .open-figure`);
  const host = page.locator(`${P} .figure-host`);
  await host.locator('.access-choice button >> nth=3').click();
  assert.match(await host.locator('.cost').textContent(), /32 wavefronts per instruction \(ideal 1, 31 conflicts\)/);
  assert.equal(await host.locator('svg.lanes rect.lane-word').count(), 32);
  // what-if: the padded row of 33 floats puts lane i in bank i: one wavefront
  await host.locator('input[name=layout]').fill('S[(32,32):(33,1)]');
  await host.locator('button.recost').click();
  assert.match(
    await host.locator('.cost.what-if').textContent(),
    /1 wavefront per instruction \(ideal 1, 0 conflicts\)/,
  );
  await page.locator(P).screenshot({ path: join(artifacts, 'panel-transpose.png') });
});

test('transpose tile64: the bulk store (8 sectors per 256 B row), 4 wavefronts, and a 4 B what-if conflicts 4-way', async () => {
  await page.click(`${P} button.bench-transpose`);
  await page.fill(`${P} input[name=dim]`, '128');
  await page.fill(`${P} input[name=repetitions]`, '3');
  await page.fill(`${P} input[name=warmup]`, '0');
  await uncheckAllBut('variants', ['tile64_pad', 'tile64_swizzle']);
  await page.click(`${P} .run-button`);
  await page.waitForFunction(
    () => {
      const root = document.querySelector('ls-bench-panel').shadowRoot;
      return (
        /100% · succeeded/.test(root.querySelector('.progress-text')?.textContent ?? '') &&
        root.querySelector('tr.prediction[data-variant="tile64_swizzle 128"]')
      );
    },
    null,
    { timeout: 30_000 },
  );
  for (const v of ['tile64_pad 128', 'tile64_swizzle 128']) {
    // load: 32 lanes x 16 B = two 256 B row pieces = 16 sectors; store: one 256 B bulk copy = 8 sectors
    assert.equal(
      (await page.locator(`${P} tr.prediction[data-variant="${v}"] td.sectors`).textContent()).trim(),
      '16 / 8',
      v,
    );
    // tile fill, column read, staging rows: 4 wavefronts (1 per 8 lanes); the row-major reference: 32 (8-way)
    assert.equal(
      (await page.locator(`${P} tr.prediction[data-variant="${v}"] td.wavefronts`).textContent()).trim(),
      '4 / 4 / 4 / 32',
      v,
    );
  }
  assert.equal(await page.locator(`${P} tr.prediction td.error`).count(), 0, 'the agent and the page agree');
  await page.locator(`${P} table.predictions`).screenshot({ path: join(artifacts, 'panel-tile64.png') });
  // the kernel's column read of the padded tile, 16 B per lane: 4 wavefronts, the ideal for 512 B. As 4 B reads
  // the same lanes hit word 260 (l % 16) + 4 (l / 16), bank 4 ((l % 16) + l / 16) mod 32: 8 banks of 4 distinct
  // words each, 4 wavefronts where 1 would do
  await page.click(`${P} tr.prediction[data-variant="tile64_pad 128"] .open-figure`);
  const host = page.locator(`${P} .figure-host`);
  await host.locator('.access-choice button >> nth=3').click();
  assert.match(await host.locator('.cost').textContent(), /4 wavefronts per instruction \(ideal 4, 0 conflicts\)/);
  await host.locator('select[name=instr]').selectOption('LDS.32');
  await host.locator('button.recost').click();
  assert.match(
    await host.locator('.cost.what-if').textContent(),
    /4 wavefronts per instruction \(ideal 1, 3 conflicts\)/,
  );
  await host.screenshot({ path: join(artifacts, 'panel-tile64-figure.png') });
});

test('a wrong token and an unreachable agent each say so', async () => {
  await page.fill(`${P} input[name=url]`, `${agent.base}/#token=${'0'.repeat(64)}`);
  await page.click(`${P} .add-agent button[type=submit]`);
  // adding the same base replaces the connected agent: re-add the right one afterwards
  await page.waitForSelector(`${P} .problem[data-kind=unauthorized]`);
  assert.match(await text('.problem[data-kind=unauthorized]'), /refused the token \(401\)/);
  const port = await closedPort();
  await page.fill(`${P} input[name=url]`, `http://127.0.0.1:${port}/#token=${'1'.repeat(64)}`);
  await page.click(`${P} .add-agent button[type=submit]`);
  await page.waitForSelector(`${P} .problem[data-kind=unreachable]`);
  assert.match(await text('.problem[data-kind=unreachable]'), new RegExp(`No answer from http://127.0.0.1:${port}`));
  await page.fill(`${P} input[name=url]`, `${agent.base}/?token=${'2'.repeat(64)}`);
  await page.click(`${P} .add-agent button[type=submit]`);
  assert.match(await text('.notice'), /belongs in the URL fragment/);
  await page.locator(`${P} fieldset.agents`).screenshot({ path: join(artifacts, 'panel-agent-errors.png') });
  // the browser logs the refused fetches (401, connection refused) as console errors: expected here
  consoleErrors.length = 0;
});

test('offline: a results file is validated, plotted and tabled; a file that does not match says where', async () => {
  await page.setInputFiles(`${P} input.file`, join(root, 'docs', 'results', 'h200-transpose.json'));
  // 4 variants x 3 sizes (4096, 8192, 16384) in the H200 file
  await page.waitForFunction(
    () =>
      document.querySelector('ls-bench-panel').shadowRoot.querySelectorAll('table.transpose-table tbody tr').length >=
      12 + 4,
  );
  assert.match(await page.locator(`${P} .chips`).textContent(), /h200-transpose\.json · NVIDIA H200/);
  const bad = JSON.parse(readFileSync(join(root, 'docs', 'results', 'h200-transpose.json'), 'utf8'));
  delete bad.schema_version;
  bad.benchmarks[0].states[0].summaries[0].unit = 'ms';
  const dir = mkdtempSync(join(tmpdir(), 'ls-web-bad-'));
  writeFileSync(join(dir, 'bad.json'), JSON.stringify(bad));
  await page.setInputFiles(`${P} input.file`, join(dir, 'bad.json'));
  const msg = await text('.offline-error');
  assert.match(msg, /bad\.json: This file does not match the layoutscope results schema/);
  assert.match(msg, /must have required property 'schema_version'/);
  writeFileSync(join(dir, 'notjson.json'), '{"schema_version": ');
  await page.setInputFiles(`${P} input.file`, join(dir, 'notjson.json'));
  assert.match(await text('.offline-error'), /notjson\.json is not JSON/);
  await page.locator(P).screenshot({ path: join(artifacts, 'panel-offline.png') });
});

test('offline: a profile run shows the measured sectors per request next to the prediction', async () => {
  await page.setInputFiles(`${P} input.file`, join(root, 'docs', 'results', 'h200-profile-transpose.json'));
  // The document's NCU table: naive transpose loads 4 sectors/request (a warp reads 128 contiguous bytes) and
  // stores 32 (each lane writes a different row, one sector each); the tiled kernel is 4 / 4.
  const cell = (variant) =>
    page.locator(`${P} tr.prediction[data-variant="${variant}"][data-source^="h200-profile-transpose"] td.measured`);
  await page.waitForFunction(() =>
    [...document.querySelector('ls-bench-panel').shadowRoot.querySelectorAll('tr.prediction td.measured')].some((td) =>
      /\d/.test(td.textContent),
    ),
  );
  assert.match(await cell('naive 4096').textContent(), /^\s*4\.0 \/ 32\.0/);
  assert.match(await cell('tiled 4096').textContent(), /^\s*4\.0 \/ 4\.0/);
});

test("offline: the reference-runs button opens the four committed H200 runs, and their predictions stand next to ncu's counters", async () => {
  await page.click(`${P} button.open-reference`);
  await page.waitForFunction(
    () =>
      /h200-profile-aos_soa\.json/.test(
        document.querySelector('ls-bench-panel').shadowRoot.querySelector('.chips')?.textContent ?? '',
      ),
    null,
    { timeout: 15_000 },
  );
  const chips = await page.locator(`${P} .chips`).textContent();
  for (const name of [
    'h200-transpose.json',
    'h200-aos_soa.json',
    'h200-profile-transpose.json',
    'h200-profile-aos_soa.json',
  ])
    assert.match(chips, new RegExp(name.replace('.', '\\.')), name);
  assert.equal(await page.locator(`${P} .offline-error`).count(), 0);
  // the committed file's tile64_pad 16384 state: useful bytes per second, shown in GB/s with one decimal
  const doc = JSON.parse(readFileSync(join(root, 'docs', 'results', 'h200-transpose.json'), 'utf8'));
  const st = doc.benchmarks[0].states.find(
    (s) => s.axis_values.variant === 'tile64_pad' && s.axis_values.dim === 16384,
  );
  const bw = st.summaries.find((x) => x.tag.endsWith('bw/global/bytes_per_second')).value;
  const row = (variant, file) => page.locator(`${P} tr.prediction[data-variant="${variant}"][data-source^="${file}"]`);
  // each source named once, above its rows, not in every row
  const heads = await page.locator(`${P} table.predictions tr.source-row`).allTextContents();
  assert.deepEqual(
    heads
      .map((h) => h.trim().split(' · ')[0])
      .filter((h) => h.startsWith('h200-'))
      .sort(),
    ['h200-aos_soa.json', 'h200-profile-aos_soa.json', 'h200-profile-transpose.json', 'h200-transpose.json'],
  );
  assert.equal(await page.locator(`${P} tr.prediction td`, { hasText: /h200-.*\.json/ }).count(), 0);
  assert.equal(
    (await row('tile64_pad 16384', 'h200-transpose.json').locator('td:nth-child(6)').textContent()).trim(),
    (bw / 1e9).toFixed(1),
  );
  // ncu on the H200: tile64 loads 32 lanes x 16 B = 512 B = 16 sectors per request; its stores are bulk copies,
  // which make no LSU request at all (shown as –); AoS 32 / 32 and SoA 4 / 4 as in the document's table
  assert.match(
    await row('tile64_swizzle 4096', 'h200-profile-transpose').locator('td.measured').textContent(),
    /^\s*16\.0 \/ –/,
  );
  assert.match(
    await row('AOS (t=1)', 'h200-profile-aos_soa').locator('td.measured').textContent(),
    /^\s*32\.0 \/ 32\.0/,
  );
  assert.match(await row('SOA (t=1)', 'h200-profile-aos_soa').locator('td.measured').textContent(), /^\s*4\.0 \/ 4\.0/);
  // the agent's predictions against ncu's counters: naive 4 / 32 sectors exactly; the tiled kernel's column read
  // 32 wavefronts where ncu averages 32.4 over the kernel (within 5 %); the tile64 column read predicts 4 and ncu
  // counts 4.7 per instruction: flagged, not hidden
  const vs = (variant) => row(variant, 'h200-profile-transpose').locator('td.vs-ncu');
  assert.match(await vs('naive 4096').textContent(), /ld 4 = 4\.00 ✓\s*st 32 = 32\.00 ✓/);
  assert.match(await vs('tiled 4096').textContent(), /smem ld 32 = 32\.44 ✓/);
  assert.match(await vs('tile64_swizzle 4096').textContent(), /smem ld 4 ≠ 4\.71 \(\+18%\)/);
  assert.match(await vs('tile64_swizzle 4096').getAttribute('class'), /warn/);
  assert.equal(await page.locator(`${P} tr.prediction td.error`).count(), 0);
  // these files were written before the agent recorded each lane's elements: the lanes drawn are the engine's
  // walk over the run's layout, shown only where it gives the recorded cost. The naive load, "lane i reads
  // in(r, c0 + i) (a row)" with 4 B lanes on S[(4096,4096):(4096,1)]: lanes 0..31 on elements 0..31 of row 0,
  // 32 words of one 128 B line, 4 sectors as recorded.
  await row('naive 4096', 'h200-profile-transpose').locator('.open-figure').click();
  const host = page.locator(`${P} .figure-host`);
  assert.equal(await host.locator('.no-lanes').count(), 0);
  assert.equal(await host.locator('.engine-walk').getAttribute('data-walk'), 'rows');
  assert.match(await host.locator('.engine-walk').textContent(), /rows of S\[\(4096,4096\):\(4096,1\)\].* 4 /);
  const words = () => host.locator('svg.lanes rect.lane-word').count();
  const lines = () => host.locator('svg.lanes text', { hasText: /^\+\d+$/ }).allTextContents();
  assert.equal(await words(), 32);
  assert.deepEqual(await lines(), ['+0']);
  // its store, "lane i writes out(c0 + i, r) (a column)": lane i in row i, rows 4096 x 4 B = 16 KiB apart, so 32
  // lines (each one word, with the gaps between them folded) and 32 sectors, as recorded
  await host.locator('.access-choice button').nth(1).click();
  assert.equal(await host.locator('.engine-walk').getAttribute('data-walk'), 'columns');
  assert.equal(await words(), 32);
  assert.deepEqual(
    await lines(),
    Array.from({ length: 32 }, (_, i) => `+${i * 16384}`),
  );
  await host.screenshot({ path: join(artifacts, 'panel-reference-lanes.png') });
  // the tile64 output row leaves as a bulk copy given as 16 chunks of 16 B (8 sectors recorded): one thread issues
  // it, so it is drawn as those 16 chunks along one row, 256 B in 2 lines, and says so
  await row('tile64_pad 4096', 'h200-profile-transpose').locator('.open-figure').click();
  await host.locator('.access-choice button').nth(1).click();
  assert.equal(await host.locator('.no-lanes').count(), 0);
  assert.equal(await host.locator('.engine-walk').getAttribute('data-walk'), 'bulk');
  assert.equal(await words(), 64);
  assert.deepEqual(await lines(), ['+0', '+128']);
  await page.locator(`${P} table.predictions`).screenshot({ path: join(artifacts, 'panel-reference-runs.png') });
});

test('the reference plots at 1440 and 390 px: redrawn for the width, nothing wider than the screen', async () => {
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 });
    // the panel redraws its plots for the new width (a ResizeObserver)
    await page.waitForFunction((w) => {
      const svg = document.querySelector('ls-bench-panel').shadowRoot.querySelector('figure[data-plot] svg');
      return svg && Math.abs(svg.getBoundingClientRect().width - Math.min(900, w - 40)) < 120;
    }, width);
    for (const fig of await page.locator(`${P} figure[data-plot]`).all())
      await fig.screenshot({ path: join(artifacts, `panel-plot-${await fig.getAttribute('data-plot')}-${width}.png`) });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `${width} px: the page is ${overflow} px wider than the viewport`);
  }
  await page.setViewportSize({ width: 1200, height: 900 });
});

test('axe: no serious or critical violations with the plots of every reference run drawn', async () => {
  assert.ok((await page.locator(`${P} figure[data-plot] svg`).count()) >= 2);
  const axe = await new AxeBuilder({ page }).include('ls-bench-panel').analyze();
  const bad = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map((v) => `${v.id}: ${v.nodes.length} nodes`),
    [],
  );
});

test('no console errors while connected, running, plotting and exporting', () => {
  assert.deepEqual(consoleErrors, []);
});
