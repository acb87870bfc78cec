// A phone's 390 px: every figure stays readable and tappable. Text at least 11 px and clickable cells at least
// 24 px on screen (WCAG 2.2 target size, 2.5.8), measured from what the browser drew: the SVG's font sizes and
// cell sizes times its scale on the page. A figure wider than the screen scrolls inside its own box; the page
// itself never scrolls sideways.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { launch, root } from './browser.mjs';
import { start } from './serve.mjs';

const artifacts = join(root, 'build', 'artifacts');
mkdirSync(artifacts, { recursive: true });
let server, browser, page;

before(async () => {
  server = await start(join(root, 'web', 'dist'));
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  await page.goto(server.url);
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** The smallest text and the smallest clickable cell of a figure's drawing, in CSS pixels on the page. */
async function sizes(tag) {
  const el = page.locator(tag);
  await el.scrollIntoViewIfNeeded();
  await page.locator(`${tag} .view svg`).waitFor({ timeout: 20_000 });
  return el.evaluate((e) => {
    const svg = e.shadowRoot.querySelector('.view svg');
    const k = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    const text = [...svg.querySelectorAll('text')].map((t) => Number(t.getAttribute('font-size')) * k);
    const cells = [...svg.querySelectorAll('rect[data-hit]')].map(
      (c) => Math.min(Number(c.getAttribute('width')), Number(c.getAttribute('height'))) * k,
    );
    return { text: Math.min(...text), cell: Math.min(...cells), cells: cells.length };
  });
}

const FIGURES = [
  'ls-tile-layout',
  'ls-swizzle-atom',
  'ls-playground',
  'ls-advisor',
  'ls-fragment',
  'ls-bank-conflicts',
  'ls-tcgen05-atom',
];

for (const [tag, name] of [
  ['ls-tile-layout', 'tile cells'],
  ['ls-swizzle-atom', 'swizzle-atom cells'],
  ['ls-playground', 'playground'],
  ['ls-advisor', 'advisor rows'],
  ['ls-fragment', 'fragment'],
  ['ls-bank-conflicts', 'bank cells'],
  ['ls-tcgen05-atom', 'tcgen05 atom'],
])
  test(`390 px: ${name} read at 11 px or more and tap at 24 px or more`, async () => {
    const s = await sizes(tag);
    assert.ok(s.cells > 0, `${tag} draws clickable cells`);
    assert.ok(s.text >= 11 - 1e-6, `${tag}: smallest text ${s.text.toFixed(1)} px`);
    assert.ok(s.cell >= 24 - 1e-6, `${tag}: smallest cell ${s.cell.toFixed(1)} px`);
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390, 'the page does not scroll');
    await page.locator(tag).screenshot({ path: join(artifacts, `phone-${tag.slice(3)}.png`) });
  });

test('390 px, 中文 and dark: every figure still reads at 11 px or more, taps at 24 px or more, no sideways page scroll', async () => {
  const bad = [];
  for (const mode of ['zh', 'dark']) {
    await page.goto(server.url + (mode === 'zh' ? '#lang=zh' : ''));
    if (mode === 'dark') await page.click('#theme-toggle');
    for (const tag of FIGURES) {
      const s = await sizes(tag);
      if (!(s.cells > 0 && s.text >= 11 - 1e-6 && s.cell >= 24 - 1e-6))
        bad.push(`${mode} ${tag}: ${s.cells} cells, text ${s.text.toFixed(1)} px, cells ${s.cell.toFixed(1)} px`);
    }
    const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
    if (scroll !== 390) bad.push(`${mode}: the page is ${scroll} px wide`);
    if (mode === 'dark') await page.click('#theme-toggle');
  }
  assert.deepEqual(bad, []);
  await page.goto(server.url);
});

for (const lang of ['en', 'zh'])
  test(`390 px, ${lang}: the tcgen05 atom fits the screen: both grids one above the other, no sideways scroll in the figure`, async () => {
    const tag = 'ls-tcgen05-atom';
    if (lang === 'zh') await page.goto(server.url + '#lang=zh');
    const s = await sizes(tag);
    assert.ok(s.text >= 11 - 1e-6 && s.cell >= 24 - 1e-6, `${s.text} px text, ${s.cell} px cells`);
    const m = await page.locator(tag).evaluate((e) => {
      const view = e.shadowRoot.querySelector('.view');
      const svg = view.querySelector('svg');
      const k = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
      const box = (sel) => {
        const r = [...svg.querySelectorAll(sel)].map((c) => c.getBoundingClientRect());
        return {
          top: Math.min(...r.map((b) => b.top)),
          bottom: Math.max(...r.map((b) => b.bottom)),
          right: Math.max(...r.map((b) => b.right)),
        };
      };
      // every text's right edge, measured by the browser (an estimate in the figure could be wrong)
      const textRight = Math.max(...[...svg.querySelectorAll('text')].map((t) => t.getBoundingClientRect().right));
      return {
        k,
        scroll: view.scrollWidth - view.clientWidth,
        viewRight: view.getBoundingClientRect().right,
        textRight,
        threads: box('rect[data-hit^="R:"]'),
        tmem: box('rect[data-hit^="M:"]'),
      };
    });
    assert.equal(m.scroll, 0, 'the drawing is no wider than its box');
    assert.ok(
      m.textRight <= m.viewRight + 0.5,
      `text reaches ${m.textRight.toFixed(0)} px, the box ends at ${m.viewRight.toFixed(0)}`,
    );
    assert.ok(m.tmem.top >= m.threads.bottom, 'the TMEM grid is under the threads grid');
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390, 'the page does not scroll');
    await page.locator(tag).screenshot({ path: join(artifacts, `phone-tcgen05-atom-${lang}.png`) });
    if (lang === 'zh') await page.goto(server.url);
  });

