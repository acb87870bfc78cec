// The page: registers every figure (through layoutscope.js, the embedding entry), loads the benchmark panel on
// demand, and wires the language and theme toggles (which the figures follow
// through the document's data-ls-lang / data-theme and the ls-settings event). Both are kept in the URL
// fragment (lang=zh, theme=dark) so a shared link opens the same view.
import './embed.js';
import { SETTINGS_EVENT } from './figure.js';
import { readFragment, writeKey } from './state.js';

const ZH: Record<string, string> = {
  subtitle: '数据布局及其记号 —— 由 C++ 布局引擎（WebAssembly）驱动的交互图',
  'nav.tile': '1 Tile 布局',
  'nav.fragment': '2 Register fragment',
  'nav.tmem': '3 TMEM',
  'nav.sf': '4 Scale factors',
  'nav.mesh': '5 GPU mesh',
  'nav.banks': '6 Bank conflict',
  'nav.atom': '7 Swizzle atom',
  'nav.play': '8 Playground',
  'nav.bench': '9 Benchmarks',
  'h.bench': '9. Benchmarks：实测与预测',
  'p.bench': '连接 layoutscope-agent（打开它打印的 URL，或粘贴到下方），运行文档中的 AoS/SoA 扫描与转置，并把 GPU 的实测结果与布局引擎的预测对照。也可以拖入结果 JSON 文件离线查看。',
  'h.tile': '1. Tile 布局：8×8 划分为 2×4 tiles',
  'p.tile': '点击任意 cell：显示它所在的 tile、unflatten 过程和 f_D(x)，两个网格联动高亮。',
  'h.fragment': '2. Register fragment（m8n8）',
  'p.fragment': '点击 cell 43 = (5, 3)：lane 21，slot 1。点击 lane 编号：该 lane 持有的元素。',
  'h.tmem': '3. TMEM：lanes × columns',
  'p.tmem': '完整绘制 128 lanes × 512 columns。点击 TMEM cell：显示位于该处的逻辑元素。',
  'h.sf': '4. TMEM 中的 Scale factors（.warpx4）',
  'p.sf': '点击 SFA[64, 2]：四个副本 (0,2,2) (32,2,2) (64,2,2) (96,2,2)，即 (TLane, TCol, byte)。',
  'h.mesh': '5. GPU mesh：分片、副本与偏移',
  'p.mesh': '切换模式并点击 cell：显示持有它的设备和局部偏移。',
  'h.banks': '6. Bank conflict 与 XOR swizzle',
  'p.banks': '点击列（或行）标题：由引擎计算 cycles，逐步查看 wavefronts。',
  'h.atom': '7. Swizzle atom',
  'p.atom': '选择模式和数据类型；悬停或选择单元格，查看它被重映射到的位置。',
  'h.play': '8. Playground',
  'p.play': '输入任意 layout 和逻辑 shape。',
  footer: '本页所有数字均由编译为 WebAssembly 的 layoutscope 引擎计算。',
};
const EN = new Map<Element, string>();

function applySettings() {
  const params = readFragment();
  const lang = params.get('lang') === 'zh' ? 'zh' : 'en';
  const theme = params.get('theme') === 'dark' ? 'dark' : 'light';
  const root = document.documentElement;
  root.lang = lang === 'zh' ? 'zh-CN' : 'en';
  root.dataset.lsLang = lang;
  root.dataset.theme = theme;
  for (const el of document.querySelectorAll('[data-i18n]')) {
    if (!EN.has(el)) EN.set(el, el.textContent ?? '');
    const key = el.getAttribute('data-i18n')!;
    el.textContent = lang === 'zh' ? (ZH[key] ?? EN.get(el)!) : EN.get(el)!;
  }
  const langBtn = document.getElementById('lang-toggle')!;
  langBtn.textContent = lang === 'zh' ? 'English' : '中文';
  langBtn.setAttribute('aria-pressed', String(lang === 'zh'));
  langBtn.setAttribute('lang', lang === 'zh' ? 'en' : 'zh-CN');
  const themeBtn = document.getElementById('theme-toggle')!;
  themeBtn.textContent = theme === 'dark' ? (lang === 'zh' ? '浅色' : 'Light') : lang === 'zh' ? '深色' : 'Dark';
  themeBtn.setAttribute('aria-pressed', String(theme === 'dark'));
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

// The benchmark panel (Observable Plot, the schema validator) is a separate chunk: the figures do not wait for it.
const panelHost = document.getElementById('bench-panel');
if (panelHost) {
  const load = () => import('./bench/panel.js').catch((err) => {
    panelHost.textContent = `The benchmark panel failed to load: ${err}`;
  });
  if (/(^|[#&])token=/.test(location.hash) || readFragment().get('fig') === 'bench') load();
  else {
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) {
        io.disconnect();
        load();
      }
    }, { rootMargin: '600px' });
    io.observe(panelHost);
  }
}
