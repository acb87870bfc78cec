// The scan view's file button: the browser's own <input type=file> says "Choose File / No file chosen" in the
// browser's language whatever the page's; the page draws the button's words itself, in the page's language, and
// they follow the English / 中文 toggle. Choosing a file still scans it, and its name replaces "no file chosen".
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { launch, root } from './browser.mjs';
import { start } from './serve.mjs';

let server, browser, page;
const errors = [];
before(async () => {
  server = await start(join(root, 'web', 'dist'));
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
});
after(async () => {
  await browser?.close();
  await server?.close();
});

const words = () =>
  page.locator('ls-scan').evaluate((el) => {
    const label = el.shadowRoot.querySelector('label.file');
    const input = label?.querySelector('input[type=file]');
    const box = input?.getBoundingClientRect();
    return {
      choose: label?.querySelector('.choose')?.textContent.trim(),
      chosen: label?.querySelector('.chosen')?.textContent.trim(),
      // the native control is there (keyboard, screen readers) but draws nothing of its own
      nativeShown: !!box && box.width > 2 && box.height > 2 && getComputedStyle(input).opacity !== '0',
      name: input?.getAttribute('aria-label'),
    };
  });

test("the file button speaks the page's language and follows the toggle", async () => {
  await page.goto(server.url + '#sec-scan');
  await page.locator('ls-scan textarea').waitFor({ timeout: 20_000 });
  assert.deepEqual(await words(), {
    choose: 'Choose a file…',
    chosen: 'no file chosen',
    nativeShown: false,
    name: 'TTGIR or MLIR file',
  });
  await page.click('#lang-toggle');
  await page.waitForFunction(() => document.documentElement.dataset.lsLang === 'zh');
  await page.locator('ls-scan').evaluate((el) => el.updateComplete);
  assert.deepEqual(await words(), {
    choose: '选择文件…',
    chosen: '未选择文件',
    nativeShown: false,
    name: 'TTGIR 或 MLIR 文件',
  });
  // a chosen file is scanned and named beside the button
  const file = join(root, 'tests', 'engine', 'fixtures', 'triton', 'ttgir-transpose-sm90.mlir');
  await page.locator('ls-scan input[type=file]').setInputFiles(file);
  await page.locator('ls-scan table.ops tbody tr').first().waitFor({ timeout: 10_000 });
  assert.equal((await words()).chosen, 'ttgir-transpose-sm90.mlir');
  assert.match(await page.locator('ls-scan p.summary').innerText(), /扫描 \d+ 行/);
  await page.click('#lang-toggle');
  await page.waitForFunction(() => document.documentElement.dataset.lsLang !== 'zh');
  await page.locator('ls-scan').evaluate((el) => el.updateComplete);
  assert.equal((await words()).choose, 'Choose a file…');
  // the button is reached by the keyboard: the hidden input takes the focus and the drawn button shows it
  await page.locator('ls-scan input[type=file]').focus();
  assert.equal(
    await page.locator('ls-scan').evaluate((el) => el.shadowRoot.activeElement?.getAttribute('type')),
    'file',
  );
  assert.deepEqual(errors, []);
});
