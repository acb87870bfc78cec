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

// a failure is each figure's to show (it asks for the same promise)
loadEngine().catch(() => {});

const ZH: Record<string, string> = {
  subtitle: '数据布局及其记号 —— 由 C++ 布局引擎（WebAssembly）驱动的交互图',
  'nav.tile': '1 Tile 布局',
  'nav.fragment': '2 Register fragment',
  'nav.tmem': '3 TMEM',
  'nav.sf': '4 Scale factors',
  'nav.atom5': '4b tcgen05 atoms',
  'nav.bs': '4c Block scaling',
  'nav.mesh': '5 GPU mesh',
  'nav.banks': '6 Bank conflict',
  'nav.advisor': '7 布局顾问',
  'nav.atom': '8 Swizzle atom',
  'nav.play': '9 Playground',
  'nav.bench': '10 Benchmarks',
  'h.scan': '扫描 Triton dump',
  'p.scan':
    '粘贴或拖入 kernel 的 TTGIR：列出其中每个布局，以及每个在布局之间搬运数据的 op 与其 shared memory 代价，代价高的在前。',
  'h.bench': '10. Benchmarks：实测与预测',
  'p.bench':
    '连接 layoutscope-agent（打开它打印的 URL，或粘贴到下方），运行文档中的 AoS/SoA 扫描与转置，并把 GPU 的实测结果与布局引擎的预测对照。也可以拖入结果 JSON 文件离线查看。',
  'h.tile': '1. Tile 布局：8×8 划分为 2×4 tiles',
  'p.tile': '点击任意 cell：显示它所在的 tile、unflatten 过程和 f_D(x)，两个网格联动高亮。',
  'h.fragment': '2. Register fragment（m8n8）',
  'p.fragment': '点击 cell 43 = (5, 3)：lane 21，slot 1。点击 lane 编号：该 lane 持有的元素。',
  'h.tmem': '3. TMEM：lanes × columns',
  'p.tmem': '完整绘制 128 lanes × 512 columns。点击 TMEM cell：显示位于该处的逻辑元素。',
  'h.sf': '4. TMEM 中的 Scale factors（.warpx4）',
  'p.sf': '点击 SFA[64, 2]：四个副本 (0,2,2) (32,2,2) (64,2,2) (96,2,2)，即 (TLane, TCol, byte)。',
  'h.atom5': '4b. tcgen05.ld / tcgen05.st：线程 × 寄存器 对 TMEM',
  'p.atom5':
    '选择 shape、重复次数 .xN 和 TMEM lane：左边每个寄存器、右边每个 TMEM 单元联动高亮；下方显示哪些 warp 可以发出该指令。',
  'c.atom5':
    '读图：左边是一个 warp 的 32 个线程 × 寄存器，格中为它持有的 TMEM (lane, column)；右边是该指令访问的 TMEM lanes × 32-bit columns，格中 “T6.1” 表示线程 6 的寄存器 1。颜色为线程 mod 8。warp w 只能访问 32·(w%4) 起的 32 个 lane。',
  'h.bs': '4c. Block-scaled MMA：一个 scale factor 从 (M, K) 到 TMEM',
  'p.bs':
    '点击任意 scale factor：它在共享内存中的 byte、tcgen05.cp.32x128b.warpx4 后在 TMEM 中的四个副本，以及读取它的 MMA 和 sf_id。',
  'c.bs':
    '读图：左边是逻辑 scale 矩阵（128 行 × K/vec），中间是共享内存中 512 B 的 128×4 atom（每行 16 B），右边是 TMEM lanes ×（column, byte），四个 32-lane 分区是 .warpx4 的副本。颜色为 atom 内的 TCol（即 M group）。',
  'h.mesh': '5. GPU mesh：分片、副本与偏移',
  'p.mesh': '切换模式并点击 cell：显示持有它的设备和局部偏移。',
  'h.banks': '6. Bank conflict 与 XOR swizzle',
  'p.banks': '点击列（或行）标题：由引擎计算 cycles，逐步查看 wavefronts。',
  'h.atom': '8. Swizzle atom',
  'h.advisor': '7. 布局顾问：哪种共享内存布局没有 bank conflict',
  'p.advisor':
    '给出写入方与读取方（lanes;指令）、数据类型和 tile：由引擎对共享内存布局排序。点击其中一个，逐步查看它的 wavefronts。',
  'c.advisor':
    '读图：每一行是共享 tile 的一种候选布局（row-major、元素偏移上的 XOR swizzle、TMA 模式、行填充），最优在前，列出写入和读取各需的 wavefronts（括号内为理想值）和占用的字节数；条带显示读取的第一条指令中 32 个 bank 各需几个 wavefront（橙色：多于一个）。下方是所选候选的该指令，按 bank × wavefront 排列：格中数字是在此处被服务的 lane。默认例子是按行写入、按列读取的 16×32 fp32 tile，其中与两倍行号做 XOR 无冲突。',
  'p.atom': '选择模式和数据类型；悬停或选择单元格，查看它被重映射到的位置。',
  'h.play': '9. Playground',
  'p.play': '输入任意 layout 和逻辑 shape。',
  'c.tile':
    '读图：左边是逻辑 8×8 矩阵，右边是按每行 8 个地址排列的内存；两边格子里的数字都是逻辑序号 x，颜色表示所在的 tile，所以左边一个颜色块对应右边 16 个连续地址。下方的条带是同一段内存排成一行。',
  'c.fragment':
    '读图：左边是 m8n8 操作数的 8×8 tile，格子按 CUTLASS 与 PTX ISA 的方式标注：“T21 V1” 表示 lane（线程）21、slot（值）1。右边是一个 warp 的 32 个 lane 及每个 slot 中的逻辑序号 x。颜色为 lane mod 8，标注区分同色的 lane。',
  'c.tmem':
    '读图：每个像素是一个 32-bit TMEM 单元，lane 向下、column 向右；颜色表示布局占用的列带，灰色表示该布局未使用。点击单元查看该处的逻辑元素。',
  'c.sf':
    '读图：左边是 SFA 矩阵（128 行 × 4 个 scale factor，每个 1 byte），右边是 TMEM lanes ×（column, byte）。颜色表示 Mgroup（沿 TCol 打包）；沿 TLane 的四个 partition 是副本，所以每个 scale factor 以同一颜色出现四次。',
  'c.mesh':
    '读图：左边是逻辑张量，右边是 2×2 mesh 中每个设备的局部内存。被复制的元素在持有它的每个设备上用同一颜色绘制；offset 会移动设备内元素的起始位置。',
  'c.banks':
    '读图：每个网格是共享内存，每列是一个 bank；格子中的数字是逻辑列，位置是引擎算出的 bank。读取一列时高亮一个 warp 访问的格子；落在同一 bank 的格子在不同 cycle 中服务（徽标给出 cycle 数）。填充的情形每行存 33 个 word，使第 r 行移到 bank r。',
  'c.atom':
    '读图：左边是 atom 中按逻辑顺序的元素，右边是 swizzle 之后的位置。颜色表示逻辑列所在的 16 字节块：未 swizzle 时是竖条纹，swizzle 后每行的块被重新排列。',
  'c.play':
    '读图：逻辑视图与布局的物理视图并排，物理视图使用布局自己的坐标（按 32 banks × 4 B 成行的内存、lanes × 寄存器、TMEM lanes × columns、设备 × 局部内存）。颜色表示逻辑列（或行、序号），数字是逻辑序号，空格表示无元素，红色虚线格超出轴的取值范围。悬停查看位置和 bank；填入第二个 layout 进行对比。以 CuTe、CuTe DSL、Triton、TIRx、JAX、Shardy、XLA HLO 或 DTensor 语法粘贴的 layout 会被自动识别并转换为本记号（表单下方一行说明如何读取），“导出为”可将其写成引擎支持的各种语法。',
  copyLink: '复制链接',
  help: '快捷键 (?)',
  'help.title': '键盘',
  'help.tab': '在各图（每图一个焦点）及其控件之间移动',
  'help.arrows': '在图内移动光标',
  'help.home': '本行第一个 / 最后一个单元',
  'help.enter': '选择光标处的单元',
  'help.esc': '清除选择（或关闭本帮助）',
  'help.q': '本帮助',
  'help.link': '地址中保存了每个图的状态：“复制链接”分享的正是当前视图。',
  'help.close': '关闭',
  footer: '本页所有数字均由编译为 WebAssembly 的 layoutscope 引擎计算。',
};
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
  'ls-scan': () => import('./scan/scan-view.js'),
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
