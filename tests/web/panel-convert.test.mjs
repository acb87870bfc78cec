// The benchmark panel's convert form, its runs list a page at a time, and its Chinese, against a real
// layoutscope-agent (CPU backend, started here). Expected numbers are worked out in the comments or computed
// here from the committed peers file, not read from the page's code.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { AxeBuilder, launch, root } from './browser.mjs';
import { startAgent } from './agent.mjs';

const artifacts = join(root, 'build', 'artifacts');
let agent, browser, context, page;
const consoleErrors = [];
const P = 'ls-bench-panel';
const inPanel = (fn, arg = null) => page.waitForFunction(fn, arg, { timeout: 60_000 });

before(async () => {
  agent = await startAgent();
  browser = await launch();
  context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  page = await context.newPage();
  page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  await page.goto(agent.url);
  await page.waitForSelector(`${P} .agent.ready`, { timeout: 15_000 });
});

after(async () => {
  await browser?.close();
  await agent?.stop();
});

// Runs the convert form and waits for this run (the agent's id from the POST) to succeed: the progress text of an
// earlier run still reads "100% · succeeded" right after the click, so the agent's own status decides.
async function runConvert(timeout = 60_000) {
  await page.fill(`${P} fieldset.convert input[name=repetitions]`, '3');
  await page.fill(`${P} fieldset.convert input[name=warmup]`, '0');
  const posted = page.waitForResponse((r) => r.url().endsWith('/v1/runs') && r.request().method() === 'POST');
  await page.click(`${P} .convert-button`);
  const { id } = await (await posted).json();
  const deadline = Date.now() + timeout;
  for (;;) {
    const run = await agent.fetch(`/v1/runs/${id}`).then((r) => r.json());
    if (run.status === 'succeeded') break;
    assert.ok(!['failed', 'cancelled'].includes(run.status), `convert run ${id}: ${run.status}`);
    assert.ok(Date.now() < deadline, `convert run ${id} still ${run.status} after ${timeout} ms`);
    await new Promise((ok) => setTimeout(ok, 250));
  }
  await page.waitForFunction(
    () =>
      /100% · succeeded/.test(
        document.querySelector('ls-bench-panel').shadowRoot.querySelector('fieldset.convert .progress-text')
          ?.textContent ?? '',
      ),
    null,
    { timeout: 60_000 },
  );
}

test("the dtype list is the request schema's enum for convert (no list of the page's own), starting at f32", async () => {
  const schema = JSON.parse(readFileSync(join(root, 'schemas', 'run-request.schema.json'), 'utf8'));
  const allowed = schema.$defs.convert_params.properties.dtype.enum;
  const select = page.locator(`${P} fieldset.convert select[name=dtype]`);
  assert.deepEqual(await select.locator('option').allTextContents(), allowed);
  // the request's dtype is required (no default in the catalogue): the form starts at the chapter's f32
  assert.equal(await select.inputValue(), 'f32');
});

test('convert two layouts: the agent runs it, the plan is drawn source -> tile -> destination', async () => {
  // the generic run form leaves convert to its own form
  assert.equal(await page.locator(`${P} button.bench-convert`).count(), 0);
  await page.fill(`${P} fieldset.convert input[name=src]`, 'S[(256,128):(128,1)]');
  await page.fill(`${P} fieldset.convert input[name=dst]`, 'S[(256,128):(1,256)]');
  // the layouts carry their 256 x 128 shape: the form does not ask for it, the request carries it
  assert.equal(await page.locator(`${P} fieldset.convert input[name=shape]`).count(), 0);
  const posted = page.waitForRequest((r) => r.url().endsWith('/v1/runs') && r.method() === 'POST');
  await runConvert();
  assert.deepEqual(JSON.parse((await posted).postData()).params.shape, [256, 128]);
  await page.waitForSelector(`${P} tr.convert-case`);
  const row = page.locator(`${P} tr.convert-case`);
  assert.equal(await row.count(), 1);
  assert.match(await row.locator('td.ok').textContent(), /yes/);
  // a transpose: the contiguous dimension changes, so the plan stages through a shared tile
  assert.match(await row.locator('td.plan-kind').textContent(), /^tiled · (\d+) B/);
  const vector = Number(/· (\d+) B/.exec(await row.locator('td.plan-kind').textContent())[1]);
  // both sides move whole vectors of consecutive elements: 32 lanes x vector B = vector 32-byte sectors
  assert.equal((await row.locator('td.cv-sectors').textContent()).trim(), `${vector} / ${vector}`);
  const plan = page.locator(`${P} ol.plan`);
  assert.equal(await plan.locator('.plan-src code').textContent(), 'S[(256,128):(128,1)]');
  assert.equal(await plan.locator('.plan-dst code').textContent(), 'S[(256,128):(1,256)]');
  assert.match(await plan.locator('.plan-tile').textContent(), /shared staging tile/);
  // f32: 16 B lanes carry 4 elements, so a thread transposes a 4 x 4 block and stores its columns as 16 B rows
  assert.equal(await plan.locator('.plan-block').textContent(), '4×4 register block per thread');
  assert.match(
    await plan.locator('.plan-smem').textContent(),
    /^shared store \d+ wavefronts \(ideal \d+\) of 16 B lanes, shared load \d+ \(ideal \d+\) of 16 B lanes$/,
  );
  await page.locator(`${P} fieldset.convert`).screenshot({ path: join(artifacts, 'panel-convert-form.png') });
});

