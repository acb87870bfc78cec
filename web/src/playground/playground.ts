// <ls-playground>: any layout over any logical shape, drawn in its own physical coordinates.
//
//   Logical view   the logical shape, last extent across; colour = the logical column (or row, or index)
//   Physical view  @m alone: rows of a chosen width (32 banks x 4 B, or the tile width) with each column's bank;
//                  several axes: lanes x registers, TMEM lanes x (column, byte), devices x local memory
//                  (core/physical.ts). Offsets and out-of-range positions are drawn where they fall.
//   Compare        a second layout of the same shape beside the first; hovering an element lights it in all views.
//
// Every position, bank and derivation is the engine's (table, inverse, forward, bankAccess); this file arranges
// and colours them. The numbers in every view are logical indices x, so one number means one element throughout.
import { css, html } from 'lit';
import {
  arrangedTableOffMain,
  offMain,
  type Engine,
  type LsError,
  type LsFormat,
  type LsMapping,
  type LsMesh,
  type LsShape,
} from '../core/engine.js';
import { LsFigure } from '../core/figure.js';
import { drawScene, hitTest, type ImageItem, type Scene } from '../core/scene.js';
import type { Palette } from '../core/theme.js';
import { arrangeTable, type Limits } from '../core/physical.js';
import { mappingOf } from '../figures/selection.js';
import {
  RASTER_CELLS,
  RASTER_AREA,
  VALIDATE_HERE,
  OFF_MAIN_CELLS,
  FILL_SLICE,
  type Colour,
  type RasterSource,
  type Inputs,
  type Side,
} from './model.js';
import { FORMATS, EXPORT_CHOICES, type ExportChoice, type Notation, toNotation, parseMesh } from './notation.js';
import { type Colours, fillRaster, nextTask, hexRgb } from './raster.js';
import { colourTable, drawMarks, buildBase, labelMinWidth, readout } from './views.js';
import { renderControls } from './form.js';
import { renderSummary, summarize, type CompareSummary } from './compare.js';

export class LsPlayground extends LsFigure {
  static override styles = [
    ...LsFigure.styles,
    css`
      @media (min-width: 601px) {
        .view svg {
          min-width: var(--ls-label-min, 0);
        }
      }
      .compare-summary h4 {
        margin: 0.6rem 0 0.2rem;
      }
      .moved-list {
        margin: 0.2rem 0;
        padding-left: 1.2rem;
      }
      .compare-costs {
        display: block;
        max-width: 100%;
        overflow-x: auto;
        border-collapse: collapse;
      }
      .compare-costs caption {
        text-align: left;
        padding: 0.2rem 0;
      }
      .compare-costs th,
      .compare-costs td {
        text-align: left;
        padding: 0.2rem 0.6rem 0.2rem 0;
        border-bottom: 1px solid color-mix(in srgb, currentColor 20%, transparent);
      }
    `,
  ];
  static override properties = {
    ...LsFigure.properties,
    layout: { type: String },
    shape: { type: String },
    compare: { type: String },
    mesh: { type: String },
    from: { type: String },
    exportTo: { state: true },
    dtype: { type: String },
    rowWidth: { type: String, attribute: 'row-width' },
    colour: { type: String },
    hoverX: { state: true },
    progress: { state: true },
  };
  layout = 'S[(8,4,2):(4@laneid,1@laneid,1@reg)]';
  shape = '8,8';
  /** a second layout over the same shape, drawn beside the first */
  compare = '';
  /** named mesh axes for layouts pasted in JAX, DTensor, Shardy or HLO syntax: "x=2,y=4" */
  mesh = '';
  /** the syntax of the pasted layouts: 'auto' (the engine detects it) or one of FORMATS */
  from: LsFormat | 'auto' = 'auto';
  /** the syntax the layout is shown in below the form */
  exportTo: ExportChoice = 'cute';
  dtype = 'f32';
  /** memory view: 'banks' (32 banks x 4 B), 'tile' (the logical row) or a number of elements */
  rowWidth = 'banks';
  colour: Colour = 'col';
  hoverX: number | null = null;
  /** A large layout being prepared: what is being done and the fraction done; null when nothing is pending. */
  progress: { what: string; done: number } | null = null;
  /** Bumped by every recomputation: a large layout's preparation that is no longer the latest stops. */
  job = 0;
  /** Raster pixels filled ahead of the render (a large layout's, a slice per task), by drawGrid's cache key. */
  pixelCache = new Map<string, Uint8ClampedArray<ArrayBuffer>>();
  protected readonly defaultKey = 'play';
  sides: Side[] = [];
  err?: LsError;
  errSource: 'layout' | 'compare' | 'mesh' = 'layout';
  /** what the layout and compare texts were read as */
  read: Notation[] = [];
  /** the shape the sides are computed on: the imported shape, else the form's */
  shapeNow: LsShape = null;
  meshNow: LsMesh | null = null;
  hl = new Set<number>();
  mapping?: LsMapping;
  rows = 1;
  cols = 1;
  elemBytes = 4;
  limits: Limits = {};
  /** rasters kept across renders (a click redraws only the marks) */
  rasterCache = new Map<string, ImageItem>();
  /** the time of the last pointer event, for data-latency (event -> painted) */
  eventAt = 0;

