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

/** The text of alias `name` in a committed Triton 3.6 dump, as Triton printed it. */
function tritonAlias(file, name) {
  const text = readFileSync(join(root, 'tests', 'engine', 'fixtures', 'triton', file), 'utf8');
  const line = text.split('\n').find((l) => l.startsWith(`#${name} = `));
  assert.ok(line, `${file} defines #${name}`);
  return { text, attr: line.slice(`#${name} = `.length) };
}

/** Opens an export box, picks an encoding and returns the texts (or errors) it shows, one per layout. */
async function exportIn(box, encoding) {
  if (!(await box.evaluate((d) => d.open))) await box.locator('summary').click();
  await box.locator('select').selectOption(encoding);
  const lines = box.locator(':scope > div');
  await lines.first().waitFor();
  return lines.evaluateAll((ds) =>
    ds.map((d) => d.querySelector('code.exported')?.textContent ?? `error: ${d.querySelector('.issue')?.textContent}`),
  );
}

test("each op's two layouts and each alias export as Triton's named encodings: the text Triton printed", async () => {
  await page.goto(server.url + '#sec-scan');
  const transpose = tritonAlias('ttgir-transpose-sm90.mlir', 'blocked');
  const blocked1 = tritonAlias('ttgir-transpose-sm90.mlir', 'blocked1').attr;
  const area = page.locator('ls-scan textarea');
  await area.waitFor();
  await area.fill(transpose.text);
  // the round trip #blocked1 -> #blocked (line 45): both sides written back as #ttg.blocked
  const row = page.locator('ls-scan table.ops tbody tr').first();
  await row.waitFor();
  assert.equal((await row.locator('td').first().innerText()).trim(), '45');
  const opBox = row.locator('details.export');
  assert.deepEqual(await exportIn(opBox, 'blocked'), [blocked1, transpose.attr]);
  assert.deepEqual(await exportIn(opBox, 'auto'), [blocked1, transpose.attr]);
  // a register layout is no shared encoding: the engine's reason, not a text
  const shared = await exportIn(opBox, 'nvmma_shared');
  assert.equal(shared.length, 2);
  for (const s of shared)
    assert.match(s, /^error: not a #ttg\.nvmma_shared layout: it is in registers.*#ttg\.linear writes it/);
  // the compare link is still there
  assert.ok(await row.locator('td.link a').getAttribute('href'));

  // the matmul's aliases: #shared (nvmma_shared, first used by a 128x64 f16 memdesc) and #blocked
  const matmul = tritonAlias('ttgir-matmul-sm90.mlir', 'shared');
  await area.fill(matmul.text);
  await page.locator('ls-scan table.ops tbody tr').first().waitFor();
  await page.locator('ls-scan details.aliases > summary').click(); // the list of aliases
  const sharedItem = page.locator('ls-scan li[data-alias="shared"]');
  assert.deepEqual(await exportIn(sharedItem.locator('details.export'), 'nvmma_shared'), [matmul.attr]);
  const play = new URLSearchParams((await sharedItem.locator('a.play').getAttribute('href')).slice(1));
  assert.equal(play.get('fig'), 'play');
  assert.equal(play.get('play.shape'), '128,64');
  assert.match(play.get('play.layout'), /^Swizzle<3,3,3> o /); // 128 B swizzle on 16-bit elements
  const blockedItem = page.locator('ls-scan li[data-alias="blocked"]');
  const blocked = tritonAlias('ttgir-matmul-sm90.mlir', 'blocked').attr;
  assert.deepEqual(await exportIn(blockedItem.locator('details.export'), 'blocked'), [blocked]);
  await page.locator('ls-scan').screenshot({ path: join(artifacts, 'scan-export.png') });
  assert.deepEqual(pageErrors, []);
});
