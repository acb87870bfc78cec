// The scan view in Chinese: a Triton dump with layout-moving ops and CuTe layouts (one that does not read) pasted,
// the page switched to 中文, and no English-only text left in the view, by the same rule as the benchmark panel's
// check: English words outside names written the same in both languages are leftovers; code, layouts and the
// engine's own messages about text that did not read (marked lang="en") are not.
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
const consoleErrors = [];

before(async () => {
  server = await start(join(root, 'web', 'dist'));
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/** Every text the user sees in the scan view (text nodes and aria-labels), outside code and marked English. */
function visibleTexts() {
  return page.evaluate(() => {
    const root = document.querySelector('ls-scan').shadowRoot;
    const out = [];
    const walker = document.createTreeWalker(root, 4 /* NodeFilter.SHOW_TEXT */);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || el.closest('code, pre, textarea, [lang="en"]')) continue;
      const s = n.textContent.trim();
      if (s) out.push(s);
    }
    for (const el of root.querySelectorAll('[aria-label]')) out.push(el.getAttribute('aria-label'));
    return out;
  });
}

// names written the same in both languages (formats, file types, hardware units, PTX and Triton terms, Triton's
// encodings as it spells them: #ttg.blocked ...)
const allowed =
  /^(TTGIR|MLIR|ttgir|mlir|txt|CuTe|print|op|ops|TMA|LSU|ncu|LDS|STS|ldmatrix|MMA|shfl|sync|wavefronts?|bank|lanes?|warps?|shuffle|tile|swizzle|shape|optimalSwizzlingLdSt|Triton|ttg|blocked|swizzled_shared|nvmma_shared)$/;
const englishOnly = (texts) =>
  texts.filter((s) =>
    (s.replace(/[\w./-]*\d[\w./-]*/g, ' ').match(/[A-Za-z][A-Za-z_-]{2,}/g) ?? []).some((w) => !allowed.test(w)),
  );

test('中文: a scanned dump with CuTe layouts leaves no English-only text in the scan view', async () => {
  await page.goto(server.url + '#sec-scan');
  const dump = readFileSync(join(root, 'tests', 'engine', 'fixtures', 'triton', 'ttgir-transpose-sm90.mlir'), 'utf8');
  const log = `${dump}\nsA layout: (_8,_4):(_4,_1)\nbad: (2,3):(oops,1)\n`;
  const area = page.locator('ls-scan textarea');
  await area.waitFor();
  await area.fill(log);
  await page.locator('ls-scan table.ops tbody tr').first().waitFor({ timeout: 10_000 });
  await page.locator('ls-scan table.cute tbody tr').first().waitFor();
  assert.ok((await page.locator('ls-scan table.cute tbody tr').count()) >= 2);
  // in English the view speaks English (the check below finds what it would flag)
  assert.ok(englishOnly(await visibleTexts()).length > 0);
  await page.click('#lang-toggle');
  const scan = page.locator('ls-scan');
  await page.waitForFunction(() => document.documentElement.dataset.lsLang === 'zh');
  await scan.evaluate((el) => el.updateComplete);
  // every box open: the aliases and each op's and alias's export (its menu of encodings)
  await scan.locator('details.aliases').evaluate((d) => (d.open = true));
  await scan.evaluate((el) => el.updateComplete);
  await scan.locator('details.export').evaluateAll((ds) => ds.forEach((d) => (d.open = true)));
  await scan.evaluate((el) => el.updateComplete);
  assert.ok((await scan.locator('details.export select').count()) >= 3);
  assert.deepEqual(englishOnly(await visibleTexts()), []);
  assert.equal((await scan.locator('table.cute caption').innerText()).trim(), '文本中打印的 CuTe 布局');
  // the labels are the page's Chinese; layouts and op names stay as written
  assert.match(await scan.locator('p.summary').innerText(), /扫描 \d+ 行/);
  assert.equal(await scan.locator('table.cute tbody tr').first().locator('td').nth(2).innerText(), 'S[(8,4):(4,1)]');
  assert.match(await scan.locator('table.ops tbody tr').first().locator('td').nth(1).innerText(), /^tt[gn]?g?\./);
  await scan.scrollIntoViewIfNeeded();
  await page.waitForLoadState('networkidle');
  await scan.scrollIntoViewIfNeeded();
  await scan.screenshot({ path: join(artifacts, 'scan-zh.png') });
  // back to English: the labels follow the toggle again
  await page.click('#lang-toggle');
  await page.waitForFunction(() =>
    /CuTe layouts printed in the text/.test(document.querySelector('ls-scan').shadowRoot.textContent),
  );
  assert.deepEqual(pageErrors, []);
  assert.deepEqual(consoleErrors, []);
});

test("中文: every op of the committed Triton dumps has its kind and note in Chinese (the engine's sentences known)", async () => {
  await page.goto(server.url + '#sec-scan&lang=zh');
  const area = page.locator('ls-scan textarea');
  await area.waitFor();
  const untranslated = [];
  const kinds = new Set();
  for (const name of [
    'attention-sm90',
    'layernorm-sm90',
    'matmul-sm100',
    'matmul-sm80',
    'matmul-sm90',
    'transpose-sm90',
  ]) {
    const dump = readFileSync(join(root, 'tests', 'engine', 'fixtures', 'triton', `ttgir-${name}.mlir`), 'utf8');
    await page.locator('ls-scan').evaluate(async (el, text) => {
      await el.scan(text);
      await el.updateComplete;
    }, dump);
    const words = await page
      .locator('ls-scan table.ops tbody td [lang="en"]')
      .evaluateAll((els) => els.map((e) => e.textContent));
    untranslated.push(...words.map((w) => `${name}: ${w}`));
    for (const k of await page.locator('ls-scan table.ops tbody td.kind').allInnerTexts()) kinds.add(k);
  }
  assert.deepEqual(untranslated, []);
  // the dumps move data through registers, shared memory and tensor memory: several kinds, none left English
  assert.ok(kinds.size >= 4, [...kinds].join(', '));
  assert.deepEqual(pageErrors, []);
  assert.deepEqual(consoleErrors, []);
});