  protected title_() {
    return `${this.layout} over (${this.shape})${this.compare ? ` vs ${this.compare}` : ''}`;
  }
  protected override extraState() {
    return {
      layout: this.layout,
      shape: this.shape,
      cmp: this.compare || null,
      mesh: this.mesh || null,
      fmt: this.from !== 'auto' ? this.from : null,
      ex: this.exportTo !== 'cute' ? this.exportTo : null,
      dt: this.dtype !== 'f32' ? this.dtype : null,
      w: this.rowWidth !== 'banks' ? this.rowWidth : null,
      c: this.colour !== 'col' ? this.colour : null,
    };
  }
  protected override applyExtraState(s: Record<string, string>) {
    if (s.layout) this.layout = s.layout;
    if (s.shape) this.shape = s.shape;
    if (s.cmp !== undefined) this.compare = s.cmp;
    if (s.mesh !== undefined) this.mesh = s.mesh;
    if (s.fmt && s.fmt in FORMATS) this.from = s.fmt as LsFormat;
    if (s.ex && (EXPORT_CHOICES as string[]).includes(s.ex)) {
      this.exportTo = s.ex as ExportChoice;
      this.exportChosen = true;
    }
    if (s.dt) this.dtype = s.dt; // an unknown name is the engine's error, under the form
    if (s.w) this.rowWidth = s.w;
    if (s.c === 'row' || s.c === 'index' || s.c === 'col') this.colour = s.c;
  }

  get shapeArg() {
    return this.shape.trim() === '' ? null : this.shape;
  }

  /** The memory view's row width in elements. */
  widthElems(cols = this.cols, elemBytes = this.elemBytes): number {
    if (this.rowWidth === 'tile') return cols;
    const n = Number(this.rowWidth);
    if (Number.isInteger(n) && n > 0) return n;
    return Math.max(1, 128 / elemBytes);
  }

  side(layout: string): Side | LsError {
    const t = this.eng!.table(layout, this.shapeNow);
    if (!t.ok) return t.error;
    return { layout, t, ...arrangeTable(t, this.widthElems(), this.limits), findings: null };
  }

  protected override recompute() {
    if (!this.eng) return;
    const job = ++this.job;
    this.progress = null;
    this.toggleAttribute('aria-busy', false);
    this.err = undefined;
    const inputs = this.readInputs();
    if ('message' in inputs) return this.fail(inputs, inputs.source);
    if (inputs.cells > OFF_MAIN_CELLS) {
      // the figure in place stays (and answers, on its own inputs) until the new one is ready
      this.toggleAttribute('aria-busy', true);
      void this.prepareLarge(job, inputs);
      return;
    }
    this.commit(inputs);
    const sides: Side[] = [];
    for (const [k, n] of inputs.read.entries()) {
      const s = this.side(n.layout);
      if ('message' in s) return this.fail(s, k ? 'compare' : 'layout');
      sides.push(s);
    }
    this.install(sides);
  }

