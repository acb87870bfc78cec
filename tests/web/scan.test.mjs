// The scan view: a dump pasted into <ls-scan> is scanned by the WASM engine, its ops listed by cost, and each
// op's "compare" link opens the playground with the op's two layouts. Values from the engine's own tests
// (tests/engine/scan_test.cpp), never read back from the page.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { launch, root } from './browser.mjs';
import { start } from './serve.mjs';

const artifacts = join(root, 'build', 'artifacts');
mkdirSync(artifacts, { recursive: true });
let server, browser, page;
const pageErrors = [];

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

test('a pasted transpose dump lists its round trip with a compare link into the playground', async () => {
  await page.goto(server.url + '#sec-scan');
  const dump = readFileSync(join(root, 'tests', 'engine', 'fixtures', 'triton', 'ttgir-transpose-sm90.mlir'), 'utf8');
  const area = page.locator('ls-scan textarea');
  await area.waitFor();
  await area.fill(dump);
  const row = page.locator('ls-scan table.ops tbody tr').first();
  await row.waitFor();
  const cells = await row.locator('td').allInnerTexts();
  assert.equal(cells[1], 'ttg.convert_layout');
  assert.equal(cells[2], 'shared round trip');
  assert.equal(cells[4], String(64 * 64 * 4)); // the 64x64 f32 tile
  const href = await row.locator('a').getAttribute('href');
  const params = new URLSearchParams(href.slice(1));
  assert.equal(params.get('fig'), 'play');
  assert.equal(params.get('play.shape'), '64,64');
  assert.match(params.get('play.layout'), /@laneid/);
  assert.match(params.get('play.cmp'), /@warpid/);
  await page.locator('ls-scan').screenshot({ path: join(artifacts, 'scan-view.png') });
  await page.goto(server.url + href);
  await page.reload();
  const compare = await page.locator('ls-playground').evaluate((el) => el.compare);
  assert.equal(compare, params.get('play.cmp'));
  assert.deepEqual(pageErrors, []);
});
