// Embedding: web/examples/docs-embed.html served by a real agent (CPU backend) under its strict
// Content-Security-Policy (script-src 'self' 'wasm-unsafe-eval', style-src 'self', no inline anything): every
// embedded figure loads, the iframe reports its height, the figures follow the page's dark mode, and the
// console stays clean. embed.html says what is wrong with a bad fragment.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { launch, root } from './browser.mjs';
import { startAgent } from './agent.mjs';

const artifacts = join(root, 'build', 'artifacts');
let agent, browser, page;
const consoleErrors = [];
const FIGURES = ['ls-fragment', 'ls-tile-layout', 'ls-bank-conflicts', 'ls-swizzle-atom'];

before(async () => {
  agent = await startAgent();
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  page.on('response', (r) => r.status() >= 400 && consoleErrors.push(`HTTP ${r.status()}: ${r.url()}`));
});

after(async () => {
  await browser?.close();
  await agent?.stop();
});

const frame = () => page.frameLocator('#doc-frame');

test('docs page: every embedded figure and the iframe figure load under the strict CSP', async () => {
  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto(`${agent.base}/examples/docs-embed.html`);
  const csp = await page.locator('meta[http-equiv=Content-Security-Policy]').getAttribute('content');
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval';/);
  assert.doesNotMatch(csp, /'unsafe-inline'|'unsafe-eval'/);
  for (const tag of FIGURES) await page.locator(`${tag} .view`).first().waitFor({ timeout: 15_000 });
  // each figure's worked example from its attributes
  assert.match(await page.locator('ls-fragment .live').textContent(), /cell 43 \(5, 3\): lane 21, slot 1/);
  assert.match(await page.locator('ls-tile-layout .live').textContent(), /\(5, 6\), x = 46 → 46@m/);
  assert.match(
    await page.locator('ls-bank-conflicts .live').textContent(),
    /Row-major 8 cycles, XOR swizzle 1 cycle\b/,
  );
  assert.match(await page.locator('ls-swizzle-atom .details').textContent(), /SWIZZLE_128B/);
  await page.locator('#doc-frame').scrollIntoViewIfNeeded();
  await frame().locator('ls-scale-factors .view').waitFor({ timeout: 15_000 });
  assert.match(
    await frame().locator('ls-scale-factors .live').textContent(),
    /SFA\[64, 2\] → \(TLane, TCol, byte\) \(0,2,2\) \(32,2,2\) \(64,2,2\) \(96,2,2\)/,
  );
});

test('the iframe tells the page its height, and the page sizes it to that', async () => {
  const inner = await frame()
    .locator('html')
    .evaluate((h) => Math.ceil(h.getBoundingClientRect().height));
  await page.waitForFunction(
    (h) => Math.abs(document.getElementById('doc-frame').getBoundingClientRect().height - 2 - h) <= 2,
    inner,
  );
  assert.ok(inner > 320, `the figure is taller than the frame's initial 320 px (${inner})`);
});

test('figures fit the column and follow the host page into dark mode (script elements and the iframe)', async () => {
  const article = await page.locator('article').boundingBox();
  for (const tag of FIGURES) {
    const box = await page.locator(tag).first().boundingBox();
    assert.ok(box.width <= article.width + 1, `${tag} is ${box.width}px wide in a ${article.width}px column`);
  }
  const bg = (loc) => loc.evaluate((el) => getComputedStyle(el).backgroundColor);
  assert.equal(await bg(page.locator('ls-fragment .view')), 'rgb(255, 255, 255)');
  await page.click('#scheme');
  await page.waitForFunction(
    () =>
      getComputedStyle(document.querySelector('ls-fragment').shadowRoot.querySelector('.view')).backgroundColor ===
      'rgb(22, 24, 28)',
  );
  await page.waitForFunction(
    () => document.getElementById('doc-frame').contentDocument.documentElement.dataset.theme === 'dark',
  );
  assert.equal(await bg(frame().locator('ls-scale-factors .view')), 'rgb(22, 24, 28)');
  await page.screenshot({ path: join(artifacts, 'docs-embed-dark.png'), fullPage: true });
  await page.click('#scheme');
  await page.screenshot({ path: join(artifacts, 'docs-embed-light.png'), fullPage: true });
});

test('embed.html names the problem with an unknown figure', async () => {
  const p = await browser.newPage();
  await p.goto(`${agent.base}/embed.html#figure=nope`);
  assert.match(
    await p.locator('[role=alert]').textContent(),
    /unknown figure "nope"; expected one of tile, fragment, tmem, sf, mesh, banks, atom, play/,
  );
  await p.close();
});

test('no console errors (CSP violations included) and no failed requests', () => {
  assert.deepEqual(consoleErrors, []);
});