  /** The inputs read into the notation, with the number of table cells they make, or the first error. Nothing
   * is stored on the element (commit does that when the figure of these inputs is drawn). */
  readInputs(): Inputs | (LsError & { source: 'layout' | 'compare' | 'mesh' }) {
    const eng = this.eng!;
    const eb = eng.dtypeBytes(this.dtype);
    if (!eb.ok) return { ...eb.error, source: 'layout' };
    const mesh = parseMesh(eng, this.mesh);
    if (mesh && 'message' in mesh) return { ...(mesh as LsError), source: 'mesh' };
    const r: Inputs = {
      read: [],
      shapeNow: this.shapeArg,
      meshNow: mesh as LsMesh | null,
      cols: this.cols,
      elemBytes: eb.ok ? eb.bytes : 4,
      limits: eng.hardwareLimits(),
      cells: 0,
    };
    for (const [text, source] of [
      [this.layout, 'layout'],
      [this.compare, 'compare'],
    ] as const) {
      if (!text.trim()) continue;
      const n = toNotation(eng, text, r.shapeNow, r.meshNow, this.from);
      if ('message' in n) return { ...n, source };
      r.read.push(n);
      // an import defines the layout on its shape; the compare layout is read on the same one
      if (n.shape && source === 'layout') r.shapeNow = n.shape.join(',');
      // no shape typed or imported: the engine's drawing shape (rows of the layout's last mode, 8x64 for
      // S[(8,64):(64,1)]) rather than one long row
      if (!r.shapeNow && source === 'layout') {
        const d = eng.drawingShape(n.layout);
        if (d.ok) r.shapeNow = d.shape.join(',');
      }
      const parsed = eng.parse(n.layout);
      const ps = r.shapeNow ? eng.parseShape(String(r.shapeNow)) : parsed;
      const shape = ps.ok ? ('shape' in ps ? ps.shape : ps.defaultShape) : [];
      // the logical shape first (the tile width depends on it)
      if (source === 'layout' && shape.length) r.cols = shape[shape.length - 1];
      const holders = parsed.ok ? Math.max(1, parsed.replicaCount) * Math.max(1, parsed.partialCount) : 1;
      r.cells = Math.max(r.cells, shape.reduce((a, e) => a * e, 1) * holders);
    }
    return r;
  }

  commit(r: Inputs) {
    this.read = r.read;
    this.shapeNow = r.shapeNow;
    this.meshNow = r.meshNow;
    this.cols = r.cols;
    this.elemBytes = r.elemBytes;
    this.limits = r.limits;
  }

  fail(err: LsError, source: 'layout' | 'compare' | 'mesh') {
    this.read = [];
    this.err = err;
    this.errSource = source;
    this.install([]);
    this.requestUpdate();
  }