test("convert: a bad permutation is caught in the form; a bad layout is the agent's error, at its field", async () => {
  await page.click(`${P} fieldset.convert input[value=perm]`);
  await page.fill(`${P} fieldset.convert input[name=shape]`, '8, 4');
  await page.fill(`${P} fieldset.convert input[name=perm]`, '1, 1');
  await page.click(`${P} .convert-button`);
  assert.match(
    await page.locator(`${P} .convert-error`).textContent(),
    /perm: not a permutation of 0\.\.1 \(0 is missing\)/,
  );
  assert.equal(await page.locator(`${P} fieldset.convert input[name=perm]`).getAttribute('aria-invalid'), 'true');
  await page.click(`${P} fieldset.convert input[value=layouts]`);
  await page.fill(`${P} fieldset.convert input[name=src]`, 'S[(8,4):(4,1)');
  await page.fill(`${P} fieldset.convert input[name=dst]`, 'S[(8,4):(1,8)]');
  await page.click(`${P} .convert-button`);
  await page.waitForSelector(`${P} .convert-error`);
  const msg = await page.locator(`${P} .convert-error`).textContent();
  assert.match(msg, /^The agent refused the parameters: /);
  assert.match(msg, /params\.src: expected '\]' to close the layout term/);
  assert.equal(await page.locator(`${P} fieldset.convert input[name=src]`).getAttribute('aria-invalid'), 'true');
  // the browser logs the refused request (422) as a console error: expected here
  consoleErrors.length = 0;
});

test('the permutation suite beside the peers: 74 cases, ours and three peers each, copy_/peer time', async () => {
  await page.click(`${P} fieldset.convert input[value=suite]`);
  // 74 cases of at most 1 MiB each on the CPU backend: minutes on a loaded 2-core machine
  await runConvert(300_000);
  await page.waitForSelector(`${P} figure[data-plot=convert-suite] svg`);
  // 8 permutations x 3 dtypes and 50 random permutations, every one also in the peers' file: 74 x (ours + 3 peers)
  await inPanel(
    () =>
      document.querySelector('ls-bench-panel').shadowRoot.querySelectorAll('figure[data-plot=convert-suite] circle')
        .length === 296,
  );
  const peers = JSON.parse(readFileSync(join(root, 'docs', 'results', 'h200-convert-peers.json'), 'utf8'));
  const t = peers.cases.find((c) => c.case === 'transpose_8192x8192_f32');
  const eager = (t.copy_ / t.eager).toFixed(2);
  const titles = await page.locator(`${P} figure[data-plot=convert-suite] circle title`).allTextContents();
  assert.ok(titles.includes(`transpose_8192x8192_f32 · PyTorch eager: ${eager}`), titles.slice(0, 8).join('\n'));
  // the newest run of a benchmark from one agent is shown: the 74 suite cases
  assert.equal(await page.locator(`${P} tr.convert-case`).count(), 74);
  await page
    .locator(`${P} figure[data-plot=convert-suite]`)
    .screenshot({ path: join(artifacts, 'panel-convert-suite-1440.png') });
});