test('中文: the playground legend has no overlaps (CJK labels are wider per character)', async () => {
  const wide = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  try {
    await wide.goto(server.url + '#fig=play&lang=zh');
    const PG = 'ls-playground';
    await wide.locator(`${PG} .view`).waitFor({ timeout: 20_000 });
    await wide.selectOption(`${PG} select.colour`, 'index');
    await wide.fill(`${PG} input[name=layout]`, 'S[(64,64):(64,1)]');
    await wide.fill(`${PG} input[name=shape]`, '64,64');
    await wide.click(`${PG} button[type=submit]`);
    await wide.locator(`${PG}:not([aria-busy])`).waitFor();
    await wide.waitForFunction(() =>
      document.querySelector('ls-playground').scene?.items.some((it) => it.s === '4095'),
    );
    const out = await wide.locator(PG).evaluate((el) => {
      const items = el.scene.items;
      const title = items.find((it) => it.t === 'text' && /^颜色: /.test(it.s));
      const ctx = document.createElement('canvas').getContext('2d');
      const row = items
        .filter((it) => Math.abs((it.t === 'text' ? it.y : it.y + 6) - title.y) < 3 && it.x >= title.x)
        .map((it) => {
          if (it.t !== 'text') return { s: 'rect', x: it.x, right: it.x + it.w };
          ctx.font = `${it.size ?? 11}px sans-serif`;
          const w = ctx.measureText(it.s).width;
          const x = it.anchor === 'end' ? it.x - w : it.x;
          return { s: it.s, x, right: x + w };
        })
        .sort((a, b) => a.x - b.x);
      const bad = [];
      for (let i = 1; i < row.length; ++i)
        if (!(row[i].s === 'rect' && row[i - 1].s === 'rect') && row[i].x < row[i - 1].right - 0.5)
          bad.push(`${row[i - 1].s} | ${row[i].s}`);
      return bad;
    });
    assert.deepEqual(out, []);
    await wide.locator(PG).screenshot({ path: join(artifacts, 'play-legend-zh.png') });
  } finally {
    await wide.close();
  }
});

test('390 px, 中文: the scan view with a dump and CuTe layouts: no sideways page scroll, text >= 11 px, taps >= 24 px', async () => {
  const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
  try {
    await phone.goto(server.url + '#sec-scan&lang=zh');
    const area = phone.locator('ls-scan textarea');
    await area.waitFor({ timeout: 20_000 });
    const dump = readFileSync(join(root, 'tests', 'engine', 'fixtures', 'triton', 'ttgir-transpose-sm90.mlir'), 'utf8');
    await area.fill(`${dump}\nsA layout: (_8,_4):(_4,_1)\n`);
    await phone.locator('ls-scan table.ops tbody tr').first().waitFor({ timeout: 10_000 });
    await phone.locator('ls-scan table.cute tbody tr').first().waitFor();
    const m = await phone.locator('ls-scan').evaluate((el) => {
      const root = el.shadowRoot;
      const small = [];
      const walker = document.createTreeWalker(root, 4 /* NodeFilter.SHOW_TEXT */);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const p = n.parentElement;
        if (!p || !n.textContent.trim() || p.closest('textarea')) continue;
        const r = p.getBoundingClientRect();
        if (r.width === 0 && r.height === 0) continue; // hidden (a closed <details>)
        const px = parseFloat(getComputedStyle(p).fontSize);
        if (px < 11) small.push(`${n.textContent.trim().slice(0, 30)}: ${px} px`);
      }
      const taps = [];
      for (const t of root.querySelectorAll('a[href], button, summary, textarea, label.file .choose')) {
        const r = t.getBoundingClientRect();
        if (r.width === 0 && r.height === 0) continue;
        if (r.height < 24 - 0.5 || r.width < 24 - 0.5)
          taps.push(
            `${t.tagName.toLowerCase()} "${t.textContent.trim().slice(0, 20)}": ${r.width.toFixed(0)}x${r.height.toFixed(0)}`,
          );
      }
      return { small, taps, choose: root.querySelector('label.file .choose')?.textContent };
    });
    assert.deepEqual(m.small, []);
    assert.deepEqual(m.taps, []);
    assert.equal(m.choose, '选择文件…');
    assert.equal(await phone.evaluate(() => document.documentElement.scrollWidth), 390, 'the page does not scroll');
    await phone.locator('ls-scan').screenshot({ path: join(artifacts, 'phone-scan-zh.png') });
  } finally {
    await phone.close();
  }
});