  /** A large layout: tables and arrangements from the worker, then the rasters a slice per task, then the figure
   * in one step; progress is shown meanwhile. A later recomputation (job) abandons this one. */
  async prepareLarge(job: number, inputs: Inputs) {
    const stale = () => job !== this.job;
    const notations = inputs.read;
    const steps = notations.length + 1;
    const sides: Side[] = [];
    for (const [k, n] of notations.entries()) {
      this.progress = { what: this.tr('progressTable'), done: k / steps };
      const width = this.widthElems(inputs.cols, inputs.elemBytes);
      const r = await arrangedTableOffMain(this.eng!, n.layout, inputs.shapeNow, width, inputs.limits);
      if (stale()) return;
      if (!r.ok) {
        this.progress = null;
        this.toggleAttribute('aria-busy', false);
        return this.fail(r.error, k ? 'compare' : 'layout');
      }
      sides.push({ layout: n.layout, t: r.t, ...arrangeTable(r.t, width, inputs.limits, r.placement), findings: null });
    }
    const t = sides[0].t;
    const rows = t.elements / t.shape[t.shape.length - 1];
    const cols = t.shape[t.shape.length - 1];
    // the rasters drawGrid would fill: the logical view, then each physical view
    const p = this.palette;
    const colours = colourTable(this, p.name === 'dark', rows, cols);
    const views: [string, number, RasterSource][] = [
      ['L', rows * cols, { cellAt: null, replicas: 1, outOfRange: null }],
      ...sides.map((s, k): [string, number, RasterSource] => [
        `${k ? 'Q' : 'P'}${k}`,
        s.arr.rows * s.arr.cols,
        { cellAt: s.cellAt, replicas: s.t.replicas, outOfRange: s.arr.outOfRange },
      ]),
    ];
    const pixels = new Map<string, Uint8ClampedArray<ArrayBuffer>>();
    const total = views.reduce((a, v) => a + (v[1] > RASTER_CELLS && v[1] <= RASTER_AREA ? v[1] : 0), 0);
    let filled = 0;
    for (const [key, n, source] of views) {
      if (n <= RASTER_CELLS || n > RASTER_AREA) continue;
      const px = new Uint8ClampedArray(n * 4);
      const out = new Uint32Array(px.buffer);
      for (let from = 0; from < n; from += FILL_SLICE) {
        this.progress = { what: this.tr('progressDraw'), done: (notations.length + (filled + from) / total) / steps };
        await nextTask();
        if (stale()) return;
        const [empty, bad] = [hexRgb(p.cell), hexRgb(p.select)];
        fillRaster(out, source, colours, cols, this.colour, empty, bad, from, from + FILL_SLICE);
      }
      filled += n;
      pixels.set(`${key}|${p.name}|${this.colour}`, px);
    }
    await nextTask();
    if (stale()) return;
    this.progress = null;
    this.toggleAttribute('aria-busy', false);
    this.commit(inputs);
    this.install(sides, pixels);
  }

  /** The computed sides become the figure (an empty list: nothing to draw, this.err says why). */
  install(sides: Side[], pixels = new Map<string, Uint8ClampedArray<ArrayBuffer>>()) {
    this.sides = sides;
    this.readoutText = null;
    this.rasterCache.clear();
    this.pixelCache = pixels;
    this.base = undefined;
    if (!sides.length) return;
    const t = sides[0].t;
    if (sides[1] && sides[1].t.elements !== t.elements) {
      this.err = {
        message: `compare has ${sides[1].t.elements} elements over this shape, layout ${t.elements}`,
        column: 0,
        field: 'compare',
        code: 'size-mismatch',
      };
      this.sides = [];
      return;
    }
    this.cols = t.shape[t.shape.length - 1];
    this.rows = t.elements / this.cols;
    // compare mode: which elements move, and the engine's access costs of both layouts side by side
    this.compareSummary =
      sides.length === 2 ? summarize(this, sides, () => this.sides === sides && this.requestUpdate()) : undefined;
    this.lut.clear();
    this.selectionChanged();
    this.requestUpdate();
    // The validator walks every element (1.6 s for a million): it runs after the figure is drawn, not before, and
    // for a large layout in the engine's worker, so that the page answers clicks meanwhile.
    const shape = this.shapeNow;
    clearTimeout(this.validateTimer);
    this.validateTimer = window.setTimeout(() => {
      for (const s of sides) {
        const done = (v: ReturnType<Engine['validate']>) => {
          s.findings = v.ok
            ? v.findings
            : [{ severity: 'error', code: 'invalid', message: v.error.message, where: v.error.field }];
          if (this.sides === sides && sides.every((q) => q.findings !== null)) this.requestUpdate();
        };
        if (s.t.elements * s.t.replicas > VALIDATE_HERE)
          void offMain(this.eng!, 'validate', s.layout, shape, 0).then(done);
        else done(this.eng!.validate(s.layout, shape, 0));
      }
    }, 30);
  }
  validateTimer = 0;
  compareSummary?: CompareSummary;
  /** the smallest number drawn in a cell of the base scene, in scene units (Infinity: none) */
  labelSize = Infinity;
  /** the smallest a cell number may be drawn, in scene units (a smaller one is left out) */
  labelFloor = 7;

