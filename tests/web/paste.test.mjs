// The playground reads a layout pasted in another project's syntax: the engine detects the syntax, imports it (the
// shape and mesh fields supply what the text does not say) and exports it to each syntax it writes. Expected
// positions are worked out from each syntax's own definition (CuTe: coordinate . stride; Triton linear layouts:
// XOR of the bases of the set bits), never read back from the page.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { launch, root } from './browser.mjs';
import { start } from './serve.mjs';

const artifacts = join(root, 'build', 'artifacts');
mkdirSync(artifacts, { recursive: true });
let server, browser, page;
const pageErrors = [];
const PG = 'ls-playground';

before(async () => {
  server = await start(join(root, 'web', 'dist'));
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && pageErrors.push(m.text()));
  await page.goto(server.url + '#fig=play');
  await page.locator(`${PG} .view`).waitFor({ timeout: 20_000 });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** Types into the form as a user does and applies it. */
async function paste(layout, { shape = '', mesh = '', from = 'auto' } = {}) {
  await page.selectOption(`${PG} select[name=from]`, from);
  await page.fill(`${PG} input[name=layout]`, layout);
  await page.fill(`${PG} input[name=shape]`, shape);
  await page.fill(`${PG} input[name=compare]`, '');
  await page.fill(`${PG} input[name=mesh]`, mesh);
  await page.click(`${PG} button[type=submit]`);
}
const fill = (hit) => page.locator(`${PG} rect[data-hit="${hit}"]`).getAttribute('fill');
const detected = () => page.locator(`${PG} .detected`).first().textContent();

test('a CuTe layout is detected and drawn where its strides put it; export to CuTe gives it back', async () => {
  await paste('(8,8):(1,8)');
  assert.match(await detected(), /CuTe \(C\+\+\)/);
  await page.locator(`${PG} .view`).waitFor();
  // CuTe's (8,8):(1,8) puts coordinate (i, j) at i + 8 j: element (1, 2) at m = 17, element (2, 1) at m = 10.
  // Colour is the logical column: m 17 has column 2's colour, m 10 column 1's.
  assert.equal(await fill('P:17'), await fill('L:2'));
  assert.equal(await fill('P:10'), await fill('L:1'));
  assert.notEqual(await fill('P:17'), await fill('P:10'));
  // the round trip: the CuTe export of what was read is the text pasted, spelled as CuTe C++
  await page.selectOption(`${PG} select.export-to`, 'cute');
  assert.equal(
    (await page.locator(`${PG} output.exported`).textContent()).replace(/\s/g, ''),
    'Layout<Shape<Int<8>,Int<8>>,Stride<Int<1>,Int<8>>>{}',
  );
  await page.locator(PG).screenshot({ path: join(artifacts, 'paste-cute.png') });
});

test('a Triton linear layout with the tensor shape from the form: element (5, 3) in lane 21, register 1', async () => {
  const triton =
    '#ttg.linear<{register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [], block = []}>';
  await paste(triton, { shape: '16,8' });
  assert.match(await detected(), /Triton/);
  // (5, 3): row 5 = 4 + 1 sets lane bits 4 and 2 (16 + 4); column 3 = 2 + 1 sets lane bit 0 and register bit 0:
  // lane 21, register 1. Row 13 = 8 + 5 adds register bit 1: register 3, lane 21.
  await page.click(`${PG} [data-hit="L:43"]`);
  const live = () => page.locator(`${PG} .live`).textContent();
  assert.match(await live(), /laneid: 21/);
  assert.match(await live(), /reg: 1\b/);
  await page.click(`${PG} [data-hit="L:107"]`);
  assert.match(await live(), /laneid: 21/);
  assert.match(await live(), /reg: 3\b/);
});

test('a JAX PartitionSpec over a named mesh: devices along x, replicas along y; JAX export round-trips', async () => {
  await paste("P('x', None)", { shape: '8,4', mesh: 'x=2,y=4' });
  assert.match(await detected(), /JAX/);
  await page.selectOption(`${PG} select.export-to`, 'jax');
  assert.match(await page.locator(`${PG} output.exported`).textContent(), /P\('x', None\)/);
  // 8 x 4 split in two along x: rows 0..3 on x = 0, rows 4..7 on x = 1, each a dense 4 x 4 block; every one of
  // the 4 devices along y holds a copy. Element (5, 1) = x 21: x = 1, local offset (5 - 4) * 4 + 1 = 5, y = 0..3.
  await page.click(`${PG} [data-hit="L:21"]`);
  const live = await page.locator(`${PG} .live`).textContent();
  const holders = [...live.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]);
  assert.equal(holders.length, 4, live);
  for (const h of holders) {
    assert.match(h, /\bx: 1\b/);
    assert.match(h, /\bm: 5\b/);
  }
  assert.deepEqual(holders.map((h) => Number(/\by: (\d+)/.exec(h)[1])).sort(), [0, 1, 2, 3]);
});