test('the runs list follows the agent\'s pages: "load more" until every run is listed', async () => {
  // the two convert runs (the refused request never became a run), one per page
  const all = (await agent.fetch('/v1/runs').then((r) => r.json())).runs;
  assert.equal(all.length, 2);
  await page.evaluate(() => {
    const p = document.querySelector('ls-bench-panel');
    p.runsPageSize = 1;
  });
  await page.click(`${P} .agent button >> text=Refresh`);
  await page.locator(`${P} details.history summary`).click();
  await inPanel(
    () => document.querySelector('ls-bench-panel').shadowRoot.querySelectorAll('tr.history-run').length === 1,
  );
  await page.locator(`${P} button.load-more`).click();
  await inPanel(
    (n) => document.querySelector('ls-bench-panel').shadowRoot.querySelectorAll('tr.history-run').length === n,
    all.length,
  );
  assert.equal(await page.locator(`${P} button.load-more`).count(), 0);
  const ids = await page.locator(`${P} tr.history-run td.mono`).allTextContents();
  assert.deepEqual(
    ids,
    all.map((r) => r.id),
  );
});

test('a profiled convert run: each predicted access against its ncu counter, a miss shown with its size', async () => {
  // the first convert run's document, given the profile block a CUDA agent writes (numbers chosen here: the
  // load as predicted, the store 1.5 x the prediction, the staging tile's load as predicted)
  const runs = (await agent.fetch('/v1/runs').then((r) => r.json())).runs;
  const doc = (await agent.fetch(`/v1/runs/${runs[0].id}`).then((r) => r.json())).result;
  const st = doc.benchmarks[0].states[0];
  const [load, store] = st.predicted.global;
  const smemLoad = st.predicted.shared.find((a) => /load/.test(a.access));
  st.profile = {
    available: true,
    kernel: 'convert',
    global_load_sectors_per_request: load.sectors_per_request,
    global_store_sectors_per_request: store.sectors_per_request * 1.5,
    shared_load_wavefronts_per_instruction: smemLoad.wavefronts,
    shared_store_wavefronts_per_instruction: null,
    shared_load_bank_conflicts: 0,
    shared_store_bank_conflicts: null,
    metrics: {},
  };
  const dir = mkdtempSync(join(tmpdir(), 'ls-web-convert-'));
  writeFileSync(join(dir, 'convert-run1.json'), JSON.stringify(doc));
  await page.setInputFiles(`${P} input.file`, join(dir, 'convert-run1.json'));
  const cell = page.locator(`${P} tr.convert-case`).filter({ hasText: 'convert-run1' }).locator('td.vs-ncu');
  await cell.waitFor();
  const text = await cell.textContent();
  assert.match(text, new RegExp(`ld ${load.sectors_per_request} = ${load.sectors_per_request}\\.00 ✓`));
  assert.match(
    text,
    new RegExp(`st ${store.sectors_per_request} ≠ ${(store.sectors_per_request * 1.5).toFixed(2)} \\(\\+50%\\)`),
  );
  assert.match(text, new RegExp(`smem ld ${smemLoad.wavefronts} = ${smemLoad.wavefronts}\\.00 ✓`));
  assert.match(await cell.getAttribute('class'), /warn/);
});

