// A log of CuTe print() output pasted into the scan view lists each layout at its line and column, in the
// notation, with a link that opens it in the playground; the playground's export menu writes Triton's named
// encodings. Expected texts: the layouts as CuTe prints them (each top-level mode one dimension, a nested mode's
// parts major first) and Triton 3.6's own printed encodings in the committed fixture dumps, never the page's
// output read back.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { launch, root } from './browser.mjs';
import { start } from './serve.mjs';

const artifacts = join(root, 'build', 'artifacts');
mkdirSync(artifacts, { recursive: true });
const fixtures = join(root, 'tests', 'engine', 'fixtures', 'triton');
const PG = 'ls-playground';
let server, browser, page;
const pageErrors = [];

/** The text of alias `name` in a committed Triton dump, as Triton printed it. */
function alias(file, name) {
  const line = readFileSync(join(fixtures, file), 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`#${name} = `));
  return line.slice(`#${name} = `.length);
}

before(async () => {
  server = await start(join(root, 'web', 'dist'));
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.on('pageerror', (e) => pageErrors.push(String(e)));
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test('a pasted CuTe log lists its layouts at line:column, errors under their column, each opening in the playground', async () => {
  await page.goto(server.url + '#sec-scan');
  const log = [
    'launch: grid (4,1,1)',
    'sA layout: (_8,_4):(_4,_1)',
    '((_2,_2),_4):((_1,_4),_2)',
    'bad: (2,3):(oops,1)',
  ].join('\n');
  const area = page.locator('ls-scan textarea');
  await area.waitFor();
  await area.fill(log);
  const rows = page.locator('ls-scan table.cute tbody tr');
  await rows.first().waitFor({ timeout: 10_000 });
  assert.equal(await rows.count(), 3);
  const first = await rows.nth(0).locator('td').allInnerTexts();
  assert.equal(first[0], `2:${'sA layout: '.length + 1}`);
  assert.equal(first[1], '(_8,_4):(_4,_1)');
  assert.equal(first[2], 'S[(8,4):(4,1)]');
  assert.equal(first[3], '8×4 (32)');
  const nested = await rows.nth(1).locator('td').allInnerTexts();
  assert.equal(nested[0], '3:1');
  assert.equal(nested[2], 'S[(2,2,4):(4,1,2)]'); // rows (2:4, 2:1), columns 4:2
  assert.equal(nested[3], '4×4 (16)');
  // the error: its line as pasted and a caret under the stride that is no integer ('oops')
  const bad = rows.nth(2);
  assert.equal((await bad.locator('td').first().innerText()).trim(), `4:${'bad: '.length + 1}`);
  assert.ok((await bad.locator('.issue').first().innerText()).length > 0);
  const at = (await bad.locator('pre.at').innerText()).split('\n');
  assert.equal(at[0], 'bad: (2,3):(oops,1)');
  assert.equal(at[1].indexOf('^'), 'bad: (2,3):('.length);
  assert.equal(await bad.locator('a').count(), 0);
  // a CuTe-only log has no op table
  assert.equal(await page.locator('ls-scan table.ops').count(), 0);
  // the figures above draw while the page loads: the view is shot once it is in view and the page has settled
  await page.locator('ls-scan').scrollIntoViewIfNeeded();
  await page.waitForLoadState('networkidle');
  await page.locator('ls-scan').scrollIntoViewIfNeeded();
  await page.locator('ls-scan').screenshot({ path: join(artifacts, 'scan-cute.png') });
  // the link opens the playground with the layout on its shape
  const href = await rows.nth(0).locator('a').getAttribute('href');
  const params = new URLSearchParams(href.slice(1));
  assert.equal(params.get('fig'), 'play');
  assert.equal(params.get('play.layout'), 'S[(8,4):(4,1)]');
  assert.equal(params.get('play.shape'), '8,4');
  await page.goto(server.url + href);
  await page.reload();
  await page.locator(`${PG} .view`).waitFor({ timeout: 20_000 });
  assert.equal(await page.locator(PG).evaluate((el) => el.layout), 'S[(8,4):(4,1)]');
  assert.equal(await page.locator(PG).evaluate((el) => el.shape), '8,4');
  assert.deepEqual(pageErrors, []);
});

async function show(layout, shape, dtype = 'f32') {
  await page.selectOption(`${PG} select.dtype`, dtype);
  await page.fill(`${PG} input[name=layout]`, layout);
  await page.fill(`${PG} input[name=shape]`, shape);
  await page.fill(`${PG} input[name=compare]`, '');
  await page.click(`${PG} button[type=submit]`);
  await page.locator(`${PG}:not([aria-busy])`).waitFor();
}

test("the playground's export menu writes Triton's named encodings, or the engine's reason it cannot", async () => {
  await page.goto(server.url + '#fig=play');
  await page.locator(`${PG} .view`).waitFor({ timeout: 20_000 });
  const menu = `${PG} select.export-to`;
  const values = await page.locator(`${menu} option`).evaluateAll((os) => os.map((o) => o.value));
  for (const e of ['blocked', 'swizzled_shared', 'nvmma_shared', 'auto']) assert.ok(values.includes(`triton:${e}`), e);
  // a blocked layout of a real dump, pasted in Triton's syntax: #ttg.blocked writes back what Triton printed
  const blocked = alias('ttgir-transpose-sm90.mlir', 'blocked1');
  await show(blocked, '64,64');
  await page.selectOption(menu, 'triton:blocked');
  assert.equal((await page.locator(`${PG} output.exported`).textContent()).trim(), blocked);
  await page.selectOption(menu, 'triton:auto');
  assert.equal((await page.locator(`${PG} output.exported`).textContent()).trim(), blocked);
  // the sm90 matmul's shared tile (!ttg.memdesc<128x64xf16, #shared>): nvmma_shared on the page's f16
  const nvmma = alias('ttgir-matmul-sm90.mlir', 'shared');
  await show(nvmma, '128,64', 'f16');
  await page.selectOption(menu, 'triton:nvmma_shared');
  assert.equal((await page.locator(`${PG} output.exported`).textContent()).trim(), nvmma);
  await page.locator(PG).screenshot({ path: join(artifacts, 'playground-export-nvmma.png') });
  // sm80's swizzled tile (!ttg.memdesc<128x64xf16, #shared>)
  const swizzled = alias('ttgir-matmul-sm80.mlir', 'shared');
  await show(swizzled, '128,64', 'f16');
  await page.selectOption(menu, 'triton:swizzled_shared');
  assert.equal((await page.locator(`${PG} output.exported`).textContent()).trim(), swizzled);
  // a row-major shared tile holds no lanes or registers: the engine says it is not #ttg.blocked, no text shown
  await show('S[(8,8):(8,1)]', '8,8');
  await page.selectOption(menu, 'triton:blocked');
  assert.equal(await page.locator(`${PG} output.exported`).count(), 0);
  assert.match(await page.locator(`${PG} .formats .input-error`).innerText(), /not a #ttg\.blocked layout/);
  await page.locator(PG).screenshot({ path: join(artifacts, 'playground-export-blocked-error.png') });
  assert.deepEqual(pageErrors, []);
});
