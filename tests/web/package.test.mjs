// The npm package of the elements, as a docs site uses it: `npm pack` of web/dist-pkg (scripts/pack-elements.mjs),
// the tarball installed into a fresh Vite project (offline: the package has no dependencies), a TypeScript file
// that uses the elements' types checked with tsc, the project built by Vite and opened in Chromium: the fragment
// figure answers cell 43 -> lane 21, slot 1 (S[(8,4,2):(4@laneid,1@laneid,1@reg)]: unflatten(43; 8,4,2) = (5,1,1),
// lane 5*4+1 = 21, slot 1), and a bad layout set from script is an inline error. The engine's worker is served as
// JavaScript and loads the engine itself (not index.html, which a missing file falls through to on many servers);
// in Node the package imports without a DOM; the declarations cover every export, every attribute the
// custom-elements.json lists, and React's JSX.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { launch, root } from './browser.mjs';
import { start } from './serve.mjs';

const web = join(root, 'web');
// the elements docs/embedding.md documents, one table row each: what the package must define, declare and list
const DOCUMENTED = [
  ...readFileSync(join(root, 'docs', 'embedding.md'), 'utf8').matchAll(/^\| `(ls-[a-z0-9-]+)` \|/gm),
].map((m) => m[1]);
const artifacts = join(root, 'build', 'artifacts');
let dir, tarball, server, browser;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'ls-pkg-'));
});
after(async () => {
  await browser?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('npm pack: the tarball holds the module, the engine and the types', () => {
  execFileSync('node', [join(web, 'scripts', 'pack-elements.mjs')], { stdio: 'pipe' });
  const out = execFileSync('npm', ['pack', join(web, 'dist-pkg'), '--pack-destination', dir, '--json'], {
    encoding: 'utf8',
  });
  const [info] = JSON.parse(out);
  tarball = join(dir, info.filename);
  const files = info.files.map((f) => f.path).sort();
  for (const f of [
    'layoutscope.js',
    'layoutscope.d.ts',
    'engine-worker.js',
    'layoutscope.node.js',
    'react.d.ts',
    'custom-elements.json',
    'LICENSE',
    'types/engine.d.ts',
  ])
    assert.ok(files.includes(f), `${f} in ${files.join(', ')}`);
  assert.ok(
    files.some((f) => /^assets\/layoutscope-.*\.wasm$/.test(f)),
    files.join(', '),
  );
  assert.equal(info.name, 'layoutscope-elements');
  // the repository's licence, by its SPDX name, and its text in the package
  const licence = readFileSync(join(root, 'LICENSE'), 'utf8');
  assert.match(licence, /^MIT License\n/);
  const pkg = JSON.parse(readFileSync(join(web, 'dist-pkg', 'package.json'), 'utf8'));
  assert.equal(pkg.license, 'MIT');
  assert.equal(readFileSync(join(web, 'dist-pkg', 'LICENSE'), 'utf8'), licence);
});

test('a fresh Vite project installs the tarball, type-checks against it and builds', () => {
  const app = join(dir, 'site');
  mkdirSync(join(app, 'src'), { recursive: true });
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'docs-site', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error', tarball], {
    cwd: app,
    stdio: 'pipe',
  });
  writeFileSync(
    join(app, 'index.html'),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>docs</title></head><body>
<article><h1>Fragments</h1><ls-fragment id="frag" layout="S[(8,4,2):(4@laneid,1@laneid,1@reg)]" shape="8,8" selection="L:43"></ls-fragment>
<ls-playground id="bad"></ls-playground>
<ls-advisor id="adv"></ls-advisor></article>
<script type="module" src="/src/main.ts"></script></body></html>`,
  );
  writeFileSync(
    join(app, 'src', 'main.ts'),
    `import { ELEMENTS, LsFigure, engine, loadEngine, type LsFragmentElement } from 'layoutscope-elements';
const frag: LsFragmentElement = document.querySelector('ls-fragment')!;
const names: readonly string[] = ELEMENTS;
document.body.dataset.elements = String(names.length);
document.body.dataset.figure = String(frag instanceof LsFigure);
frag.dataset.layout = frag.layout;
document.querySelector('ls-playground')!.layout = 'S[(8,4):(4,1]';
const e = await engine();
const r = e.forward('S[(8,4,2):(4@laneid,1@laneid,1@reg)]', [8, 8], 43);
if (r.ok) document.body.dataset.lane = String(r.positions[0][r.axes.indexOf('laneid')]);
document.body.dataset.module = String((await loadEngine()) === e.m);
`,
  );
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'ESNext',
        moduleResolution: 'bundler',
        lib: ['ES2022', 'DOM'],
        strict: true,
        noEmit: true,
        types: [],
      },
      include: ['src/*.ts'],
    }),
  );
  // the site's own tools: TypeScript and Vite from web/node_modules (a docs site has its own)
  const tsc = spawnSync('node', [join(web, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', app], {
    encoding: 'utf8',
  });
  assert.equal(tsc.status, 0, tsc.stdout);
  execFileSync('node', [join(web, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'error'], {
    cwd: app,
    stdio: 'pipe',
  });
  const assets = readdirSync(join(app, 'dist', 'assets'));
  assert.ok(
    assets.some((f) => f.endsWith('.wasm')),
    `the engine is copied with the site: ${assets.join(', ')}`,
  );
  assert.ok(existsSync(join(app, 'dist', 'index.html')));
  // the site's build bundled the worker as a script of its own, with its own reference to the engine
  const worker = assets.find((f) => /^engine-worker-.*\.js$/.test(f));
  assert.ok(worker, `a worker script in the site's assets: ${assets.join(', ')}`);
  const wasm = assets.filter((f) => f.endsWith('.wasm'));
  assert.ok(
    wasm.some((f) => readFileSync(join(app, 'dist', 'assets', worker), 'utf8').includes(f)),
    `${worker} loads one of ${wasm.join(', ')}`,
  );
});

test('every export of the module and every attribute of custom-elements.json is declared; JSX types for React', () => {
  const app = join(dir, 'site');
  const pkg = join(app, 'node_modules', 'layoutscope-elements');
  // the exports, read from the module itself (its server build, the same sources)
  const mod = execFileSync(
    'node',
    ['--input-type=module', '-e', "console.log(JSON.stringify(Object.keys(await import('layoutscope-elements'))))"],
    { cwd: app, encoding: 'utf8' },
  );
  const exported = JSON.parse(mod);
  for (const name of ['ELEMENTS', 'SETTINGS_EVENT', 'LsFigure', 'engine', 'loadEngine'])
    assert.ok(exported.includes(name), `${name} exported: ${exported}`);
  const manifest = JSON.parse(readFileSync(join(pkg, 'custom-elements.json'), 'utf8'));
  const elements = manifest.modules.flatMap((m) => m.declarations).filter((d) => d.tagName);
  assert.deepEqual(elements.map((d) => d.tagName).sort(), [...DOCUMENTED].sort());
  const fragment = elements.find((d) => d.tagName === 'ls-fragment');
  assert.deepEqual(fragment.attributes.map((a) => a.name).sort(), [
    'lang',
    'layout',
    'selection',
    'shape',
    'state-key',
    'theme',
  ]);
  // a TypeScript file that names each export, each attribute (LsElementAttributes) and each attribute's property
  // (the element's interface): tsc fails on any one the declarations lack
  const lines = [`import { ${exported.join(', ')} } from 'layoutscope-elements';`];
  lines.push(`import type { LsElementAttributes } from 'layoutscope-elements';`);
  lines.push(`export const all = [${exported.join(', ')}];`);
  elements.forEach((d, i) => {
    for (const a of d.attributes) {
      lines.push(`export const a${i}_${a.fieldName}: keyof LsElementAttributes['${d.tagName}'] = '${a.name}';`);
      lines.push(`export const p${i}_${a.fieldName}: keyof HTMLElementTagNameMap['${d.tagName}'] = '${a.fieldName}';`);
    }
  });
  writeFileSync(join(app, 'src', 'declared.ts'), lines.join('\n') + '\n');
  // React's JSX: a figure with its attributes type-checks; a value an attribute cannot take does not
  const react = join(web, 'node_modules', '@types', 'react');
  const tsx = (name, body) => {
    mkdirSync(join(app, name), { recursive: true });
    writeFileSync(
      join(app, name, 'fig.tsx'),
      `import type {} from 'layoutscope-elements/react';\nexport const Fig = () => (${body});\n`,
    );
    writeFileSync(
      join(app, name, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'bundler',
          lib: ['ES2022', 'DOM'],
          jsx: 'react-jsx',
          strict: true,
          noEmit: true,
          types: [],
          paths: { react: [react], 'react/*': [`${react}/*`] },
        },
        include: ['fig.tsx', '../src/declared.ts'],
      }),
    );
    try {
      execFileSync('node', [join(web, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(app, name)], {
        encoding: 'utf8',
      });
      return '';
    } catch (e) {
      return e.stdout;
    }
  };
  assert.equal(
    tsx(
      'react-ok',
      `<div><ls-fragment layout="S[(8,4,2):(4@laneid,1@laneid,1@reg)]" shape="8,8" selection="L:43" className="fig" />` +
        `<ls-mesh mode="replica" reshard="sharded" /><ls-playground layout="S[(8,8):(8,1)]" row-width="8" /></div>`,
    ),
    '',
  );
  assert.match(tsx('react-bad', `<ls-mesh mode="diagonal" />`), /fig\.tsx.*"diagonal"/s);
});

