// Figures that explain themselves: captions in both languages, "T21 V1" labels in the fragment, the padded bank
// case, mesh replicas in one colour, keyboard help on "?", copy-link, the print stylesheet and the meta
// description; and the load path: figures come in as they are needed, and nothing fetches the panel unasked.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { launch, root } from './browser.mjs';
import { start } from './serve.mjs';

const artifacts = join(root, 'build', 'artifacts');
mkdirSync(artifacts, { recursive: true });
let server, browser, context, page;
const pageErrors = [];

before(async () => {
  server = await start(join(root, 'web', 'dist'));
  browser = await launch();
  context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url.replace(/\/$/, '') });
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && pageErrors.push(m.text()));
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('first load: the figure in view is drawn first, the others follow without a scroll, the panel chunk is not fetched', async () => {
  const urls = [];
  page.on('request', (r) => urls.push(r.url()));
  await page.goto(server.url, { waitUntil: 'commit' });
  const drawnAt = await (
    await page.waitForFunction(
      () =>
        document.querySelector('ls-tile-layout')?.shadowRoot?.querySelector('.view [data-hit]') ? performance.now() : 0,
      null,
      { polling: 'raf' },
    )
  ).jsonValue();
  // only the tile figure's code is fetched before it is drawn: no other figure's chunk, not layoutscope.js (every
  // figure in one file, for docs sites)
  const OTHERS =
    /\/(assets\/(fragment|tmem|scale-factors|mesh|bank-conflicts|advisor|swizzle-atom|playground)-[^/]*|layoutscope)\.js$/;
  const early = await page.evaluate(
    (t) =>
      performance
        .getEntriesByType('resource')
        .filter((e) => e.startTime < t)
        .map((e) => e.name),
    drawnAt,
  );
  assert.ok(early.some((u) => /\.wasm$/.test(u)));
  assert.deepEqual(
    early.filter((u) => OTHERS.test(u)),
    [],
  );
  // the playground, far below the fold, is drawn in an idle period without scrolling
  await page.locator('ls-playground .view').waitFor({ timeout: 30_000 });
  await page.waitForTimeout(2500);
  // the other figures' chunks came after, without a scroll; the page never needs layoutscope.js
  assert.equal(urls.filter((u) => OTHERS.test(u) && !/layoutscope\.js$/.test(u)).length, 8);
  assert.equal(urls.filter((u) => /\/layoutscope\.js$/.test(u)).length, 0);
  assert.equal(
    urls.filter((u) => /assets\/panel-/.test(u)).length,
    0,
    'the panel chunk is fetched only when the panel comes near the viewport',
  );
  // the build's precompressed files are what the server sent
  const res = await page.request.get(server.url + 'layoutscope.js', { headers: { 'Accept-Encoding': 'br' } });
  assert.equal(res.headers()['content-encoding'], 'br');
  const meta = await page.locator('meta[name=description]').getAttribute('content');
  assert.match(meta, /GPU data layouts/);
});

test("#fig=atom: the swizzle atom is drawn first, before the tile figure above it, and no other figure's code is fetched before", async () => {
  const ctx = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const p = await ctx.newPage();
  await p.goto(server.url + '#fig=atom', { waitUntil: 'commit' });
  const state = await (
    await p.waitForFunction(
      () =>
        document.querySelector('ls-swizzle-atom')?.shadowRoot?.querySelector('.view [data-hit]') && {
          at: performance.now(),
          tileDrawn: !!document.querySelector('ls-tile-layout')?.shadowRoot?.querySelector('.view'),
          atomTop: document.getElementById('sec-atom').getBoundingClientRect().top,
        },
      null,
      { polling: 'raf' },
    )
  ).jsonValue();
  assert.equal(state.tileDrawn, false, 'the tile figure, out of view, waits');
  // scrolled to: its section in view (near the end of a page whose figures are not drawn yet, the scroll stops short
  // of putting it at the top)
  assert.ok(
    state.atomTop >= 0 && state.atomTop < 900 - 300,
    `the atom's section is in view (top at ${state.atomTop} px)`,
  );
  const early = await p.evaluate(
    (t) =>
      performance
        .getEntriesByType('resource')
        .filter((e) => e.startTime < t)
        .map((e) => e.name.split('/').pop()),
    state.at,
  );
  assert.ok(early.some((f) => /^swizzle-atom-.*\.js$/.test(f)));
  assert.deepEqual(
    early.filter((f) => /^(fragment|tmem|scale-factors|mesh|bank-conflicts|advisor|playground)-.*\.js$/.test(f)),
    [],
  );
  // the tile figure follows without a scroll
  await p.locator('ls-tile-layout .view [data-hit]').first().waitFor();
  await ctx.close();
});

test('every figure has a caption, in English and in Chinese', async () => {
  const en = await page.locator('p.caption').allTextContents();
  // the seven figures of the chapter, the two tcgen05 figures (atoms, block scaling), the layout advisor and the
  // playground
  assert.equal(en.length, 11);
  for (const c of en) assert.match(c, /^How to read it: /);
  await page.click('#lang-toggle');
  const zh = await page.locator('p.caption').allTextContents();
  for (const c of zh) assert.match(c, /^读图：/);
  await page.click('#lang-toggle');
});

