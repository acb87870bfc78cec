// Lint rules for the repository's TypeScript (web/) and the Node test suites (tests/). Run by scripts/lint.sh
// with the tools installed in tools/format/.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

// The tools are installed in tools/format/ (not at the root): resolve them from there.
const fromTools = createRequire(new URL('./tools/format/package.json', import.meta.url));
const load = async (name) => (await import(pathToFileURL(fromTools.resolve(name)).href)).default;
const js = await load('@eslint/js');
const tseslint = await load('typescript-eslint');

const nodeGlobals = {
  process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly',
  clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', fetch: 'readonly',
  AbortController: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', performance: 'readonly',
  structuredClone: 'readonly', queueMicrotask: 'readonly', setImmediate: 'readonly', WebAssembly: 'readonly',
  globalThis: 'readonly', document: 'readonly', window: 'readonly', navigator: 'readonly', location: 'readonly',
  getComputedStyle: 'readonly', HTMLElement: 'readonly', customElements: 'readonly', Event: 'readonly',
  AbortSignal: 'readonly', Response: 'readonly', Request: 'readonly', Headers: 'readonly', Blob: 'readonly',
  URLSearchParams: 'readonly', DOMParser: 'readonly', PerformanceObserver: 'readonly', MutationObserver: 'readonly', HTMLCanvasElement: 'readonly', crypto: 'readonly', requestAnimationFrame: 'readonly', __dirname: 'readonly', require: 'readonly', module: 'writable',
};

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'build/**', 'build-*/**', 'web/src/generated/**', 'tools/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended.map((c) => ({ ...c, files: ['web/**/*.ts'] })),
  {
    files: ['web/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-undef': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: { ecmaVersion: 2024, sourceType: 'module', globals: nodeGlobals },
    rules: { 'no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }] },
  },
);