  /** The width the figure's drawing has on the page, in whole 20 px steps (so that a redraw follows the
   * window, not every pixel); 1200 before the element is laid out. */
  boxWidth(): number {
    const w = this.renderRoot.querySelector('.view')?.clientWidth || this.clientWidth;
    return w > 0 ? Math.floor(w / 20) * 20 : 1200;
  }

  /** The position of table cell i as text: "3,17" (axis values in the table's order). */
  posKey(s: Side, i: number): string {
    const k = s.t.axes.length;
    return Array.from(s.t.values.subarray(i * k, i * k + k)).join(',');
  }

  /** The elements a hit names: L:x, or every element the engine places at a position of side 0 (P:) or 1 (Q:). */
  elementsOf(hit: string): Set<number> {
    if (hit.startsWith('L:')) return new Set([Number(hit.slice(2))]);
    const s = this.sides[hit.startsWith('Q:') ? 1 : 0];
    if (!s || !(hit.startsWith('P:') || hit.startsWith('Q:'))) return new Set();
    const vals = hit.slice(2).split(',').map(Number);
    const inv = this.eng!.inverse(s.layout, this.shapeNow, Object.fromEntries(s.t.axes.map((a, i) => [a, vals[i]])), 0);
    return new Set(inv.ok ? inv.hits.map((h) => h.index) : []);
  }

  protected override selectionChanged() {
    this.hl.clear();
    this.mapping = undefined;
    const s = this.selection;
    if (!s || !this.eng || !this.sides.length) return;
    this.hl = this.elementsOf(s);
    // several elements may share a position (a non-injective layout): the derivation shows the first
    if (this.hl.size >= 1) this.mapping = mappingOf(this.eng, this.sides[0].layout, this.shapeNow, [...this.hl][0]);
  }

  apply(e: Event) {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const get = (n: string) => (form.elements.namedItem(n) as HTMLInputElement | HTMLSelectElement).value;
    const inputs = () => [this.layout, this.shape, this.compare, this.mesh, this.from].join('\n');
    const before = inputs();
    this.layout = get('layout');
    this.shape = get('shape');
    this.compare = get('compare');
    this.mesh = get('mesh');
    this.from = get('from') as LsFormat | 'auto';
    this.selection = null;
    this.eventAt = performance.now();
    // changed inputs are recomputed once, by the update they cause (willUpdate); the same inputs again here
    if (inputs() === before) this.safely(() => this.recompute());
    this.saveState();
    this.requestUpdate();
  }

  setOption(k: 'dtype' | 'rowWidth' | 'colour', v: string) {
    (this as unknown as Record<string, string>)[k] = v;
    this.safely(() => this.recompute());
    this.saveState();
    this.requestUpdate();
  }

  // keyboard targets: the logical cells, by arithmetic (a million-cell grid is never built as strings)
  protected navGrid(): string[][] {
    return Array.from({ length: this.navRows() }, (_, r) =>
      Array.from({ length: this.cols }, (_, c) => `L:${r * this.cols + c}`),
    );
  }
  protected override navRows() {
    return this.sides.length ? this.rows : 0;
  }
  protected override navCols() {
    return this.cols;
  }
  protected override navAt(r: number, c: number) {
    return `L:${r * this.cols + c}`;
  }
  protected override navFind(hit: string): [number, number] | null {
    if (!hit.startsWith('L:')) return null;
    const x = Number(hit.slice(2));
    return [Math.floor(x / this.cols), x % this.cols];
  }

  // ---- drawing -----------------------------------------------------------------------------------------

  lutNow?: Colours;
  lut = new Map<string, [number, number, number][]>();

  /** Where each view's cells are, in scene units: for tests and tools that point at a cell (cellBox). */
  geom = new Map<string, { x: number; y: number; cw: number; ch: number }>();

