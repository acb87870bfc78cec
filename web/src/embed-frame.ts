// embed.html: iframe mode for docs sites that cannot load scripts. Everything comes from the fragment:
//   /embed.html#figure=fragment&layout=S[(8,4,2):(4@laneid,1@laneid,1@reg)]&shape=8,8&selection=L:43&theme=dark
// figure: tile | fragment | tmem | sf | mesh | banks | atom | play (or the element's tag name); the other keys
// become the element's attributes. The frame tells its parent its height on every change:
//   parent.postMessage({ type: 'layoutscope:height', id, height }, '*')
// (id is the fragment's id=..., so a page with several frames knows which one), and accepts
//   frame.contentWindow.postMessage({ type: 'layoutscope:theme', theme: 'dark' }, origin)
// so the figure can follow the host page's light/dark switch.
import './embed.js';
import { SETTINGS_EVENT } from './core/figure.js';

const FIGURES: Record<string, string> = {
  tile: 'ls-tile-layout',
  fragment: 'ls-fragment',
  tmem: 'ls-tmem',
  sf: 'ls-scale-factors',
  'scale-factors': 'ls-scale-factors',
  mesh: 'ls-mesh',
  banks: 'ls-bank-conflicts',
  'bank-conflicts': 'ls-bank-conflicts',
  atom: 'ls-swizzle-atom',
  'swizzle-atom': 'ls-swizzle-atom',
  play: 'ls-playground',
  playground: 'ls-playground',
  'tcgen05-atom': 'ls-tcgen05-atom',
  'block-scaled': 'ls-block-scaled',
};
const ATTRIBUTES = [
  'layout',
  'shape',
  'dtype',
  'swizzle',
  'selection',
  'lang',
  'mode',
  'datapath',
  'compare',
  'access',
  'n',
  'num',
  'lane',
  'op',
  'kind',
  'k',
  'state-key',
];

const params = new URLSearchParams(location.hash.replace(/^#/, ''));
const frameId = params.get('id') ?? '';
const main = document.getElementById('frame')!;

function setTheme(theme: string | null) {
  const t =
    theme === 'dark' || theme === 'light'
      ? theme
      : window.matchMedia?.('(prefers-color-scheme: dark)').matches
        ? 'dark'
        : 'light';
  document.documentElement.dataset.theme = t;
  window.dispatchEvent(new Event(SETTINGS_EVENT));
}

const name = params.get('figure') ?? '';
const tag = FIGURES[name] ?? (Object.values(FIGURES).includes(name) ? name : '');
if (!tag) {
  main.innerHTML = '';
  const p = document.createElement('p');
  p.className = 'error';
  p.setAttribute('role', 'alert');
  p.textContent = `embed.html: unknown figure "${name}"; expected one of ${Object.keys(FIGURES)
    .filter((k) => !k.includes('-'))
    .join(', ')} (e.g. #figure=fragment&selection=L:43)`;
  main.append(p);
} else {
  const el = document.createElement(tag);
  for (const a of ATTRIBUTES) {
    const v = params.get(a);
    if (v !== null) el.setAttribute(a, v);
  }
  // the figure's own state keys live under a prefix of their own, so they never clash with ours
  el.setAttribute('state-key', params.get('state-key') ?? 'f');
  main.replaceChildren(el);
}
setTheme(params.get('theme'));
if (params.get('lang') === 'zh') document.documentElement.dataset.lsLang = 'zh';

let last = -1;
function post() {
  const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
  if (height === last || window.parent === window) return;
  last = height;
  window.parent.postMessage({ type: 'layoutscope:height', id: frameId, height }, '*');
}
new ResizeObserver(post).observe(document.documentElement);
window.addEventListener('ls-ready', () => requestAnimationFrame(post));
window.addEventListener('message', (e) => {
  if (e.source !== window.parent || typeof e.data !== 'object' || !e.data) return;
  if (e.data.type === 'layoutscope:theme') setTheme(String(e.data.theme));
});
