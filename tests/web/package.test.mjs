// The npm package of the elements, as a docs site uses it: `npm pack` of web/dist-pkg (scripts/pack-elements.mjs),
// the tarball installed into a fresh Vite project (offline: the package has no dependencies), a TypeScript file
// that uses the elements' types checked with tsc, the project built by Vite and opened in Chromium: the fragment
// figure answers cell 43 -> lane 21, slot 1 (S[(8,4,2):(4@laneid,1@laneid,1@reg)]: unflatten(43; 8,4,2) = (5,1,1),
// lane 5*4+1 = 21, slot 1), and a bad layout set from script is an inline error.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { launch, root } from './browser.mjs';
import { start } from './serve.mjs';

const web = join(root, 'web');
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
  assert.ok(files.includes('layoutscope.js'));
  assert.ok(files.includes('layoutscope.d.ts'));
  assert.ok(
    files.some((f) => /^assets\/layoutscope-.*\.wasm$/.test(f)),
    files.join(', '),
  );
  assert.equal(info.name, 'layoutscope-elements');
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
<ls-playground id="bad"></ls-playground></article>
<script type="module" src="/src/main.ts"></script></body></html>`,
  );
  writeFileSync(
    join(app, 'src', 'main.ts'),
    `import { ELEMENTS, type LsFragmentElement } from 'layoutscope-elements';
const frag: LsFragmentElement = document.querySelector('ls-fragment')!;
const names: readonly string[] = ELEMENTS;
document.body.dataset.elements = String(names.length);
frag.dataset.layout = frag.layout;
document.querySelector('ls-playground')!.layout = 'S[(8,4):(4,1]';
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
      include: ['src'],
    }),
  );
  // the site's own tools: TypeScript and Vite from web/node_modules (a docs site has its own)
  execFileSync('node', [join(web, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', app], { stdio: 'pipe' });
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
  await page.goto(server.url);
  await page.locator('ls-fragment .view').waitFor({ timeout: 20_000 });
  assert.match(await page.locator('ls-fragment .live').textContent(), /cell 43 \(5, 3\): lane 21, slot 1/);
  assert.equal(await page.evaluate(() => document.body.dataset.elements), '9');
  const alert = page.locator('ls-playground .input-error');
  await alert.waitFor({ timeout: 20_000 });
  assert.match(await alert.textContent(), /column 13/);
  await page.screenshot({ path: join(artifacts, 'package-site.png') });
  assert.deepEqual(errors, []);
});