test('中文: after the switch no English-only text is left in the panel', async () => {
  // every part of the panel on screen: the H200 reference runs' plots and tables, an access opened
  await page.click(`${P} button.open-reference`);
  await inPanel(() =>
    /h200-profile-aos_soa/.test(
      document.querySelector('ls-bench-panel').shadowRoot.querySelector('.chips').textContent,
    ),
  );
  await page.click(`${P} tr.prediction .open-figure >> nth=0`);
  await page.click('#lang-toggle');
  await inPanel(() => /布局转换/.test(document.querySelector('ls-bench-panel').shadowRoot.textContent));
  await page.locator(`${P} details.history`).evaluate((d) => (d.open = true));
  // every text node and label-like attribute the user sees; allowed: code, numbers, units, identifiers that are
  // the same in both languages (benchmark and parameter names, layouts, file names, series names); the agent's
  // descriptions of its accesses are translated where the panel knows the sentence, and only a sentence it does
  // not know stays as the agent wrote it, marked lang="en"; its enum values (options) stay as they are
  const leftovers = await page.evaluate(() => {
    const root = document.querySelector('ls-bench-panel').shadowRoot;
    const out = [];
    const walker = document.createTreeWalker(root, 4 /* NodeFilter.SHOW_TEXT */);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || el.closest('code, .mono, svg, option, select, [lang="en"]')) continue;
      const s = n.textContent.trim();
      if (s) out.push(s);
    }
    for (const el of root.querySelectorAll('[aria-label], [placeholder], [title]'))
      for (const a of ['aria-label']) if (el.getAttribute(a)) out.push(el.getAttribute(a));
    return out;
  });
  // English words of three letters or more, outside names written the same in both languages; a token with a
  // digit in it is a name (a case, a file, a device model)
  const allowed =
    /^(staging|out|TMA|agent|agents|token|url|json|csv|svg|png|sectors?|wavefronts?|copy|float4|ncu|profile|benchmark|kernel|kernels|lane|tile|swizzle|layoutscope|dtype|shape|perm|layouts|variants|touch_fields|dim|sampling|AoS|SoA|soa|aos|fp32|GB|GiB|MiB|TB|cpu|sm|SMs|docs|results|json|DRAM|Nsight|Compute|NVIDIA|H200|convert|sector|bf16|f32|u8|f16|f64|f8|copy_|PyTorch|eager|torch|compile|CuPy|layoutscope-agent|epyc|amd|processor|core|http|https|GPU|CPU|aos_soa|aos_vec|soa_vec|peers|float4|warp|transpose|naive|tiled|pad|tile64_pad|tile64_swizzle|LSU|mesh|NCCL|nccl-tests)$/i;
  // the machine's own name (the CPU backend reports its processor's model) is a name, the same in both languages
  const deviceNames = (await agent.fetch('/v1/devices').then((r) => r.json())).devices.map((d) => d.name);
  const withoutDevices = (s) => deviceNames.reduce((t, name) => t.split(name).join(' '), s);
  const bad = leftovers.filter((s) =>
    (
      withoutDevices(s)
        .replace(/[\w./-]*\d[\w./-]*/g, ' ')
        .match(/[A-Za-z][A-Za-z_-]{2,}/g) ?? []
    ).some((w) => !allowed.test(w)),
  );
  assert.deepEqual(bad, []);
  // the reference runs' accesses are all sentences the panel knows: none is left in English
  assert.equal(await page.locator(`${P} [lang="en"].agent-words`).count(), 0);
  assert.match(await page.locator(`${P} .access-text`).first().textContent(), /加载|存储/);
  // every parameter's tooltip of every benchmark of the agent is in Chinese (the agent's descriptions, translated)
  const english = [];
  for (const b of await page.locator(`${P} fieldset.run button[class^="bench-"]`).all()) {
    await b.click();
    const titles = await page
      .locator(`${P} fieldset.run .params [title]`)
      .evaluateAll((els) => els.map((e) => e.title));
    english.push(...titles.filter((t) => t && !/[\u4e00-\u9fff]/.test(t)));
  }
  assert.deepEqual(english, []);
  await page.locator(P).screenshot({ path: join(artifacts, 'panel-zh-1440.png') });
  await page.click('#lang-toggle');
});

