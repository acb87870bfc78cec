// Bad input and odd states never break a figure: each case is driven by real clicks or by setting attributes the
// way a docs site does, and must end in a readable message (or a sane readout), with no uncaught exception.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
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
  page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && pageErrors.push(m.text()));
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('swizzle atom: a cell selected, the mouse resting on it, then a smaller atom picked: no NaN, no undefined', async () => {
  await page.goto(server.url + '#fig=atom');
  const atom = page.locator('ls-swizzle-atom');
  await atom.scrollIntoViewIfNeeded();
  // SWIZZLE_128B f16: 8 rows x 64 elements; element 72 = (1, 8). Swizzle<3,3,3>: 72 ^ ((72 & 0b111000000) >> 3)
  // = 72 ^ (64 >> 3) = 72 ^ 8 = 64 = (1, 0).
  await page.click('ls-swizzle-atom [data-hit="E:72"]');
  assert.match(await page.locator('ls-swizzle-atom .remap').textContent(), /\(1, 8\) .* \(1, 0\); offset 72 → 64/);
  // the keyboard changes the selects while the pointer stays over the cell (selectOption does not move the mouse)
  await page.selectOption('ls-swizzle-atom select.dtype', 'f32');
  await page.selectOption('ls-swizzle-atom select.mode', '32B');
  const text = await page.locator('ls-swizzle-atom .details').textContent();
  assert.doesNotMatch(text, /NaN|undefined/);
  // SWIZZLE_32B on f32 is 8 rows x 8 elements (32 B rows): 64 elements, so offset 72 no longer exists
  assert.match(text, /8 × 32 B/);
  // the selection set by the URL fragment beyond the atom is dropped too
  await page.goto(server.url + '#atom.mode=32B&atom.dtype=f32&atom.sel=E%3A300');
  await page.locator('ls-swizzle-atom .details').waitFor();
  assert.doesNotMatch(await page.locator('ls-swizzle-atom .details').textContent(), /NaN|undefined/);
  await atom.screenshot({ path: join(artifacts, 'atom-after-switch.png') });
});

test('playground: a shape error puts its caret under the shape, a layout error under the layout', async () => {
  await page.goto(server.url + '#fig=play');
  const form = 'ls-playground form.inputs';
  await page.locator(form).scrollIntoViewIfNeeded();
  await page.fill(`${form} input[name=shape]`, '8,x');
  await page.click(`${form} button[type=submit]`);
  const err = page.locator('ls-playground .input-error');
  const lines = (await err.locator('code').allTextContents()).map((s) => s.replace(/\s+$/, ''));
  // "8,x": the bad token is the third character
  assert.equal(lines[0], '8,x');
  assert.equal(lines[1], '  ^');
  assert.match(await err.textContent(), /shape/);
  await page.locator('ls-playground').screenshot({ path: join(artifacts, 'play-shape-error.png') });
  await page.fill(`${form} input[name=shape]`, '8,8');
  await page.fill(`${form} input[name=layout]`, 'S[(8,8):(8,1]');
  await page.click(`${form} button[type=submit]`);
  const l2 = (await err.locator('code').allTextContents()).map((s) => s.replace(/\s+$/, ''));
  assert.equal(l2[0], 'S[(8,8):(8,1]');
  // the stride list opened at column 9 is not closed where "]" stands, column 13
  assert.equal(l2[1].length, 13, `caret at column 13: "${l2[1]}"`);
  assert.match(await err.textContent(), /layout/);
});

/** Adds an element with attributes to the docs example page (which loads layoutscope.js as a docs site does). */
async function embed(tag, attrs) {
  return page.evaluate(
    ([tag, attrs]) => {
      const el = document.createElement(tag);
      for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
      el.id = `t-${Math.random().toString(36).slice(2)}`;
      document.querySelector('article').prepend(el);
      return el.id;
    },
    [tag, attrs],
  );
}
const alertOf = async (id) => {
  const loc = page.locator(`#${id} [role=alert]`);
  await loc.waitFor({ timeout: 10_000 });
  return loc.textContent();
};

