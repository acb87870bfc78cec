// The mesh figure's "reshard to": both shardings side by side and the engine's plan as steps. The tensor is
// 2 x 4 x 8 fp32 (64 elements, 256 B) on a 2 x 2 mesh. Bytes per device follow from the shardings: sharded along
// gpuid_y only (and replicated or offset along gpuid_x) a device holds 64 / 2 = 32 elements = 128 B; fully sharded
// over both axes, 64 / 4 = 16 elements = 64 B.
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
const M = 'ls-mesh';

before(async () => {
  server = await start(join(root, 'web', 'dist'));
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  await page.goto(server.url + '#sec-mesh');
  await page.locator(`${M} .view`).waitFor({ timeout: 20_000 });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** The first line of each step the figure draws ("1. op ...: A B → B B per device"). */
const steps = () =>
  page
    .locator(M)
    .evaluate((el) =>
      [...el.shadowRoot.querySelectorAll('.view text')].map((t) => t.textContent).filter((t) => /^\d+\. /.test(t)),
    );

/** Every transfer drawn in the steps' third lines, "xy->x'y'" as four digits. */
const moves = () =>
  page
    .locator(M)
    .evaluate((el) =>
      [...el.shadowRoot.querySelectorAll('.view text')]
        .map((t) => t.textContent)
        .flatMap((t) => [...t.matchAll(/\((\d),(\d)\)→\((\d),(\d)\)/g)].map((m) => m.slice(1).join(''))),
    );

test('replicated -> fully sharded is one local slice: 128 B -> 64 B a device, nothing sent', async () => {
  await page.click(`${M} button.mode-replica`);
  await page.selectOption(`${M} select.reshard`, 'sharded');
  const s = await steps();
  assert.equal(s.length, 1, s.join('\n'));
  assert.match(s[0], /^1\. slice/);
  assert.match(s[0], /128 B → 64 B/);
  assert.equal((await moves()).length, 0);
  // both shardings are drawn: 4 devices each
  const html = await page.locator(`${M} .view`).innerHTML();
  assert.equal((html.match(/GPU \(gpuid_x=/g) ?? []).length, 8);
});

test('offset -> replicated broadcasts from gpuid_x = 1 to gpuid_x = 0 in each gpuid_y', async () => {
  await page.click(`${M} button.mode-offset`);
  await page.selectOption(`${M} select.reshard`, 'replica');
  const s = await steps();
  assert.equal(s.length, 1, s.join('\n'));
  assert.match(s[0], /broadcast/);
  // only gpuid_x = 1 holds the data (O[1@gpuid_x]); each copy stays 128 B
  assert.match(s[0], /128 B → 128 B/);
  assert.deepEqual((await moves()).sort(), ['1000', '1101']);
});

test('fully sharded -> replicated gathers along gpuid_x: 64 B -> 128 B, pairs exchange both ways', async () => {
  await page.click(`${M} button.mode-sharded`);
  await page.selectOption(`${M} select.reshard`, 'replica');
  const s = await steps();
  assert.match(s[0], /^1\. all_gather along gpuid_x/);
  assert.match(s[0], /64 B → 128 B/);
  // the first step's transfers (a later local step has none)
  assert.deepEqual((await moves()).sort(), ['0010', '0111', '1000', '1101']);
  await page.locator(M).screenshot({ path: join(artifacts, 'mesh-reshard.png') });
  // the measured-time hook: given seconds per step, they are drawn beside the prediction
  await page.locator(M).evaluate((el) => (el.measuredSeconds = [2e-6, 1e-6]));
  await page.waitForFunction(() =>
    [...document.querySelector('ls-mesh').shadowRoot.querySelectorAll('.view text')].some((t) =>
      /measured 2\.00 µs/.test(t.textContent),
    ),
  );
});

test('no uncaught errors', () => {
  assert.deepEqual(pageErrors, []);
});