test('fragment: each logical cell says which lane and slot hold it, "T21 V1" for element 43', async () => {
  // element 43 = (5, 3) of S[(8,4,2):(4@laneid,1@laneid,1@reg)]: unflatten(43; 8,4,2) = (5,1,1), lane 5*4+1 = 21,
  // slot 1; element 0 is T0 V0, element 1 is T0 V1 (the last extent, 2, is the slot)
  const texts = await page.locator('ls-fragment svg text').allTextContents();
  const pairs = [];
  for (let i = 0; i + 1 < texts.length; ++i)
    if (/^T\d+$/.test(texts[i]) && /^V\d+$/.test(texts[i + 1])) pairs.push(`${texts[i]} ${texts[i + 1]}`);
  assert.equal(pairs.length, 64);
  assert.equal(pairs[43], 'T21 V1');
  assert.equal(pairs[0], 'T0 V0');
  assert.equal(pairs[1], 'T0 V1');
  await page.locator('ls-fragment').screenshot({ path: join(artifacts, 'fragment-t-v.png') });
});

test('bank conflicts: the padded case, a 32x32 fp32 column read: 32 cycles at 32 words a row, 1 at 33', async () => {
  await page.locator('ls-bank-conflicts').scrollIntoViewIfNeeded();
  await page.click('ls-bank-conflicts button.case-pad');
  await page.click('ls-bank-conflicts [data-hit="C:0"]');
  // column 0 of S[(32,32):(32,1)]: words 0, 32, 64, ... all bank 0 -> 32 passes; of S[(32,32):(33,1)]: word 33r,
  // bank r -> all 32 banks distinct, one pass
  assert.match(
    await page.locator('ls-bank-conflicts .live').textContent(),
    /S\[\(32,32\):\(32,1\)\] 32 cycles, S\[\(32,32\):\(33,1\)\] \(padded\) 1 cycle\b/,
  );
  await page.locator('ls-bank-conflicts').screenshot({ path: join(artifacts, 'banks-padded.png') });
  await page.click('ls-bank-conflicts button.case-toy');
});

test('mesh: a replicated element has one colour on every device that holds it', async () => {
  await page.locator('ls-mesh').scrollIntoViewIfNeeded();
  await page.click('ls-mesh button.mode-replica');
  await page.click('ls-mesh [data-hit="L:51"]');
  // (1, 2, 3) = x 51 sits at m 19 of devices (0, 1) and (1, 1): the same fill on both
  const a = await page.locator('ls-mesh rect[data-hit="D:0:1:19"]').getAttribute('fill');
  const b = await page.locator('ls-mesh rect[data-hit="D:1:1:19"]').getAttribute('fill');
  assert.equal(a, b);
  await page.locator('ls-mesh').screenshot({ path: join(artifacts, 'mesh-replicas.png') });
});

test('"?" opens the keyboard help, Esc closes it; copy-link copies the address with the state', async () => {
  await page.locator('h1').click();
  await page.keyboard.press('?');
  assert.equal(await page.locator('#help').evaluate((d) => d.open), true);
  assert.match(await page.locator('#help').textContent(), /Enter \/ Space/);
  await page.screenshot({ path: join(artifacts, 'help.png') });
  await page.keyboard.press('Escape');
  assert.equal(await page.locator('#help').evaluate((d) => d.open), false);
  // typing "?" in a field types it
  await page.fill('ls-playground input[name=layout]', '');
  await page.locator('ls-playground input[name=layout]').press('?');
  assert.equal(await page.locator('#help').evaluate((d) => d.open), false);
  await page.click('#copy-link');
  await page.waitForFunction(() => /copied|剪贴板/.test(document.getElementById('copy-status').textContent));
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), await page.evaluate(() => location.href));
});

test('print: navigation, controls and the panel are hidden', async () => {
  await page.emulateMedia({ media: 'print' });
  for (const sel of ['nav', '.settings', '#sec-bench'])
    assert.equal(await page.locator(sel).first().isVisible(), false, sel);
  assert.equal(await page.locator('#sec-tile').isVisible(), true);
  await page.emulateMedia({ media: 'screen' });
});

test('390 px wide: no horizontal scroll, every control a tap target of at least 24 px', async () => {
  const phone = await browser.newPage({ viewport: { width: 390, height: 800 } });
  phone.on('pageerror', (e) => pageErrors.push(String(e)));
  await phone.goto(server.url);
  await phone.locator('ls-playground .view').waitFor({ timeout: 30_000 });
  await phone.locator('ls-bench-panel').scrollIntoViewIfNeeded();
  await phone.locator('ls-bench-panel fieldset').first().waitFor({ timeout: 30_000 });
  const r = await phone.evaluate(() => {
    const small = [];
    const walk = (root) => {
      for (const el of root.querySelectorAll('button, a, select, input, textarea')) {
        const b = el.getBoundingClientRect();
        if (b.width > 0 && (b.height < 24 || b.width < 24))
          small.push(`${el.tagName.toLowerCase()}.${el.className} ${b.width.toFixed(0)}x${b.height.toFixed(0)}`);
      }
      for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot);
    };
    walk(document);
    return { width: document.documentElement.scrollWidth, small };
  });
  assert.equal(r.width, 390, 'no horizontal scroll');
  assert.deepEqual(r.small, []);
  await phone.screenshot({ path: join(artifacts, 'page-390.png') });
  await phone.close();
});

test('no uncaught errors', () => {
  assert.deepEqual(pageErrors, []);
});
