// The tcgen05 figures in Chromium: the atom explorer and the block-scaled scale-factor path, by real clicks,
// selects and keys, in English and Chinese, with axe. Expected values are the PTX ISA's (tcgen05 matrix
// fragments, tcgen05.cp.32x128b.warpx4) and the chapter's SFA[64, 2]; the page only draws what the engine says.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { AxeBuilder, launch, root } from './browser.mjs';
import { start } from './serve.mjs';

const artifacts = join(root, 'build', 'artifacts');
mkdirSync(artifacts, { recursive: true });
let server, browser, page;
const errors = [];
const A = 'ls-tcgen05-atom';
const B = 'ls-block-scaled';
const live = (fig) => page.locator(`${fig} .live`).textContent();

async function open(hash = '') {
  await page.goto(server.url + (hash ? '#' + hash : ''));
  await page.waitForFunction(() =>
    ['ls-tcgen05-atom', 'ls-block-scaled'].every((t) =>
      document.querySelector(t)?.shadowRoot?.querySelector('.view svg, .view canvas'),
    ),
  );
}

before(async () => {
  server = await start(join(root, 'web', 'dist'));
  browser = await launch();
  page = await (await browser.newContext({ viewport: { width: 1300, height: 900 } })).newPage();
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(String(e)));
  await open();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('atom: 16x128b thread 6 register 1 is TMEM lane 9, column 2, and the TMEM cell lights the register', async () => {
  // PTX 16x128b fragment: thread t holds lanes t/4 (register 0) and t/4 + 8 (register 1), column t%4.
  await page.click(`${A} [data-hit="R:6:1"]`);
  assert.match(await live(A), /T6 \(warp 0\) r1 ↔ TLane 9, TCol 2/);
  await page.click(`${A} [data-hit="M:1:3"]`);
  assert.match(await live(A), /T7 \(warp 0\) r0 ↔ TLane 1, TCol 3/);
  await page.locator(A).screenshot({ path: join(artifacts, 'fig-tcgen05-atom.png') });
});

test('atom: shape, repeat and lane selects; a 16x64b lane-16 access is warp 0 and holds T1 at lane 24', async () => {
  await page.selectOption(`${A} select.shape`, '16x64b');
  await page.selectOption(`${A} select.num`, '2');
  await page.selectOption(`${A} select.lane`, '16');
  // 16x64b: thread 1 holds lane 8 (+16), column 0 in register 0, column 2 in register 1 (the second repeat)
  await page.click(`${A} [data-hit="R:1:1"]`);
  assert.match(await live(A), /T1 \(warp 0\) r1 ↔ TLane 24, TCol 2/);
  const details = await page.locator(`${A} .details`).textContent();
  assert.match(details, /tcgen05\.ld\.sync\.aligned\.16x64b\.x2\.b32/);
  // 16x256b goes to .x32 only: the repeat list follows the engine's maximum
  await page.selectOption(`${A} select.shape`, '16x256b');
  const nums = await page.locator(`${A} select.num option`).allTextContents();
  assert.equal(nums.at(-1), '32');
  await page.selectOption(`${A} select.shape`, '32x32b');
  await page.selectOption(`${A} select.lane`, '96');
  await page.click(`${A} [data-hit="R:5:0"]`);
  assert.match(await live(A), /T5 \(warp 3\) r0 ↔ TLane 101, TCol 0/);
});

test('atom: keyboard selects a register; the URL keeps the view', async () => {
  await page.goto('about:blank');
  await open('atom5.sh=16x128b&atom5.n=1&atom5.ln=0');
  await page.locator(`${A} .view`).focus();
  await page.keyboard.press('Escape');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  assert.match(await live(A), /^T1 \(warp 0\) r1 ↔ TLane 8, TCol 1/);
  await page.selectOption(`${A} select.shape`, '16x32bx2');
  // the page writes its URL state once the change has been drawn
  await page.waitForFunction(() => /atom5\.sh=16x32bx2/.test(location.href), null, { timeout: 5000 });
  const url = await page.evaluate(() => location.href);
  assert.match(url, /atom5\.sh=16x32bx2/);
  await page.goto('about:blank');
  await open(url.split('#')[1]);
  assert.equal(await page.locator(`${A} select.shape`).inputValue(), '16x32bx2');
});

// The block-scaled figure is a canvas: a click goes to the centre of the cell the scene drew for a hit key.
async function clickHit(fig, hit) {
  const box = await page.locator(fig).evaluate((el, hit) => {
    const it = el.scene.items.find((i) => i.hit === hit);
    const c = el.shadowRoot.querySelector('.view canvas').getBoundingClientRect();
    return {
      x: c.left + ((it.x + it.w / 2) * c.width) / el.scene.width,
      y: c.top + ((it.y + it.h / 2) * c.height) / el.scene.height,
    };
  }, hit);
  await page.mouse.click(box.x, box.y);
}

test('block-scaled: SFA[64, 2] -> smem byte 10 -> (0,2,2) (32,2,2) (64,2,2) (96,2,2), MMA 2 sf_id 2', async () => {
  await page.locator(B).scrollIntoViewIfNeeded();
  await clickHit(B, 'S:64:2');
  const text = await live(B);
  assert.match(text, /SF\[64, 2\]: smem byte 10 → TLane 0, 32, 64, 96, TCol 2, byte 2; MMA 2, sf_id 2/);
  // the same element from its TMEM copy in slab 3, and from its shared byte
  await clickHit(B, 'T:96:2:2');
  assert.match(await live(B), /SF\[64, 2\]/);
  await clickHit(B, 'B:10');
  assert.match(await live(B), /SF\[64, 2\]/);
  // the keyboard walks the scale matrix: 3 down, 6 right from SF[0, 0]
  await page.selectOption(`${B} select.kind`, 'mxf4nvf4');
  await clickHit(B, 'S:0:0');
  await page.locator(`${B} .view`).focus();
  for (let i = 0; i < 3; ++i) await page.keyboard.press('ArrowDown');
  for (let i = 0; i < 6; ++i) await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Enter');
  // nvf4 (16 per scale, 4 per MMA of K 64; K 256: 16 scales a row, 4 atoms): SF[3, 6] is in atom 1 (byte 512),
  // row 3 (48), M group 0, byte 2 -> 562; TCol 4, byte 2; MMA 6/4 = 1 reads it with sf_id 0
  assert.match(await live(B), /SF\[3, 6\]: smem byte 562 → TLane 3, 35, 67, 99, TCol 4, byte 2; MMA 1, sf_id 0/);
  await page.locator(B).screenshot({ path: join(artifacts, 'fig-block-scaled.png') });
});

test('both figures in Chinese; axe finds nothing serious', async () => {
  await open('lang=zh');
  const title = await page
    .locator(`${A} .bar, ${A}`)
    .first()
    .evaluate((el) => el.shadowRoot?.textContent ?? '');
  assert.match(title, /操作/);
  const axe = await new AxeBuilder({ page }).include(A).include(B).analyze();
  const bad = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map((v) => v.id),
    [],
  );
  assert.deepEqual(errors, []);
});
