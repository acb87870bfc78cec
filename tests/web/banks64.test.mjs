// The bank figure's 64x64 case: an overview of 8x8 blocks with a drill-down, by click and by keyboard. Expected
// banks follow from the model (32 banks of 4 B): word w sits in bank w mod 32. Unpadded, element (r, c) of a
// 64-float row is word 64 r + c, bank c for every r; padded to 65 words, word 65 r + c, bank (r + c) mod 32.
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
const B = 'ls-bank-conflicts';

before(async () => {
  server = await start(join(root, 'web', 'dist'));
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  await page.goto(server.url + '#sec-banks');
  await page.locator(`${B} .view`).waitFor({ timeout: 20_000 });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** The number drawn in each block of a side (side 0 unpadded, side 1 padded): { "R:C": n }. */
async function blocks(side) {
  return page.locator(B).evaluate((el, side) => {
    const out = {};
    const rects = [...el.shadowRoot.querySelectorAll('rect[data-hit^="B:"]')];
    const per = rects.length / 2;
    for (const r of rects.slice(side * per, (side + 1) * per)) {
      const n = /: (\d+) /.exec(r.querySelector('title').textContent)[1];
      out[r.getAttribute('data-hit').slice(2)] = Number(n);
    }
    return out;
  }, side);
}
const nonzero = (o) => Object.fromEntries(Object.entries(o).filter(([, n]) => n > 0));

test('64x64 fp32 reading column 3: unpadded 32-way in one bank column, padded conflict-free across the banks', async () => {
  await page.click(`${B} button.case-big`);
  // default: column 3, 32 lanes on rows 0..31
  const text = await page.locator(`${B} .view`).innerHTML();
  assert.match(text, /32 cycles · 32-way/);
  assert.match(text, /1 cycle · conflict-free/);
  // unpadded: every read cell is in bank column 3, i.e. overview column 0, rows 0..31 = block rows 0..3
  assert.deepEqual(nonzero(await blocks(0)), { '0:0': 8, '1:0': 8, '2:0': 8, '3:0': 8 });
  // padded: row r lands in bank (r + 3) mod 32. Rows 0..7: banks 3..10 -> 5 in block column 0, 3 in 1;
  // rows 8..15: banks 11..18 -> 5 in column 1, 3 in 2; rows 24..31: banks 27..31, 0..2 -> 5 in 3, 3 in 0
  const pad = nonzero(await blocks(1));
  assert.equal(pad['0:0'], 5);
  assert.equal(pad['0:1'], 3);
  assert.equal(pad['1:1'], 5);
  assert.equal(pad['1:2'], 3);
  assert.equal(pad['3:3'], 5);
  assert.equal(pad['3:0'], 3);
  await page.locator(B).screenshot({ path: join(artifacts, 'banks64-1440.png') });
});

test('a click opens a block: its 64 cells drawn in full, with the logical column in each', async () => {
  await page.locator(`${B} [data-hit="B:1:1"]`).first().click();
  const cells = await page
    .locator(B)
    .evaluate((el) =>
      [...el.shadowRoot.querySelectorAll('rect title')]
        .map((t) => t.textContent)
        .filter((t) => /→ bank column/.test(t)),
    );
  // rows 8..15 x bank columns 8..15 on both sides: unpadded, (r, c) sits at column c; padded, column (r + c) mod 32
  // plus 32 for c >= 32 when the row spans two bank rows
  const un = cells.filter((t) => /^row (\d+), col (\d+) → bank column (\d+)/.test(t)).slice(0, 64);
  assert.equal(un.length, 64);
  for (const t of un) {
    const [, r, c, pc] = /^row (\d+), col (\d+) → bank column (\d+)/.exec(t).map(Number);
    assert.ok(r >= 8 && r < 16, t);
    assert.equal(pc, c);
  }
  const pad = cells.slice(64);
  assert.equal(pad.length, 64);
  for (const t of pad) {
    const [, r, c, pc] = /^row (\d+), col (\d+) → bank column (\d+)/.exec(t).map(Number);
    assert.equal(pc, Math.floor(c / 32) * 32 + ((r + c) % 32), t);
  }
  // the keyboard: focus the view, walk down to the blocks, open one with Enter
  await page.locator(`${B} .view`).focus();
  for (let k = 0; k < 2; ++k) await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Home');
  await page.keyboard.press('Enter');
  assert.match(await page.locator(`${B} .view`).innerHTML(), /row 0–7, bank column 0–7/);
  await page.setViewportSize({ width: 390, height: 900 });
  await page.locator(B).screenshot({ path: join(artifacts, 'banks64-390.png') });
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(wide <= 390, `page is ${wide} px wide`);
  await page.setViewportSize({ width: 1440, height: 1000 });
});

test('no uncaught errors', () => {
  assert.deepEqual(pageErrors, []);
});
