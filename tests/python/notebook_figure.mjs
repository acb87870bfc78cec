// Opens a notebook in headless Chromium and reads the layoutscope figure in it: whether <ls-fragment> was
// defined by the bundle, and what the figure says once cell (5, 3) is clicked.
//   node tests/python/notebook_figure.mjs http://127.0.0.1:PORT/notebook.html          an nbconvert export
//   node tests/python/notebook_figure.mjs http://127.0.0.1:PORT/notebooks/f.ipynb run  Jupyter Notebook: run
//                                                                                      every cell first
// Prints one JSON line.
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(join(root, 'web', 'package.json'));
const { chromium } = require('playwright-core');

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
const out = { errors: [] };
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  page.on('pageerror', (e) => out.errors.push(String(e)));
  await page.goto(process.argv[2]);
  if (process.argv[3] === 'run') {
    await page.waitForFunction(() => window.Jupyter?.notebook?.kernel?.is_connected?.(), null, { timeout: 60000 });
    await page.evaluate(() => window.Jupyter.notebook.execute_all_cells());
  }
  await page.waitForFunction(() => customElements.get('ls-fragment') !== undefined, null, { timeout: 60000 });
  out.defined = true;
  out.layout = await page.locator('ls-fragment').getAttribute('layout');
  await page.locator('ls-fragment [data-hit="L:43"]').click({ timeout: 20000 });
  out.live = await page.locator('ls-fragment .live').textContent();
  out.cells = await page.locator('ls-fragment [data-hit^="L:"]').count();
  // LAYOUTSCOPE_SCREENSHOT=path.png keeps a picture of the notebook's output cell (the README shows it).
  if (process.env.LAYOUTSCOPE_SCREENSHOT) {
    await page.locator('ls-fragment').screenshot({ path: process.env.LAYOUTSCOPE_SCREENSHOT });
  }
} catch (e) {
  out.errors.push(String(e));
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
