// The page's entry, kept small so that it runs as soon as the HTML is parsed: it starts loading the engine (fetch,
// compile, instantiate) while the first figure's code is still arriving, defines that figure, wires the language
// and theme toggles (which the figures follow through the document's data-ls-lang / data-theme and the
// ls-settings event; both are kept in the URL fragment, lang=zh, theme=dark, so a shared link opens the same
// view), and loads every other figure's code, and the benchmark panel's, when it is needed.
import { compileEngine } from './core/engine-compile.js';
import { loadEngine } from './core/engine.js';
import { showFirst } from './core/first-figure.js';
import { SETTINGS_EVENT } from './core/settings-event.js';
import { readFragment, writeKey } from './core/state.js';
import { PAGE_ZH as ZH } from './i18n/page.js';

// a failure is each figure's to show (it asks for the same promise)
loadEngine().catch(() => {});

const EN = new Map<Element, string>();

// Writes only what changes: on load, in English, the page's text is already what the HTML says, and rewriting it
// would make the browser lay out and shape every paragraph a second time before the first figure.
function setText(el: Element, text: string) {
  if (el.textContent !== text) el.textContent = text;
}
function setAttr(el: Element, name: string, value: string) {
  if (el.getAttribute(name) !== value) el.setAttribute(name, value);
}

function applySettings() {
  const params = readFragment();
  const lang = params.get('lang') === 'zh' ? 'zh' : 'en';
  const theme = params.get('theme') === 'dark' ? 'dark' : 'light';
  const root = document.documentElement;
  setAttr(root, 'lang', lang === 'zh' ? 'zh-CN' : 'en');
  setAttr(root, 'data-ls-lang', lang);
  setAttr(root, 'data-theme', theme);
  for (const el of document.querySelectorAll('[data-i18n]')) {
    if (!EN.has(el)) EN.set(el, el.textContent ?? '');
    const key = el.getAttribute('data-i18n')!;
    setText(el, lang === 'zh' ? (ZH[key] ?? EN.get(el)!) : EN.get(el)!);
  }
  const langBtn = document.getElementById('lang-toggle')!;
  setText(langBtn, lang === 'zh' ? 'English' : '中文');
  setAttr(langBtn, 'aria-pressed', String(lang === 'zh'));
  setAttr(langBtn, 'lang', lang === 'zh' ? 'en' : 'zh-CN');
  const themeBtn = document.getElementById('theme-toggle')!;
  setText(themeBtn, theme === 'dark' ? (lang === 'zh' ? '浅色' : 'Light') : lang === 'zh' ? '深色' : 'Dark');
  setAttr(themeBtn, 'aria-pressed', String(theme === 'dark'));
  window.dispatchEvent(new Event(SETTINGS_EVENT));
}

document.getElementById('lang-toggle')!.addEventListener('click', () => {
  writeKey('lang', readFragment().get('lang') === 'zh' ? null : 'zh');
  applySettings();
});
document.getElementById('theme-toggle')!.addEventListener('click', () => {
  writeKey('theme', readFragment().get('theme') === 'dark' ? null : 'dark');
  applySettings();
});
window.addEventListener('hashchange', applySettings);

// Copy link: the address with every figure's state (the fragment); the status line says it was copied.
document.getElementById('copy-link')!.addEventListener('click', async () => {
  const status = document.getElementById('copy-status')!;
  const zh = readFragment().get('lang') === 'zh';
  try {
    await navigator.clipboard.writeText(location.href);
    status.textContent = zh ? '链接已复制' : 'Link copied';
  } catch {
    status.textContent =
      (zh ? '无法访问剪贴板，请复制地址栏：' : 'No clipboard access; copy the address bar: ') + location.href;
  }
});

// Keyboard help on "?" (not while typing in a field).
const help = document.getElementById('help') as HTMLDialogElement;
document.getElementById('help-open')!.addEventListener('click', () => help.showModal());
window.addEventListener('keydown', (e) => {
  if (e.key !== '?' || e.ctrlKey || e.metaKey || e.altKey) return;
  const t = e.composedPath()[0];
  if (
    t instanceof HTMLInputElement ||
    t instanceof HTMLTextAreaElement ||
    t instanceof HTMLSelectElement ||
    (t as HTMLElement)?.isContentEditable
  )
    return;
  e.preventDefault();
  if (!help.open) help.showModal();
});
applySettings();

