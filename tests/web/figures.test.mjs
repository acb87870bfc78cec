// The page in Chromium: each figure's worked example from the chapter by real clicks and keys, URL round
// trip, exports, no console errors, axe. Screenshots of every figure go to build/artifacts/.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { AxeBuilder, launch, root } from './browser.mjs';
import { start } from './serve.mjs';

const artifacts = join(root, 'build', 'artifacts');
mkdirSync(artifacts, { recursive: true });
let server, browser, context, page;
const consoleErrors = [];

async function open(hash = '') {
  await page.goto(server.url + (hash ? '#' + hash : ''));
  await page.waitForFunction(() =>
    [...document.querySelectorAll('main [id]')]
      .filter((e) => e.tagName.startsWith('LS-') && e.tagName !== 'LS-BENCH-PANEL')
      .every((e) => e.shadowRoot?.querySelector('.view')),
  );
}
const live = (fig) => page.locator(`${fig} .live`).textContent();
const details = (fig) => page.locator(`${fig} .details`).textContent();

before(async () => {
  server = await start(join(root, 'web', 'dist'));
  browser = await launch();
  context = await browser.newContext({ viewport: { width: 1200, height: 900 }, acceptDownloads: true });
  page = await context.newPage();
  page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  page.on('requestfailed', (r) => consoleErrors.push(`request failed: ${r.url()}`));
  page.on('response', (r) => r.status() >= 400 && consoleErrors.push(`HTTP ${r.status()}: ${r.url()}`));
  await open();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('tile: click (5,6) -> unflatten (2,1,1,2), f_D = 46; memory rows 0 and 1', async () => {
  await page.click('ls-tile-layout [data-hit="L:46"]');
  const d = await details('ls-tile-layout');
  assert.match(d, /unflatten\(46; 4,2,2,4\) = \(2, 1, 1, 2\)/);
  assert.match(d, /f_D\(x\) = 2·16 \+ 1·4 \+ 1·8 \+ 2·1 = 46@m/);
  const row = (r) =>
    Promise.all(
      Array.from({ length: 8 }, (_, c) =>
        page.locator(`ls-tile-layout rect[data-hit="P:${r * 8 + c}"] + text`).textContent(),
      ),
    );
  assert.deepEqual((await row(0)).map(Number), [0, 1, 2, 3, 8, 9, 10, 11]);
  assert.deepEqual((await row(1)).map(Number), [4, 5, 6, 7, 12, 13, 14, 15]);
  await page.locator('ls-tile-layout').screenshot({ path: join(artifacts, 'fig1-tile.png') });
});

test('tile: keyboard — one tab stop, arrows, Enter selects, Esc clears, live region reads it', async () => {
  await page.locator('ls-tile-layout .view').focus();
  await page.keyboard.press('Escape');
  for (let i = 0; i < 8; ++i) await page.keyboard.press('ArrowUp');
  await page.keyboard.press('Home');
  for (let i = 0; i < 5; ++i) await page.keyboard.press('ArrowDown');
  for (let i = 0; i < 6; ++i) await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Enter');
  assert.match(await live('ls-tile-layout'), /\(5, 6\), x = 46 → 46@m/);
  await page.keyboard.press('Escape');
  assert.match(await live('ls-tile-layout'), /Nothing selected/);
  const tabbable = await page.evaluate(
    () =>
      document.querySelector('ls-tile-layout').shadowRoot.querySelectorAll('.view [tabindex], .view a, .view button')
        .length,
  );
  assert.equal(tabbable, 0, 'cells must not be tab stops');
});

test('fragment: cell 43 -> lane 21, slot 1; lane 21 -> elements 42, 43', async () => {
  await page.click('ls-fragment [data-hit="L:43"]');
  assert.match(await live('ls-fragment'), /cell 43 \(5, 3\): lane 21, slot 1/);
  await page.click('ls-fragment [data-hit="N:21"]');
  assert.match(await live('ls-fragment'), /lane 21: 42, 43/);
  await page.click('ls-fragment [data-hit="L:43"]');
  await page.locator('ls-fragment').screenshot({ path: join(artifacts, 'fig2-fragment.png') });
});

test('TMEM: 128x512 canvas, click TLane 5 TCol 200 -> element (5, 200); datapath F folds rows', async () => {
  const canvas = page.locator('ls-tmem canvas');
  const box = await canvas.boundingBox();
  const scale = box.width / (44 + 512 * 2 + 12);
  await canvas.click({ position: { x: (44 + 200 * 2 + 1) * scale, y: (22 + 5 * 3 + 1.5) * scale } });
  assert.match(await live('ls-tmem'), /TLane 5, TCol 200: element \(5, 200\), x = 1480/);
  // Cells are coloured by logical row band (16 rows): in the accumulator layout TLane l holds row l, and with
  // N = 256 the columns from 256 on are empty. One raster holds the 65,536 cells, in the export too.
  const probe = await page.evaluate(() => {
    const el = document.querySelector('ls-tmem');
    const c = el.shadowRoot.querySelector('canvas');
    const ctx = c.getContext('2d');
    const s = c.width / (44 + 512 * 2 + 12);
    const hex = (l, col) =>
      '#' +
      Array.from(
        ctx.getImageData(Math.floor((44 + col * 2 + 1) * s), Math.floor((22 + l * 3 + 1.5) * s), 1, 1).data.slice(0, 3),
      )
        .map((v) => v.toString(16).padStart(2, '0'))
        .join('');
    return {
      row20: hex(20, 10),
      row40: hex(40, 10),
      row127: hex(127, 255),
      empty: hex(20, 300),
      cat: el.palette.cat,
      cell: el.palette.cell,
      svg: el.exportSvg(),
    };
  });
  assert.equal(probe.row20, probe.cat[1].toLowerCase());
  assert.equal(probe.row40, probe.cat[2].toLowerCase());
  assert.equal(probe.row127, probe.cat[7].toLowerCase());
  assert.equal(probe.empty, probe.cell.toLowerCase());
  assert.equal((probe.svg.match(/<image /g) ?? []).length, 1);
  assert.ok((probe.svg.match(/<rect /g) ?? []).length < 300, 'cells are not exported one by one');
  assert.ok(probe.svg.length < 200_000, `SVG export ${probe.svg.length} chars`);
  await page.locator('ls-tmem').screenshot({ path: join(artifacts, 'fig3-tmem.png') });
  await page.selectOption('ls-tmem select.datapath', 'F');
  await canvas.click({ position: { x: (44 + 3 * 2 + 1) * scale, y: (22 + 33 * 3 + 1.5) * scale } });
  // F: row r -> TLane 32*(r//16) + r%16, so TLane 33 holds row 17
  assert.match(await live('ls-tmem'), /TLane 33, TCol 3: element \(17, 3\)/);
  await page.locator('ls-tmem').screenshot({ path: join(artifacts, 'fig3-tmem-F.png') });
  await page.selectOption('ls-tmem select.datapath', 'acc');
});

test('scale factors: SFA[64,2] -> (0,2,2) (32,2,2) (64,2,2) (96,2,2)', async () => {
  await page.click('ls-scale-factors [data-hit="L:258"]');
  assert.match(
    await live('ls-scale-factors'),
    /SFA\[64, 2\] → \(TLane, TCol, byte\) \(0,2,2\) \(32,2,2\) \(64,2,2\) \(96,2,2\)/,
  );
  await page.locator('ls-scale-factors').screenshot({ path: join(artifacts, 'fig4-scale-factors.png') });
});

test('mesh: element (1,2,3) -> m 19 on (0,1),(1,1) with a replica, on (1,1) with an offset', async () => {
  await page.click('ls-mesh button.mode-replica');
  await page.click('ls-mesh [data-hit="L:51"]');
  assert.match(await details('ls-mesh'), /Element \(1, 2, 3\) → devices \{\(0, 1\), \(1, 1\)\}, local offset = 19/);
  await page.locator('ls-mesh').screenshot({ path: join(artifacts, 'fig5-mesh-replica.png') });
  await page.click('ls-mesh button.mode-offset');
  await page.click('ls-mesh [data-hit="L:51"]');
  assert.match(await details('ls-mesh'), /Element \(1, 2, 3\) → devices \{\(1, 1\)\}, local offset = 19/);
  await page.click('ls-mesh button.mode-sharded');
  await page.click('ls-mesh [data-hit="L:51"]');
  assert.match(await details('ls-mesh'), /devices \{\(0, 1\)\}/);
  await page.click('ls-mesh button.mode-replica');
  await page.click('ls-mesh [data-hit="L:51"]');
  // the selection attribute set from outside (a docs page) updates the figure like a click: element 0 = (0,0,0)
  await page.evaluate(() => document.querySelector('ls-mesh').setAttribute('selection', 'L:0'));
  await page.waitForFunction(() =>
    /Element \(0, 0, 0\)/.test(
      document.querySelector('ls-mesh').shadowRoot.querySelector('.details')?.textContent ?? '',
    ),
  );
  await page.click('ls-mesh [data-hit="L:51"]');
  assert.match(await details('ls-mesh'), /Element \(1, 2, 3\)/);
});

test('bank conflicts: column 3 is 8 cycles row-major, 1 swizzled; SWIZZLE_128B 8 vs 1; step', async () => {
  await page.click('ls-bank-conflicts [data-hit="C:3"]');
  assert.match(await live('ls-bank-conflicts'), /Row-major 8 cycles, XOR swizzle 1 cycle\b/);
  await page.click('ls-bank-conflicts button.step');
  assert.match(await live('ls-bank-conflicts'), /cycle 0/);
  await page.locator('ls-bank-conflicts').screenshot({ path: join(artifacts, 'fig6-banks-toy.png') });
  await page.click('ls-bank-conflicts button.case-real');
  await page.click('ls-bank-conflicts [data-hit="C:2"]');
  assert.match(await live('ls-bank-conflicts'), /Row-major 8 cycles, XOR swizzle 1 cycle\b/);
  await page.click('ls-bank-conflicts [data-hit="R:1"]');
  assert.match(await live('ls-bank-conflicts'), /Row-major 1 cycle, XOR swizzle 1 cycle\b/);
  await page.click('ls-bank-conflicts [data-hit="C:2"]');
  await page.selectOption('ls-bank-conflicts select.width', '4');
  assert.match(await details('ls-bank-conflicts'), /32 lanes \/ wavefront/);
  await page.selectOption('ls-bank-conflicts select.width', '16');
  await page.locator('ls-bank-conflicts').screenshot({ path: join(artifacts, 'fig6-banks-128B.png') });
});

test('swizzle atom: 128B f16 spelled in bytes and elements; a cell is remapped', async () => {
  await page.selectOption('ls-swizzle-atom select.mode', '128B');
  await page.selectOption('ls-swizzle-atom select.dtype', 'f16');
  const d = await details('ls-swizzle-atom');
  assert.match(d, /SWIZZLE_128B/);
  assert.match(d, /Swizzle<3,4,3>/);
  assert.match(d, /Swizzle<3,3,3>/);
  assert.match(d, /ComposeLayout\(per_element=3, swizzle_len=3, atom_len=3/);
  // row 1, element 0 (offset 64) lands in sector 1 of row 1: (1, 8)
  await page.locator('ls-swizzle-atom .view').hover({ position: { x: 2, y: 2 } });
  await page.click('ls-swizzle-atom [data-hit="E:64"] >> nth=0');
  await page.mouse.move(0, 0);
  assert.match(await live('ls-swizzle-atom'), /\(1, 0\) remapped to \(1, 8\)/);
  await page.locator('ls-swizzle-atom').screenshot({ path: join(artifacts, 'fig7-swizzle-atom.png') });
});

test('playground: an error names its column; a valid layout gives linked views', async () => {
  const pg = page.locator('ls-playground');
  await pg.locator('input[name=layout]').fill('S[(8,4):(4,1]');
  await pg.locator('button[type=submit]').click();
  assert.match(await pg.locator('.findings').textContent(), /column 13/);
  await pg.locator('input[name=layout]').fill('S[(8,4):(4@laneid,1@laneid)] + O[8@laneid]');
  await pg.locator('input[name=shape]').fill('8,4');
  await pg.locator('button[type=submit]').click();
  // the validator runs after the figure is drawn
  await pg.locator('.findings li', { hasText: 'hardware-range' }).waitFor();
  await pg.locator('input[name=layout]').fill('S[(8,4,2):(4@laneid,1@laneid,1@reg)]');
  await pg.locator('input[name=shape]').fill('8,8');
  await pg.locator('button[type=submit]').click();
  await page.click('ls-playground [data-hit="L:43"]');
  assert.match(await live('ls-playground'), /laneid: 21, reg: 1/);
  await page.click('ls-playground [data-hit="P:21,0"]');
  assert.match(await details('ls-playground'), /x = 42/);
  await pg.screenshot({ path: join(artifacts, 'fig8-playground.png') });
});

test('playground: a large layout is drawn as rasters; clicks still name the right element', async () => {
  const pg = page.locator('ls-playground');
  // 20480 elements (above the raster threshold): the transpose of a 128x160 row-major matrix, element (i, j)
  // at m = i + 128 j.
  await pg.locator('input[name=layout]').fill('S[(128,160):(1,128)]');
  await pg.locator('input[name=shape]').fill('128,160');
  await pg.locator('button[type=submit]').click();
  const canvas = pg.locator('canvas.scene');
  await canvas.waitFor();
  // Logical cell (5, 3): the figure says where it drew it (scene units); the click is a real one at that place.
  const box = await canvas.boundingBox();
  const sceneWidth = await canvas.evaluate((c) => c.width / Math.min(2, window.devicePixelRatio || 1));
  const k = box.width / sceneWidth;
  const cellBox = await pg.evaluate((el) => el.cellBox('L:803'));
  await page.mouse.click(box.x + (cellBox.x + cellBox.w / 2) * k, box.y + (cellBox.y + cellBox.h / 2) * k);
  // x = 5 * 160 + 3 = 803; m = 5 * 1 + 3 * 128 = 389.
  assert.match(await details('ls-playground'), /x = 803 .*\{m: 389\}/);
  await pg.screenshot({ path: join(artifacts, 'fig8-playground-raster.png') });
  // back to the small layout for the round-trip test below
  await pg.locator('input[name=layout]').fill('S[(8,4,2):(4@laneid,1@laneid,1@reg)]');
  await pg.locator('input[name=shape]').fill('8,8');
  await pg.locator('button[type=submit]').click();
});

test('URL fragment round trip: reload restores every figure', async () => {
  await page.click('ls-fragment [data-hit="L:43"]');
  await page.click('ls-mesh button.mode-offset');
  await page.click('ls-mesh [data-hit="L:51"]');
  const url = page.url();
  assert.match(url, /fragment\.sel=L%3A43/);
  await page.goto('about:blank');
  await page.goto(url);
  await open(url.split('#')[1]);
  assert.match(await live('ls-fragment'), /lane 21, slot 1/);
  assert.match(await details('ls-mesh'), /devices \{\(1, 1\)\}/);
  await page.click('ls-mesh button.mode-replica');
});

test('exports: SVG parses as SVG with the cells, JSON holds the table, PNG is a PNG', async () => {
  const [svgDl] = await Promise.all([page.waitForEvent('download'), page.click('ls-tile-layout button.export-svg')]);
  const svg = await (await import('node:fs/promises')).readFile(await svgDl.path(), 'utf8');
  const ok = await page.evaluate((s) => {
    const doc = new DOMParser().parseFromString(s, 'image/svg+xml');
    return (
      !doc.querySelector('parsererror') &&
      doc.documentElement.localName === 'svg' &&
      doc.querySelectorAll('rect[data-hit]').length
    );
  }, svg);
  assert.ok(ok >= 64 * 2, `svg rects: ${ok}`);
  const [jsonDl] = await Promise.all([
    page.waitForEvent('download'),
    page.click('ls-scale-factors button.export-json'),
  ]);
  const data = JSON.parse(await (await import('node:fs/promises')).readFile(await jsonDl.path(), 'utf8'));
  assert.equal(data.elements, 512);
  assert.equal(data.replicas, 4);
  assert.equal(data.values.length, 512 * 4 * 3);
  const [pngDl] = await Promise.all([page.waitForEvent('download'), page.click('ls-fragment button.export-png')]);
  const png = await (await import('node:fs/promises')).readFile(await pngDl.path());
  assert.equal(png.subarray(1, 4).toString(), 'PNG');
});

test('Chinese labels and dark theme toggle', async () => {
  await page.click('#lang-toggle');
  await page.click('#theme-toggle');
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
  assert.match(await page.locator('#h-tile').textContent(), /Tile 布局/);
  // every entry of the navigation has Chinese in it (names such as TMEM may stay beside it)
  const nav = await page.locator('nav a').allTextContents();
  assert.ok(nav.length >= 10, `${nav.length} entries`);
  assert.deepEqual(
    nav.filter((t) => !/[\u4e00-\u9fff]/.test(t)),
    [],
  );
  await page.click('ls-fragment [data-hit="L:43"]');
  assert.match(await live('ls-fragment'), /单元 43 .*lane 21, slot 1/);
  // the tile figure's title: 逻辑, not "Logical"
  const tileText = await page.locator('ls-tile-layout .view').textContent();
  assert.match(tileText, /逻辑 8×8 矩阵/);
  assert.doesNotMatch(tileText, /Logical/);
  // the bank figure's labels and badges in Chinese: 8 distinct words in one bank take 8 cycles (8-way), the XOR
  // swizzle spreads them over 8 banks (1 cycle)
  assert.match(await live('ls-bank-conflicts'), /行主序（row-major） 8 个周期, XOR 重排（swizzle） 1 个周期/);
  const banksText = await page.locator('ls-bank-conflicts .view').textContent();
  assert.match(banksText, /8 个周期 · 8 路 bank 冲突/);
  assert.doesNotMatch(banksText, /Row-major|XOR swizzle|\bcycles?\b/);
  // the label under each grid and the derivation below the figure too
  assert.match(banksText, /周期:/);
  const banksAll = await page.locator('ls-bank-conflicts').evaluate((el) => el.shadowRoot.textContent);
  assert.doesNotMatch(banksAll, /lanes \/ wavefront|\bgroups\b|\bcycles?\b/);
  assert.match(banksAll, /8 个 lane \/ wavefront, 分组 8 = 8/);
  await page.locator('ls-fragment').screenshot({ path: join(artifacts, 'fig2-fragment-dark-zh.png') });
  await page.locator('ls-bank-conflicts').screenshot({ path: join(artifacts, 'fig6-banks-dark-zh.png') });
  const axe = await new AxeBuilder({ page }).analyze();
  const bad = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map((v) => `${v.id}: ${v.nodes.length}`),
    [],
  );
  await page.click('#lang-toggle');
  await page.click('#theme-toggle');
});

test('axe: no serious or critical violations (light, English)', async () => {
  const axe = await new AxeBuilder({ page }).analyze();
  const bad = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map(
      (v) =>
        `${v.id}: ${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 3)
          .join(' | ')}`,
    ),
    [],
  );
});

test('no console errors, no failed requests (favicon included)', async () => {
  await page.screenshot({ path: join(artifacts, 'page.png'), fullPage: true });
  assert.deepEqual(consoleErrors, []);
});