test('in Node (a server-side render) the module imports and defines the elements without a DOM', () => {
  const app = join(dir, 'site');
  const out = execFileSync(
    'node',
    [
      '--input-type=module',
      '-e',
      `const m = await import('layoutscope-elements');
       console.log(JSON.stringify({ n: m.ELEMENTS.length, figure: typeof m.LsFigure,
         defined: m.ELEMENTS.filter((t) => customElements.get(t)).length,
         fragment: customElements.get('ls-fragment').prototype instanceof m.LsFigure }));`,
    ],
    { cwd: app, encoding: 'utf8' },
  );
  const n = DOCUMENTED.length;
  assert.deepEqual(JSON.parse(out), { n, figure: 'function', defined: n, fragment: true });
  // a server bundle of the site (what VitePress and Docusaurus build) that imports the package, run in Node
  writeFileSync(
    join(app, 'src', 'server.js'),
    `import { ELEMENTS } from 'layoutscope-elements';\nexport const render = () => ELEMENTS.map((t) => '<' + t + '></' + t + '>').join('');\n`,
  );
  execFileSync(
    'node',
    [
      join(web, 'node_modules', 'vite', 'bin', 'vite.js'),
      'build',
      '--ssr',
      'src/server.js',
      '--outDir',
      'dist-server',
      '--logLevel',
      'error',
    ],
    { cwd: app, stdio: 'pipe' },
  );
  const bundled = readdirSync(join(app, 'dist-server')).find((f) => f.endsWith('.js'));
  const html = execFileSync(
    'node',
    [
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(pathToFileURL(join(app, 'dist-server', bundled)).href)}); console.log(m.render());`,
    ],
    { encoding: 'utf8' },
  );
  assert.match(html, /^<ls-tile-layout><\/ls-tile-layout><ls-fragment>/);
});

test('the built site shows the figures: cell 43 -> lane 21, slot 1; a bad layout from script is an inline error', async () => {
  server = await start(join(dir, 'site', 'dist'));
  browser = await launch();
  const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  // the bare site has no favicon: its 404 is the browser's, not the package's
  page.on(
    'response',
    (r) => r.status() >= 400 && !r.url().endsWith('/favicon.ico') && errors.push(`HTTP ${r.status()}: ${r.url()}`),
  );
  page.on('console', (m) => m.type() === 'error' && !/Failed to load resource/.test(m.text()) && errors.push(m.text()));
  const scripts = [];
  page.on('response', (r) => /engine-worker/.test(r.url()) && scripts.push([r.status(), r.headers()['content-type']]));
  const started = page.waitForEvent('worker', { timeout: 20_000 });
  await page.goto(server.url);
  // the advisor ranks its candidates in the worker: the worker starts from a JavaScript file and loads the engine
  const worker = await started;
  assert.match(worker.url(), /\/assets\/engine-worker-[^/]*\.js$/);
  await page.locator('ls-advisor:not([aria-busy]) .view').waitFor({ timeout: 30_000 });
  assert.deepEqual(scripts, [[200, 'text/javascript; charset=utf-8']]);
  const fetched = await worker.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
  assert.ok(
    fetched.some((u) => /\/assets\/[^/]*\.wasm$/.test(u)),
    `the worker fetched the engine: ${fetched}`,
  );
  await page.locator('ls-fragment .view').waitFor({ timeout: 20_000 });
  assert.match(await page.locator('ls-fragment .live').textContent(), /cell 43 \(5, 3\): lane 21, slot 1/);
  assert.equal(await page.evaluate(() => document.body.dataset.elements), String(DOCUMENTED.length));
  // engine() and loadEngine() from the package: the forward map of cell 43 (lane 21, as above), one module
  await page.waitForFunction(() => document.body.dataset.module !== undefined, null, { timeout: 20_000 });
  assert.deepEqual(await page.evaluate(() => ({ ...document.body.dataset })), {
    elements: String(DOCUMENTED.length),
    figure: 'true',
    lane: '21',
    module: 'true',
  });
  const alert = page.locator('ls-playground .input-error');
  await alert.waitFor({ timeout: 20_000 });
  assert.match(await alert.textContent(), /column 13/);
  await page.screenshot({ path: join(artifacts, 'package-site.png') });
  assert.deepEqual(errors, []);
});