  /** The box of a hit's cell in scene units (L:x, or P:/Q: position keys), or null when not drawn. */
  cellBox(hit: string): { x: number; y: number; w: number; h: number } | null {
    const kind = hit.slice(0, 1);
    const g = this.geom.get(kind);
    if (!g) return null;
    if (kind === 'L') {
      const x = Number(hit.slice(2));
      return { x: g.x + (x % this.cols) * g.cw, y: g.y + Math.floor(x / this.cols) * g.ch, w: g.cw, h: g.ch };
    }
    const s = this.sides[kind === 'Q' ? 1 : 0];
    if (!s) return null;
    for (let i = 0; i < s.t.elements * s.t.replicas; ++i)
      if (this.posKey(s, i) === hit.slice(2))
        return { x: g.x + s.arr.colOf[i] * g.cw, y: g.y + s.arr.rowOf[i] * g.ch, w: g.cw, h: g.ch };
    return null;
  }

  /** The figure without its selection marks, kept until the inputs, palette, language or colouring change: a
   * click or a hover draws only the marks over it (the base's pixels are kept too, see paintCanvas). */
  base?: { key: string; scene: Scene; painted: boolean };
  /** The base's pixels (one canvas, reused: allocating a canvas costs milliseconds), and whether the visible
   * canvas holds the base alone (a new figure painted before any mark), from which it is copied when needed. */
  baseCanvas?: HTMLCanvasElement;
  visibleBase?: object;

  protected buildScene(p: Palette): Scene {
    if (!this.sides.length)
      return { width: 300, height: 40, background: p.bg, items: [{ t: 'text', x: 8, y: 20, s: '—', fill: p.muted }] };
    // compare mode stacks its views when they are wider than the box: the box's width is part of the figure
    const avail = this.sides.length > 1 ? this.boxWidth() : Infinity;
    const key = `${p.name}|${this.language}|${this.colour}|${avail}`;
    if (this.base?.key !== key) this.base = { key, scene: buildBase(this, p, avail), painted: false };
    const b = this.base.scene;
    // numbered cells stay legible: the view scrolls rather than shrinking them below 9 px (at any window width)
    this.style.setProperty('--ls-label-min', `${labelMinWidth(b.width, this.labelSize)}px`);
    const items = b.items.slice();
    drawMarks(this, items, p);
    return { ...b, items };
  }

  /** A new figure is painted straight onto the visible canvas; once marks are drawn the base is kept in a canvas
   * of its own, and each later frame copies it and draws only the marks on top. */
  protected override paintCanvas(canvas: HTMLCanvasElement, scene: Scene) {
    const b = this.base;
    const n = b?.scene.items.length ?? 0;
    const held = this.visibleBase;
    this.visibleBase = undefined;
    if (!b || scene.items.length < n || (n > 0 && scene.items[0] !== b.scene.items[0]))
      return super.paintCanvas(canvas, scene);
    const dpr = Math.min(2, window.devicePixelRatio || 1);
    const w = scene.width * dpr,
      h = scene.height * dpr;
    if (!b.painted && scene.items.length === n) {
      super.paintCanvas(canvas, scene);
      this.visibleBase = b;
      return;
    }
    const keep = (this.baseCanvas ??= document.createElement('canvas'));
    if (!b.painted || keep.width !== w || keep.height !== h) {
      if (keep.width !== w || keep.height !== h) {
        keep.width = w;
        keep.height = h;
      }
      const kctx = keep.getContext('2d')!;
      kctx.setTransform(1, 0, 0, 1, 0, 0);
      if (held === b && canvas.width === w && canvas.height === h) kctx.drawImage(canvas, 0, 0);
      else {
        kctx.setTransform(dpr, 0, 0, dpr, 0, 0);
        drawScene(kctx, b.scene);
      }
      b.painted = true;
    }
    if (canvas.width !== w || canvas.height !== h) {
      canvas.width = w;
      canvas.height = h;
    }
    const ctx = canvas.getContext('2d')!;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.drawImage(keep, 0, 0);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    drawScene(ctx, scene, scene.items.slice(n), false);
  }

  // ---- hover -------------------------------------------------------------------------------------------