test('errors point at the column of the pasted text, and at the mesh field', async () => {
  // two bases for one register bit of a 2 x 2 tensor and a lane basis that repeats it: the bad basis is the first
  const bad = '#ttg.linear<{register = [[1, 1]], lane = [[1, 0]], warp = [], block = []}>';
  await paste('  ' + bad, { shape: '2,2' });
  const err = page.locator(`${PG} .input-error`);
  await err.waitFor();
  const col = Number(/column (\d+)/.exec(await err.textContent())[1]);
  // the caret counts the two leading blanks
  assert.equal(col, 2 + bad.indexOf('[1, 1]') + 1);
  const caret = await err.locator('code').nth(1).textContent();
  assert.equal(caret.indexOf('^'), col - 1);
  // a mesh axis without a number: the column of the first character of "two" that is not a digit
  await paste("P('x', None)", { shape: '8,4', mesh: 'x=2,y=two' });
  await page.locator(`${PG} .input-error`).waitFor();
  const text = await page.locator(`${PG} .input-error`).textContent();
  assert.match(text, /mesh/);
  assert.match(text, /column 7\b/);
  // the figure recovers with a valid layout
  await paste('S[(8,4,2):(4@laneid,1@laneid,1@reg)]', { shape: '8,8' });
  assert.match(await detected(), /layoutscope notation/);
  await page.locator(`${PG} .view`).waitFor();
});

test('a target that cannot say the layout answers with the engine reason inline', async () => {
  // a lane layout has no PartitionSpec: export to JAX names what it cannot express instead of printing something
  await paste('S[(8,4,2):(4@laneid,1@laneid,1@reg)]', { shape: '8,8' });
  await page.selectOption(`${PG} select.export-to`, 'jax');
  await page.locator(`${PG} .formats .input-error`).waitFor();
  assert.equal(await page.locator(`${PG} output.exported`).count(), 0);
});

test('paste -> figure for 64K elements in CuTe syntax (timing printed)', async () => {
  const times = [];
  for (let i = 0; i < 5; ++i) {
    const text = i % 2 ? '(256,256):(1,256)' : '(256,256):(256,1)';
    const ms = await page.evaluate(async (text) => {
      const el = document.querySelector('ls-playground');
      const form = el.shadowRoot.querySelector('form.inputs');
      form.querySelector('input[name=layout]').value = text;
      form.querySelector('input[name=shape]').value = '';
      const t0 = performance.now();
      form.querySelector('button[type=submit]').click();
      await el.updateComplete;
      // data-latency: the form's submit to the figure's update (the measure the notation's own paste test prints)
      const updated = Number(el.getAttribute('data-latency'));
      await new Promise((r) => requestAnimationFrame(() => r()));
      return [updated, performance.now() - t0];
    }, text);
    times.push(ms);
  }
  assert.match(await detected(), /CuTe/);
  const p50 = (k) => times.map((t) => t[k]).sort((a, b) => a - b)[2];
  console.log(
    `paste (CuTe text) -> figure, 65,536 elements: submit -> updated p50 ${p50(0).toFixed(1)} ms; ` +
      `submit -> next frame p50 ${p50(1).toFixed(1)} ms`,
  );
});

test('no uncaught errors', () => {
  assert.deepEqual(pageErrors, []);
});