// Navigation scrolls to a figure without replacing the fragment (which holds every figure's state).
for (const a of document.querySelectorAll<HTMLAnchorElement>('nav a[href^="#sec-"]')) {
  a.addEventListener('click', (e) => {
    e.preventDefault();
    const id = a.getAttribute('href')!.slice(1);
    document.getElementById(id)?.scrollIntoView({ block: 'start' });
    writeKey('fig', id.slice(4));
  });
}
const fig = readFragment().get('fig');
if (fig) document.getElementById(`sec-${fig}`)?.scrollIntoView({ block: 'start' });

// Each figure's code is a chunk of its own (Lit and the engine's glue are shared). The first figure (the one the
// address scrolls to, else the tile layout) is defined at once; the others once it is drawn, as they come near
// the viewport, and the rest one per idle period, so that every figure is there a few seconds after load (a
// docs site loads layoutscope.js instead, which defines them all).
const FIGURES: Record<string, () => Promise<unknown>> = {
  'ls-tile-layout': () => import('./figures/tile-layout.js'),
  'ls-scan': () => import('./scan/scan-view.js'),
  'ls-fragment': () => import('./figures/fragment.js'),
  'ls-tmem': () => import('./figures/tmem.js'),
  'ls-scale-factors': () => import('./figures/scale-factors.js'),
  'ls-tcgen05-atom': () => import('./figures/tcgen05-atom.js'),
  'ls-block-scaled': () => import('./figures/block-scaled.js'),
  'ls-mesh': () => import('./figures/mesh.js'),
  'ls-bank-conflicts': () => import('./figures/bank-conflicts.js'),
  'ls-advisor': () => import('./figures/advisor.js'),
  'ls-swizzle-atom': () => import('./figures/swizzle-atom.js'),
  'ls-playground': () => import('./playground/playground.js'),
};
const defined = new Map<string, Promise<unknown>>();
function define(el: Element): Promise<unknown> {
  const tag = el.localName;
  let p = defined.get(tag);
  if (!p) {
    p = FIGURES[tag]().catch((err) => {
      el.textContent = `This figure failed to load: ${err}`;
    });
    defined.set(tag, p);
  }
  return p;
}
const figures = [...document.querySelectorAll('main [id]')].filter((el) => el.localName in FIGURES);
const scrolledTo = fig ? figures.find((el) => el.closest('section')?.id === `sec-${fig}`) : undefined;
const firstFigure = scrolledTo ?? figures.find((el) => el.localName === 'ls-tile-layout');
let restStarted = false;
function defineTheRest() {
  if (restStarted) return;
  restStarted = true;
  const waiting = new Set(figures);
  const near = new IntersectionObserver(
    (entries) => {
      for (const e of entries)
        if (e.isIntersecting && waiting.delete(e.target)) {
          near.unobserve(e.target);
          void define(e.target);
        }
    },
    { rootMargin: '300px 0px' },
  );
  for (const el of figures) near.observe(el);
  const idle = (f: () => void) =>
    'requestIdleCallback' in window ? requestIdleCallback(f, { timeout: 1000 }) : setTimeout(f, 50);
  const next = () => {
    const el = waiting.values().next().value;
    if (!el) return near.disconnect();
    waiting.delete(el);
    near.unobserve(el);
    void define(el).then(() => idle(next));
  };
  idle(next);
}
if (firstFigure) {
  // the rest waits until the first figure is drawn (its ls-ready, then a frame), or until the engine has failed
  firstFigure.addEventListener('ls-ready', () => requestAnimationFrame(() => setTimeout(defineTheRest, 0)), {
    once: true,
  });
  // at the top of the page, or where the address scrolled to: in view (not so when #fig= names the panel)
  if (!fig || scrolledTo) showFirst(firstFigure);
  compileEngine().catch(defineTheRest);
  // a first figure that never gets its engine (an instantiation that fails) must not keep the others undefined
  setTimeout(defineTheRest, 5000);
  void define(firstFigure);
} else defineTheRest();

// The benchmark panel (Observable Plot, the schema validator) is a separate chunk: the figures do not wait for it.
const panelHost = document.getElementById('bench-panel');
if (panelHost) {
  const load = () =>
    import('./bench/panel.js').catch((err) => {
      panelHost.textContent = `The benchmark panel failed to load: ${err}`;
    });
  if (/(^|[#&])token=/.test(location.hash) || fig === 'bench') load();
  else {
    const io = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) {
          io.disconnect();
          load();
        }
      },
      { rootMargin: '600px' },
    );
    io.observe(panelHost);
  }
}