test('embedded elements: an invalid layout is an inline error with its caret, no grid, no uncaught exception', async () => {
  pageErrors.length = 0;
  await page.goto(server.url + 'examples/docs-embed.html');
  await page.locator('ls-fragment .view').waitFor();
  const id = await embed('ls-fragment', { layout: 'S[(8,4,2):(4@laneid,1@laneid,1@reg]', shape: '8,8' });
  const msg = await alertOf(id);
  assert.match(msg, /layout/);
  assert.match(msg, /column \d+/);
  assert.equal(await page.locator(`#${id} .view`).count(), 0, 'no empty grid');
  // fixing the attribute from the site's script brings the figure back: cell 43 -> lane 21, slot 1
  await page.evaluate((id) => {
    const el = document.getElementById(id);
    el.setAttribute('layout', 'S[(8,4,2):(4@laneid,1@laneid,1@reg)]');
    el.setAttribute('selection', 'L:43');
  }, id);
  await page.locator(`#${id} .view`).waitFor();
  assert.match(await page.locator(`#${id} .live`).textContent(), /lane 21, slot 1/);
  // and breaking it again after load (attribute change) is an error again
  await page.evaluate((id) => document.getElementById(id).setAttribute('layout', 'S[(8,8):(8,1)] + Q[1]'), id);
  assert.match(await alertOf(id), /layout/);
  // the same for the other layout-driven elements
  for (const tag of ['ls-tile-layout', 'ls-scale-factors', 'ls-playground']) {
    const id2 = await embed(tag, { layout: 'S[(8,8):(8,', shape: '8,8' });
    assert.match(await alertOf(id2), /column \d+/, tag);
  }
  await page.locator('article').screenshot({ path: join(artifacts, 'embed-invalid-layout.png') });
  assert.deepEqual(pageErrors, []);
});

test('embedded elements: a required attribute given empty says so', async () => {
  const id = await embed('ls-tile-layout', { layout: '' });
  assert.match(await alertOf(id), /layout attribute is empty; it is required/);
});

test('<ls-bank-conflicts compare=...> without shape names the layout\'s own shape, never got ""', async () => {
  // S[1024:1] has the one-extent shape (1024): a bank figure needs rows and columns
  const id = await embed('ls-bank-conflicts', { layout: 'S[1024:1]', compare: 'S[1024:2]' });
  const msg = await alertOf(id);
  assert.doesNotMatch(msg, /got ""/);
  assert.match(msg, /shape/);
  assert.match(msg, /\(1024\)/);
  const id2 = await embed('ls-bank-conflicts', { compare: 'S[(32,32):(33,1)]' });
  assert.match(await alertOf(id2), /layout.*required with compare/);
  // a correct pair draws: the padded 33-word rows read down a column in 1 wavefront, the 32-word rows in 32
  const id3 = await embed('ls-bank-conflicts', {
    layout: 'S[(32,32):(32,1)]',
    compare: 'S[(32,32):(33,1)]',
    shape: '32,32',
    selection: 'C:0',
  });
  await page.locator(`#${id3} .view`).waitFor();
  assert.match(
    await page.locator(`#${id3} .live`).textContent(),
    /S\[\(32,32\):\(32,1\)\] 32 cycles, S\[\(32,32\):\(33,1\)\] 1 cycle\b/,
  );
  assert.deepEqual(pageErrors, []);
});

test('opened from file://, the page says it must be served', async () => {
  const p = await browser.newPage();
  await p.goto(pathToFileURL(join(root, 'web', 'dist', 'index.html')).href);
  const note = p.locator('main > p.not-served');
  await note.waitFor({ timeout: 5000 });
  assert.match(await note.textContent(), /must be served over HTTP/);
  assert.match(await p.locator('ls-tile-layout').textContent(), /served over HTTP/);
  await p.screenshot({ path: join(artifacts, 'file-url.png') });
  await p.close();
  // served, the note is absent
  await page.goto(server.url);
  await page.locator('ls-tile-layout .view').waitFor();
  assert.equal(await page.locator('.not-served').count(), 0);
});

test('no uncaught errors over the whole file', () => {
  assert.deepEqual(pageErrors, []);
});