test('390 px: the convert form, plan and suite plot fit; axe finds nothing serious with the plots drawn', async () => {
  await page.setViewportSize({ width: 390, height: 900 });
  await page.waitForTimeout(300);
  const [overflow, wide] = await page.evaluate(() => {
    const out = [];
    const walk = (root) => {
      for (const el of root.querySelectorAll('*')) {
        if (el.getBoundingClientRect().right > window.innerWidth + 0.5 && !el.closest('.scroll'))
          out.push(`${el.tagName.toLowerCase()}.${el.className?.baseVal ?? el.className}`);
        if (el.shadowRoot) walk(el.shadowRoot);
      }
    };
    walk(document);
    return [document.documentElement.scrollWidth - window.innerWidth, out.slice(0, 10)];
  });
  assert.ok(overflow <= 0, `the page is ${overflow} px wider than the viewport: ${wide.join(', ')}`);
  // the H200 reference runs' plots (opened above): no two labels of one chart overlap (facet names, variant names
  // under the bars, axis labels), measured as the boxes the browser gives each text
  const overlaps = await page.evaluate(() => {
    const out = [];
    const root = document.querySelector('ls-bench-panel').shadowRoot;
    for (const fig of root.querySelectorAll('figure[data-plot]')) {
      const boxes = [...fig.querySelectorAll('svg text')]
        .filter((t) => t.textContent.trim())
        .map((t) => ({ s: t.textContent.trim(), b: t.getBoundingClientRect() }));
      for (let i = 0; i < boxes.length; ++i)
        for (let j = i + 1; j < boxes.length; ++j) {
          const [a, c] = [boxes[i].b, boxes[j].b];
          if (a.left < c.right - 0.5 && c.left < a.right - 0.5 && a.top < c.bottom - 0.5 && c.top < a.bottom - 0.5)
            out.push(`${fig.dataset.plot}: "${boxes[i].s}" / "${boxes[j].s}"`);
        }
    }
    return out;
  });
  const plots = await page.locator(`${P} figure[data-plot^="aos-"], ${P} figure[data-plot^="transpose-"]`).count();
  assert.ok(plots >= 4, `AoS/SoA and transpose plots drawn: ${plots}`);
  assert.deepEqual(overlaps, []);
  for (const id of ['aos-bandwidth', 'aos-speedup', 'transpose-bandwidth', 'transpose-fraction'])
    await page.locator(`${P} figure[data-plot=${id}]`).screenshot({ path: join(artifacts, `plot-${id}-390.png`) });
  await page.locator(`${P} fieldset.convert`).screenshot({ path: join(artifacts, 'panel-convert-form-390.png') });
  await page.locator(`${P} ol.plan`).screenshot({ path: join(artifacts, 'panel-convert-plan-390.png') });
  await page
    .locator(`${P} figure[data-plot=convert-suite]`)
    .screenshot({ path: join(artifacts, 'panel-convert-suite-390.png') });
  const axe = await new AxeBuilder({ page }).include('ls-bench-panel').analyze();
  const bad = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map((v) => `${v.id}: ${v.nodes.length} nodes`),
    [],
  );
  await page.setViewportSize({ width: 1440, height: 1000 });
});

test('an AoS kernel that loads and stores with one pattern: both ncu counters checked against that access', async () => {
  await page.setViewportSize({ width: 1440, height: 1000 });
  const post = await agent
    .fetch('/v1/runs', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        benchmark: 'aos_soa',
        params: { layouts: ['aos'], touch_fields: [1], n: 4096, repetitions: 3, warmup: 0 },
      }),
    })
    .then((r) => r.json());
  let record;
  for (let i = 0; i < 100 && record?.status !== 'succeeded'; ++i) {
    await new Promise((r) => setTimeout(r, 200));
    record = await agent.fetch(`/v1/runs/${post.id}`).then((r) => r.json());
  }
  const doc = record.result;
  const st = doc.benchmarks[0].states[0];
  // one declared access, LDG.32, lanes 32 B apart: 32 sectors, for the loads and the stores alike
  assert.equal(st.predicted.global.length, 1);
  assert.equal(st.predicted.global[0].instr, 'LDG.32');
  st.profile = {
    available: true,
    kernel: 'aos',
    global_load_sectors_per_request: 32,
    global_store_sectors_per_request: 32,
    shared_load_wavefronts_per_instruction: null,
    shared_store_wavefronts_per_instruction: null,
    metrics: {},
  };
  const dir = mkdtempSync(join(tmpdir(), 'ls-web-aos-'));
  writeFileSync(join(dir, 'aos-run1.json'), JSON.stringify(doc));
  await page.setInputFiles(`${P} input.file`, join(dir, 'aos-run1.json'));
  const cell = page.locator(`${P} tr.prediction[data-source^="aos-run1"] td.vs-ncu`);
  await cell.waitFor();
  assert.match(await cell.textContent(), /ld 32 = 32\.00 ✓\s*st 32 = 32\.00 ✓/);
});

test('no console errors while converting, paging and switching language', () => {
  assert.deepEqual(consoleErrors, []);
});