  hoverFrame = 0;
  onMove(e: PointerEvent) {
    const path = e.composedPath();
    let hit: string | null = null;
    for (const el of path) {
      if (el instanceof Element && el.hasAttribute('data-hit')) {
        hit = el.getAttribute('data-hit');
        break;
      }
      if (el instanceof HTMLCanvasElement && this.scene) {
        const rect = el.getBoundingClientRect();
        const it = hitTest(
          this.scene,
          ((e.clientX - rect.left) * this.scene.width) / rect.width,
          ((e.clientY - rect.top) * this.scene.height) / rect.height,
        );
        hit = it?.hit ?? null;
        break;
      }
    }
    this.readoutText = hit ? readout(this, hit) : null;
    this.showReadout();
    // the correspondence: the hovered element marked in every view (drawn on the next frame, at most once a frame)
    const x = hit ? ([...this.elementsOf(hit)][0] ?? null) : null;
    if (x === this.hoverX) return;
    cancelAnimationFrame(this.hoverFrame);
    this.hoverFrame = requestAnimationFrame(() => (this.hoverX = x));
  }

  protected override renderView() {
    return html`<div
      @pointermove=${this.onMove}
      @pointerdown=${() => (this.eventAt = performance.now())}
      @pointerleave=${() => {
        cancelAnimationFrame(this.hoverFrame);
        this.hoverX = null;
        this.readoutText = null;
        this.showReadout();
      }}
    >
      ${super.renderView()}
    </div>`;
  }

  protected override useCanvas(): boolean {
    return this.scene?.items.some((it) => it.t === 'image') ?? false;
  }

  /** What the readout says: the hovered cell's positions, or (null) the hint in the figure's language. */
  readoutText: string | null = null;
  showReadout() {
    const out = this.renderRoot.querySelector('.readout');
    if (out) out.textContent = this.readoutText ?? this.tr('hoverHint');
  }

  protected override updated(changed: Map<PropertyKey, unknown>) {
    super.updated(changed);
    this.showReadout();
    if (this.eventAt && !this.progress) {
      this.setAttribute('data-latency', (performance.now() - this.eventAt).toFixed(2));
      this.eventAt = 0;
    }
  }

  protected announce(): string {
    if (!this.selection) return this.tr('noSelection');
    const f = this.mapping;
    return f
      ? `x = ${f.index} (${f.coord.join(', ')}) → ${f.positions.map((q) => `{${f.axes.map((a, i) => `${a}: ${q[i]}`).join(', ')}}`).join(' ')}`
      : '';
  }

  protected details() {
    const f = this.mapping;
    // the readout's text is written by showReadout alone (at pointer rate, without a render): a binding inside
    // it would lose its text node to that write, and the next render in another language would fail on it
    return html`<p class="readout mono" aria-hidden="true"></p>
      ${
        f
          ? html`<p class="mono derivation">${f.derivation}</p>
            ${this.hl.size > 1 ? html`<p>${this.hl.size} elements here: ${[...this.hl].join(', ')}</p>` : ''}`
          : html`<p>${this.tr('noSelection')}</p>`
      }
      ${renderSummary(this, this.compareSummary)}`;
  }

  protected exportData() {
    const t = this.sides[0]?.t;
    return t
      ? {
          layout: this.layout,
          notation: this.read.map((n) => ({ format: n.format, layout: n.layout })),
          compare: this.compare || undefined,
          shape: t.shape,
          axes: t.axes,
          elements: t.elements,
          replicas: t.replicas,
          values: Array.from(t.values),
        }
      : { layout: this.layout, error: this.err };
  }

  exported = new Map<string, ReturnType<Engine['exportLayout']>>();
  /** the user picked the export syntax (or the address names one): shown even when it cannot say the layout */
  exportChosen = false;

  protected override controls() {
    return renderControls(this);
  }

  override render() {
    if (this.eng && !this.sides.length && !this.inputError) {
      // invalid input: keep the form and the message, draw nothing
      return html`<div class="bar">${renderControls(this)}</div>`;
    }
    return super.render();
  }
}

customElements.define('ls-playground', LsPlayground);
