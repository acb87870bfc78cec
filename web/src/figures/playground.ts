// <ls-playground>: any layout over any logical shape, drawn in its own physical coordinates.
//
//   Logical view   the logical shape, last extent across; colour = the logical column (or row, or index)
//   Physical view  @m alone: rows of a chosen width (32 banks x 4 B, or the tile width) with each column's bank;
//                  several axes: lanes x registers, TMEM lanes x (column, byte), devices x local memory
//                  (physical.ts). Offsets and out-of-range positions are drawn where they fall.
//   Compare        a second layout of the same shape beside the first; hovering an element lights it in all views.
//
// Every position, bank and derivation is the engine's (table, inverse, forward, bankAccess); this file arranges
// and colours them. The numbers in every view are logical indices x, so one number means one element throughout.
import { html, nothing } from 'lit';
import {
  arrangedTableOffMain,
  offMain,
  type Engine,
  type LsError,
  type LsFinding,
  type LsFormat,
  type LsMapping,
  type LsMesh,
  type LsShape,
  type LsTable,
} from '../engine.js';
import { LsFigure, renderInputError, type InputError } from '../figure.js';
import { drawScene, hitTest, type ImageItem, type Item, type Scene } from '../scene.js';
import type { Palette } from '../theme.js';
import { arrangeTable, hex, hueRgb, type Arrangement, type Limits } from './physical.js';
import { mappingOf } from './selection.js';

/** Above this many cells in a view it is drawn as one raster (one pixel block per cell) instead of SVG cells. */
const RASTER_CELLS = 2048;
/** Largest raster (cells of a view's grid) the page draws. */
const RASTER_AREA = 1 << 23;
/** Selection marks drawn at most (a position selection can name many elements). */
const MAX_MARKS = 4096;
/** Above this many table cells the validator runs in the engine's worker (a few milliseconds below it). */
const VALIDATE_HERE = 1 << 16;
/** Above this many table cells a layout is tabulated and arranged in the engine's worker and its rasters are
 * filled a slice per task: applying a million-cell layout keeps the page answering (each task a few tens of ms). */
const OFF_MAIN_CELLS = 1 << 17;
/** Raster cells filled per task while a large layout is prepared. */
const FILL_SLICE = 1 << 18;
const DTYPES = ['f8', 'f16', 'f32', 'f64'] as const;

type Colour = 'col' | 'row' | 'index';

/** What a raster view's cells hold: the first table cell at each place (null: the place is element x itself, the
 * logical view), the table's replicas, and its out-of-range flags. */
interface RasterSource {
  cellAt: Int32Array | null;
  replicas: number;
  outOfRange: Uint8Array | null;
}

/** The form's inputs as the engine reads them: what the figure is computed from. */
interface Inputs {
  /** the layout (and compare) texts read into the notation */
  read: Notation[];
  /** the shape the sides are computed on: the imported shape, else the form's */
  shapeNow: LsShape;
  meshNow: LsMesh | null;
  /** the logical shape's last extent */
  cols: number;
  elemBytes: number;
  limits: Limits;
  /** table cells (elements x holders) of the larger side */
  cells: number;
}

/** One layout's engine results and its arrangement. */
interface Side {
  layout: string;
  t: LsTable;
  arr: Arrangement;
  /** first table cell at each grid place, -1 where empty */
  cellAt: Int32Array;
  /** the validator's findings; null until they are computed (after the figure is drawn) */
  findings: LsFinding[] | null;
}

/** The syntaxes the engine reads (importLayout), with the names the page shows. */
export const FORMATS: Record<LsFormat, string> = {
  axe: 'layoutscope notation',
  cute: 'CuTe (C++)',
  'cute-dsl': 'CuTe DSL',
  triton: 'Triton',
  tirx: 'TIRx',
  jax: 'JAX',
  shardy: 'Shardy',
  hlo: 'XLA HLO',
  dtensor: 'PyTorch DTensor',
};
/** The syntaxes the engine writes (exportLayout). */
export const EXPORT_FORMATS: LsFormat[] = ['cute', 'cute-dsl', 'triton', 'tirx', 'jax', 'dtensor', 'axe'];

/** A pasted text read into the chapter's notation. */
export interface Notation {
  layout: string;
  /** the syntax it was read as (detected, or the one asked for) */
  format: LsFormat;
  /** the logical shape the import defines the layout on; null for the notation itself (the form's shape rules) */
  shape: number[] | null;
  notes: string[];
}

/** Turns pasted text in any syntax the engine reads into the notation it evaluates: the engine detects the syntax
 * (unless `from` names one) and imports it; shape and mesh supply what the text does not say. An error's column is
 * a column of `text` as given (leading blanks included). */
export function toNotation(
  eng: Engine,
  text: string,
  shape: LsShape,
  mesh: LsMesh | null,
  from: LsFormat | 'auto' = 'auto',
): Notation | LsError {
  const src = text.trim();
  const lead = text.length - text.trimStart().length;
  const format = from === 'auto' ? eng.detectFormat(src) : from;
  if (format === 'axe') return { layout: src, format, shape: null, notes: [] };
  const r = eng.importLayout(format, src, shape, mesh);
  if (!r.ok) return { ...r.error, column: r.error.column > 0 ? r.error.column + lead : 0 };
  return { layout: r.layout, format, shape: r.shape, notes: r.notes };
}

/** "x=2,y=4" as { x: 2, y: 4 } (axis names major first); empty text is no mesh. An error names the column. */
export function parseMesh(text: string): LsMesh | null | LsError {
  if (!text.trim()) return null;
  const mesh: LsMesh = {};
  let at = 0;
  for (const part of text.split(',')) {
    const col = at + (part.length - part.trimStart().length) + 1;
    at += part.length + 1;
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([0-9]+)\s*$/.exec(part);
    const bad = (message: string) => ({ message, column: col, field: 'mesh', code: 'syntax' });
    if (!m) return bad(`expected "axis=size" (e.g. x=2), got "${part.trim()}"`);
    const n = Number(m[2]);
    if (!Number.isSafeInteger(n) || n < 1) return bad(`the size of axis ${m[1]} must be a positive integer`);
    if (m[1] in mesh) return bad(`axis ${m[1]} is named twice`);
    mesh[m[1]] = n;
  }
  return mesh;
}

export class LsPlayground extends LsFigure {
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
  exportTo: LsFormat = 'cute';
  dtype = 'f32';
  /** memory view: 'banks' (32 banks x 4 B), 'tile' (the logical row) or a number of elements */
  rowWidth = 'banks';
  colour: Colour = 'col';
  hoverX: number | null = null;
  /** A large layout being prepared: what is being done and the fraction done; null when nothing is pending. */
  progress: { what: string; done: number } | null = null;
  /** Bumped by every recomputation: a large layout's preparation that is no longer the latest stops. */
  private job = 0;
  /** Raster pixels filled ahead of the render (a large layout's, a slice per task), by drawGrid's cache key. */
  private pixelCache = new Map<string, Uint8ClampedArray<ArrayBuffer>>();
  protected readonly defaultKey = 'play';
  private sides: Side[] = [];
  private err?: LsError;
  private errSource: 'layout' | 'compare' | 'mesh' = 'layout';
  /** what the layout and compare texts were read as */
  private read: Notation[] = [];
  /** the shape the sides are computed on: the imported shape, else the form's */
  private shapeNow: LsShape = null;
  private meshNow: LsMesh | null = null;
  private hl = new Set<number>();
  private mapping?: LsMapping;
  private rows = 1;
  private cols = 1;
  private elemBytes = 4;
  private limits: Limits = {};
  /** rasters kept across renders (a click redraws only the marks) */
  private rasterCache = new Map<string, ImageItem>();
  /** the time of the last pointer event, for data-latency (event -> painted) */
  private eventAt = 0;

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
    if (s.ex && (EXPORT_FORMATS as string[]).includes(s.ex)) this.exportTo = s.ex as LsFormat;
    if (s.dt && (DTYPES as readonly string[]).includes(s.dt)) this.dtype = s.dt;
    if (s.w) this.rowWidth = s.w;
    if (s.c === 'row' || s.c === 'index' || s.c === 'col') this.colour = s.c;
  }

  private get shapeArg() {
    return this.shape.trim() === '' ? null : this.shape;
  }

  /** The memory view's row width in elements. */
  private widthElems(cols = this.cols, elemBytes = this.elemBytes): number {
    if (this.rowWidth === 'tile') return cols;
    const n = Number(this.rowWidth);
    if (Number.isInteger(n) && n > 0) return n;
    return Math.max(1, 128 / elemBytes);
  }

  private side(layout: string): Side | LsError {
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
  private readInputs(): Inputs | (LsError & { source: 'layout' | 'compare' | 'mesh' }) {
    const eng = this.eng!;
    const eb = eng.dtypeBytes(this.dtype);
    const mesh = parseMesh(this.mesh);
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

  private commit(r: Inputs) {
    this.read = r.read;
    this.shapeNow = r.shapeNow;
    this.meshNow = r.meshNow;
    this.cols = r.cols;
    this.elemBytes = r.elemBytes;
    this.limits = r.limits;
  }

  private fail(err: LsError, source: 'layout' | 'compare' | 'mesh') {
    this.read = [];
    this.err = err;
    this.errSource = source;
    this.install([]);
    this.requestUpdate();
  }

  /** A large layout: tables and arrangements from the worker, then the rasters a slice per task, then the figure
   * in one step; progress is shown meanwhile. A later recomputation (job) abandons this one. */
  private async prepareLarge(job: number, inputs: Inputs) {
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
    const colours = this.colours(p.name === 'dark', rows, cols);
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
  private install(sides: Side[], pixels = new Map<string, Uint8ClampedArray<ArrayBuffer>>()) {
    this.sides = sides;
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
  private validateTimer = 0;

  /** The position of table cell i as text: "3,17" (axis values in the table's order). */
  private posKey(s: Side, i: number): string {
    const k = s.t.axes.length;
    return Array.from(s.t.values.subarray(i * k, i * k + k)).join(',');
  }

  /** The elements a hit names: L:x, or every element the engine places at a position of side 0 (P:) or 1 (Q:). */
  private elementsOf(hit: string): Set<number> {
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

  private apply(e: Event) {
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

  private setOption(k: 'dtype' | 'rowWidth' | 'colour', v: string) {
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

  /** The colour of logical element x, from a table of at most 1024 colours made once per scene (a raster of a
   * million cells looks colours up instead of computing them). */
  private colourOf(x: number, _dark?: boolean): [number, number, number] {
    const f = this.lutNow!;
    return f.lut[Math.min(f.lut.length - 1, Math.floor((f.index(x) * f.lut.length) / f.n))];
  }
  private lutNow?: Colours;
  private prepareColours(dark: boolean) {
    this.lutNow = this.colours(dark, this.rows, this.cols);
  }
  /** The colour table of a rows x cols logical shape under the current colouring. */
  private colours(dark: boolean, rows: number, cols: number): Colours {
    const c = this.colour;
    const n = Math.max(1, c === 'col' ? cols : c === 'row' ? rows : rows * cols);
    const steps = Math.min(n, 1024);
    const key = `${c}|${dark}|${steps}`;
    let lut = this.lut.get(key);
    if (!lut) {
      lut = Array.from({ length: steps }, (_, k) => hueRgb(k / steps, dark));
      this.lut.set(key, lut);
    }
    return {
      lut,
      n,
      index: c === 'col' ? (x) => x % cols : c === 'row' ? (x) => Math.floor(x / cols) : (x) => x,
    };
  }
  private lut = new Map<string, [number, number, number][]>();

  /** Tick labels along one edge: every k-th so that labels do not touch. */
  private ticks(
    items: Item[],
    p: Palette,
    n: number,
    size: number,
    at: (i: number) => [number, number],
    text: (i: number) => string,
    anchor: 'end' | 'middle',
    chars = 3,
  ) {
    const need = anchor === 'middle' ? Math.max(14, chars * 6.5) : 12;
    const every = Math.max(1, Math.ceil(need / Math.max(size, 0.001)));
    const step =
      [1, 2, 4, 5, 8, 10, 16, 20, 32, 50, 64, 100, 128, 256, 512, 1024, 2048, 4096].find((s) => s >= every) ?? every;
    for (let i = 0; i < n; i += step) {
      const [x, y] = at(i);
      items.push({ t: 'text', x, y, s: text(i), size: 10, fill: p.muted, anchor });
    }
  }

  /** A grid of cells: one SVG rect per cell when small, else one cached raster; returns nothing, draws at (x, y). */
  private drawGrid(
    items: Item[],
    p: Palette,
    key: string,
    x: number,
    y: number,
    cw: number,
    ch: number,
    rows: number,
    cols: number,
    fillAt: (at: number) => [number, number, number] | null,
    hitAt: (at: number) => string | undefined,
    labelAt: (at: number) => string | undefined,
    flagAt: (at: number) => boolean,
    source: RasterSource,
  ) {
    const dark = p.name === 'dark';
    if (rows * cols > RASTER_CELLS && rows * cols <= RASTER_AREA) {
      const cacheKey = `${key}|${p.name}|${this.colour}`;
      let img = this.rasterCache.get(cacheKey);
      if (!img) {
        let px = this.pixelCache.get(cacheKey);
        if (!px) {
          px = new Uint8ClampedArray(rows * cols * 4);
          const out = new Uint32Array(px.buffer);
          const colours = this.lutNow!;
          fillRaster(out, source, colours, this.cols, this.colour, hexRgb(p.cell), hexRgb(p.select), 0, out.length);
        }
        img = {
          t: 'image',
          x,
          y,
          w: cols * cw,
          h: rows * ch,
          pw: cols,
          ph: rows,
          pixels: px,
          hitAt: (c, r) => hitAt(r * cols + c),
        };
        this.rasterCache.set(cacheKey, img);
      }
      items.push(img);
      return;
    }
    items.push({ t: 'rect', x, y, w: cols * cw, h: rows * ch, fill: p.cell, stroke: p.grid, sw: 0.5 });
    for (let at = 0; at < rows * cols; ++at) {
      const rgb = fillAt(at);
      if (!rgb) continue;
      const r = Math.floor(at / cols),
        c = at % cols;
      const hit = hitAt(at);
      const bad = flagAt(at);
      items.push({
        t: 'rect',
        x: x + c * cw,
        y: y + r * ch,
        w: cw,
        h: ch,
        fill: hex(rgb),
        stroke: bad ? p.select : p.grid,
        sw: bad ? 2 : 0.5,
        hit,
        title: hit ? this.readout(hit) : undefined,
        dash: bad ? '3 2' : undefined,
      });
      const lab = labelAt(at);
      if (lab !== undefined && ch >= 12 && cw >= lab.length * 6 + 2)
        items.push({
          t: 'text',
          x: x + c * cw + cw / 2,
          y: y + r * ch + ch / 2,
          s: lab,
          size: Math.min(11, ch * 0.55),
          fill: dark ? '#fff' : '#000',
          anchor: 'middle',
        });
    }
    void dark;
  }

  /** Cell sizes for a rows x cols grid in about w x h pixels: as wide as fits, at least 12 px tall when there is
   * room; below a pixel a cell is a fraction of one (a large view is an overview, drawn as a scaled raster). */
  private fit(rows: number, cols: number, w: number, h: number): [number, number] {
    const px = (v: number) => (v >= 1 ? Math.floor(v) : v);
    const cw = px(Math.min(30, w / cols));
    const ch = px(Math.min(24, h / rows, Math.max(cw, 12)));
    return [cw, ch];
  }

  /** Where each view's cells are, in scene units: for tests and tools that point at a cell (cellBox). */
  private geom = new Map<string, { x: number; y: number; cw: number; ch: number }>();

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
  private base?: { key: string; scene: Scene; painted: boolean };
  /** The base's pixels (one canvas, reused: allocating a canvas costs milliseconds), and whether the visible
   * canvas holds the base alone (a new figure painted before any mark), from which it is copied when needed. */
  private baseCanvas?: HTMLCanvasElement;
  private visibleBase?: object;

  protected buildScene(p: Palette): Scene {
    if (!this.sides.length)
      return { width: 300, height: 40, background: p.bg, items: [{ t: 'text', x: 8, y: 20, s: '—', fill: p.muted }] };
    const key = `${p.name}|${this.language}|${this.colour}`;
    if (this.base?.key !== key) this.base = { key, scene: this.buildBase(p), painted: false };
    const b = this.base.scene;
    const items = b.items.slice();
    this.drawMarks(items, p);
    return { ...b, items };
  }

  /** The marks of the selected and hovered elements (and the keyboard cursor) in every view. */
  private drawMarks(items: Item[], p: Palette) {
    const g = this.geom.get('L');
    if (g) this.marks(items, p, 'L', g.x, g.y, g.cw, g.ch, this.cols, this.cursorHit());
    this.sides.forEach((s, k) => {
      const gk = this.geom.get(k ? 'Q' : 'P');
      if (!gk) return;
      const a = s.arr;
      let n = 0;
      for (const e of this.shown()) {
        if (++n > MAX_MARKS) break;
        for (let r = 0; r < s.t.replicas; ++r) {
          const i = e * s.t.replicas + r;
          this.mark(
            items,
            p,
            gk.x + a.colOf[i] * gk.cw,
            gk.y + a.rowOf[i] * gk.ch,
            gk.cw,
            gk.ch,
            this.hl.has(e) ? undefined : '3 2',
          );
        }
      }
    });
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

  private buildBase(p: Palette): Scene {
    const items: Item[] = [];
    const dark = p.name === 'dark';
    this.prepareColours(dark);
    const views = 1 + this.sides.length;
    const budget = Math.max(260, Math.floor(1100 / views) - 40);
    const top = 74,
      left = 56;
    const titleW = (s: string) => s.length * 7.6;
    let x = left;
    let bottom = 0;
    // logical view
    const [lw, lh] = this.fit(this.rows, this.cols, budget, 440);
    const t0 = this.sides[0].t;
    const logicalTitle = `${this.tr('logical')} (${t0.shape.join('×')})`;
    items.push({ t: 'text', x, y: 14, s: logicalTitle, size: 13, fill: p.fg, weight: 'bold' });
    items.push({ t: 'text', x, y: 30, s: `${this.tr('row')} ↓ · ${this.tr('col')} →`, size: 10, fill: p.muted });
    this.ticks(
      items,
      p,
      this.cols,
      lw,
      (c) => [x + c * lw + lw / 2, top - 8],
      String,
      'middle',
      String(this.cols).length,
    );
    this.ticks(items, p, this.rows, lh, (r) => [x - 4, top + r * lh + lh / 2], String, 'end');
    this.geom.set('L', { x, y: top, cw: lw, ch: lh });
    this.drawGrid(
      items,
      p,
      'L',
      x,
      top,
      lw,
      lh,
      this.rows,
      this.cols,
      (at) => this.colourOf(at, dark),
      (at) => `L:${at}`,
      (at) => String(at),
      () => false,
      { cellAt: null, replicas: 1, outOfRange: null },
    );
    bottom = Math.max(bottom, top + this.rows * lh);
    x += Math.max(this.cols * lw, titleW(logicalTitle)) + 70;
    // physical views
    this.sides.forEach((s, k) => {
      const a = s.arr;
      const [cw, ch] = this.fit(a.rows, a.cols, budget, 440);
      const title =
        a.width && a.down[0] === 'm'
          ? `${k ? this.tr('compare') + ': ' : ''}${this.tr('memoryRows')} ${a.width} ${this.tr('elements')} (${a.width * this.elemBytes} B)`
          : a.width
            ? `${k ? this.tr('compare') + ': ' : this.tr('physical') + ': '}${a.down[0]} ${this.tr('inRowsOf')} ${a.width}`
            : `${k ? this.tr('compare') + ': ' : this.tr('physical') + ': '}${a.down.join('·')} ↓ · ${a.across.join('·')} →`;
      items.push({ t: 'text', x, y: 14, s: title, size: 13, fill: p.fg, weight: 'bold' });
      items.push({ t: 'text', x, y: 30, s: s.layout, size: 10, fill: p.muted, mono: true });
      const bankRow = a.down[0] === 'm' && a.width > 0 && (a.width * this.elemBytes) % 128 === 0;
      const colTop = bankRow ? top - 22 : top - 8;
      this.ticks(
        items,
        p,
        a.cols,
        cw,
        (c) => [x + c * cw + cw / 2, colTop],
        (c) => a.colValues(c).join(','),
        'middle',
        String(a.cols).length,
      );
      if (bankRow) {
        const banks = this.banksOfColumns(a.cols);
        this.ticks(
          items,
          p,
          a.cols,
          cw,
          (c) => [x + c * cw + cw / 2, top - 8],
          (c) => `b${banks[c]}`,
          'middle',
          3,
        );
      }
      this.ticks(
        items,
        p,
        a.rows,
        ch,
        (r) => [x - 4, top + r * ch + ch / 2],
        (r) => a.rowValues(r).join(','),
        'end',
      );
      const key = k ? 'Q' : 'P';
      this.geom.set(key, { x, y: top, cw, ch });
      this.drawGrid(
        items,
        p,
        `${key}${k}`,
        x,
        top,
        cw,
        ch,
        a.rows,
        a.cols,
        (at) => (s.cellAt[at] >= 0 ? this.colourOf(Math.floor(s.cellAt[at] / s.t.replicas), dark) : null),
        (at) => (s.cellAt[at] >= 0 ? `${key}:${this.posKey(s, s.cellAt[at])}` : undefined),
        (at) => (s.cellAt[at] >= 0 ? String(Math.floor(s.cellAt[at] / s.t.replicas)) : undefined),
        (at) => s.cellAt[at] >= 0 && s.arr.outOfRange[s.cellAt[at]] === 1,
        { cellAt: s.cellAt, replicas: s.t.replicas, outOfRange: s.arr.outOfRange },
      );
      // a hardware range ending inside the drawn rows: a line where it ends (lane 32 of a warp)
      if (a.down.length === 1 && !a.width) {
        const lim = this.limits[a.down[0]];
        const origin = a.rowValues(0)[0];
        if (lim !== undefined && lim - origin < a.rows) {
          const yy = top + (lim - origin) * ch;
          items.push({
            t: 'line',
            x1: x - 4,
            y1: yy,
            x2: x + a.cols * cw + 4,
            y2: yy,
            stroke: p.select,
            sw: 2,
            dash: '5 3',
          });
          items.push({
            t: 'text',
            x: x + a.cols * cw + 6,
            y: yy,
            s: `${a.down[0]} < ${lim}`,
            size: 10,
            fill: p.select,
          });
        }
      }
      bottom = Math.max(bottom, top + a.rows * ch);
      x += Math.max(a.cols * cw + 60, titleW(title), titleW(s.layout) * 0.8) + 40;
    });
    // legend
    const ly = bottom + 22;
    const legendW = this.legend(items, p, left, ly, dark);
    const width = Math.max(x - 20, left + legendW + 20);
    return { width, height: ly + 40, background: p.bg, items };
  }

  /** Elements to mark: the selection and the hovered element. */
  private shown(): Set<number> {
    if (this.hoverX === null) return this.hl;
    return new Set([...this.hl, this.hoverX]);
  }

  private mark(items: Item[], p: Palette, x: number, y: number, w: number, h: number, dash?: string) {
    const mw = Math.max(w, 3),
      mh = Math.max(h, 3);
    items.push({
      t: 'rect',
      x: x - (mw - w) / 2,
      y: y - (mh - h) / 2,
      w: mw,
      h: mh,
      fill: 'none',
      stroke: dash ? p.related : p.select,
      sw: dash ? 2 : 2.5,
      dash,
    });
  }

  private marks(
    items: Item[],
    p: Palette,
    _k: string,
    x: number,
    y: number,
    cw: number,
    ch: number,
    cols: number,
    cur: string | null,
  ) {
    let n = 0;
    for (const e of this.shown()) {
      if (++n > MAX_MARKS) break;
      this.mark(
        items,
        p,
        x + (e % cols) * cw,
        y + Math.floor(e / cols) * ch,
        cw,
        ch,
        this.hl.has(e) ? undefined : '3 2',
      );
    }
    if (cur?.startsWith('L:')) {
      const e = Number(cur.slice(2));
      items.push({
        t: 'rect',
        x: x + (e % cols) * cw - 1,
        y: y + Math.floor(e / cols) * ch - 1,
        w: cw + 2,
        h: ch + 2,
        fill: 'none',
        stroke: p.related,
        sw: 2,
        dash: '2 1',
      });
    }
  }

  /** The bank of each column of a memory row (byte address c * element bytes), from the engine's bank model. */
  private banksOfColumns(cols: number): number[] {
    const out: number[] = [];
    for (let c0 = 0; c0 < cols; c0 += 32) {
      const w = this.bankWidth();
      const addrs = Array.from({ length: Math.min(32, cols - c0) }, (_, i) =>
        this.wordAddress((c0 + i) * this.elemBytes),
      );
      const r = this.eng!.bankAccess(addrs, w, null);
      out.push(...(r.ok ? r.laneBank : addrs.map(() => NaN)));
    }
    return out;
  }

  /** The access width bankAccess is asked about: one element, at least a 4 B word. */
  private bankWidth(): number {
    return Math.max(4, Math.min(16, this.elemBytes));
  }
  /** A byte address aligned down to that width (two fp16 elements share one 4 B word, hence one bank). */
  private wordAddress(byte: number): number {
    const w = this.bankWidth();
    return Math.floor(byte / w) * w;
  }

  private legend(items: Item[], p: Palette, x: number, y: number, dark: boolean): number {
    const by = this.colour === 'col' ? this.tr('byCol') : this.colour === 'row' ? this.tr('byRow') : this.tr('byIndex');
    const n = this.colour === 'col' ? this.cols : this.colour === 'row' ? this.rows : this.rows * this.cols;
    items.push({ t: 'text', x, y, s: `${this.tr('colourBy')}: ${by}`, size: 11, fill: p.fg });
    const gx = x + 150;
    for (let i = 0; i < 40; ++i)
      items.push({ t: 'rect', x: gx + i * 3, y: y - 6, w: 3, h: 12, fill: hex(hueRgb(i / 40, dark)) });
    items.push({ t: 'text', x: gx - 4, y, s: '0', size: 10, fill: p.muted, anchor: 'end' });
    items.push({ t: 'text', x: gx + 124, y, s: String(n - 1), size: 10, fill: p.muted });
    let lx = gx + 160;
    items.push({ t: 'rect', x: lx, y: y - 6, w: 12, h: 12, fill: p.cell, stroke: p.grid, sw: 0.5 });
    items.push({ t: 'text', x: lx + 16, y, s: this.tr('emptyPos'), size: 11, fill: p.fg });
    lx += 16 + this.tr('emptyPos').length * 6.5 + 16;
    items.push({ t: 'rect', x: lx, y: y - 6, w: 12, h: 12, fill: 'none', stroke: p.select, sw: 2, dash: '3 2' });
    items.push({ t: 'text', x: lx + 16, y, s: this.tr('outOfRange'), size: 11, fill: p.fg });
    lx += 16 + this.tr('outOfRange').length * 6.5 + 16;
    items.push({ t: 'text', x: lx, y, s: this.tr('numbersAre'), size: 11, fill: p.fg });
    lx += this.tr('numbersAre').length * 6.5;
    const reps = this.sides[0].t.replicas;
    if (reps > 1) items.push({ t: 'text', x: lx + 16, y, s: `${reps} ${this.tr('replicas')}`, size: 11, fill: p.fg });
    return lx + 80 - x;
  }

  // ---- hover -------------------------------------------------------------------------------------------

  /** The readout of a hit: the element, its coordinate, its positions in each layout, and the bank of @m. */
  private readout(hit: string): string {
    const xs = [...this.elementsOf(hit)];
    if (!xs.length) return '';
    const x = xs[0];
    const coord = this.sides[0].t.shape.length > 1 ? `(${Math.floor(x / this.cols)}, ${x % this.cols})` : `(${x})`;
    const parts = this.sides.map((s) => {
      const k = s.t.axes.length;
      const pos: string[] = [];
      for (let r = 0; r < s.t.replicas; ++r) {
        const base = (x * s.t.replicas + r) * k;
        pos.push(`{${s.t.axes.map((a, i) => `${a}: ${s.t.values[base + i]}`).join(', ')}}`);
      }
      const mi = s.t.axes.indexOf('m');
      let bank = '';
      if (mi >= 0) {
        const b = this.eng!.bankAccess(
          [this.wordAddress(s.t.values[x * s.t.replicas * k + mi] * this.elemBytes)],
          this.bankWidth(),
          null,
        );
        if (b.ok) bank = ` bank ${b.laneBank[0]}`;
      }
      return pos.join(' ') + bank;
    });
    return `x = ${x} ${coord} → ${parts.join(' | ')}${xs.length > 1 ? ` (+${xs.length - 1} more here)` : ''}`;
  }

  private hoverFrame = 0;
  private onMove(e: PointerEvent) {
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
    const out = this.renderRoot.querySelector('.readout');
    if (out) out.textContent = hit ? this.readout(hit) : this.tr('hoverHint');
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
      }}
    >
      ${super.renderView()}
    </div>`;
  }

  protected override useCanvas(): boolean {
    return this.scene?.items.some((it) => it.t === 'image') ?? false;
  }

  protected override updated(changed: Map<PropertyKey, unknown>) {
    super.updated(changed);
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
    return html`<p class="readout mono" aria-hidden="true">${this.tr('hoverHint')}</p>
      ${
        f
          ? html`<p class="mono derivation">${f.derivation}</p>
            ${this.hl.size > 1 ? html`<p>${this.hl.size} elements here: ${[...this.hl].join(', ')}</p>` : ''}`
          : html`<p>${this.tr('noSelection')}</p>`
      }`;
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

  /** The error with its caret under the input it is about: the shape field's errors under the shape. */
  private errorView(err: LsError): InputError {
    const onShape = err.field === 'shape';
    const onMesh = err.field === 'mesh' || this.errSource === 'mesh';
    const field = onShape ? 'shape' : onMesh ? 'mesh' : this.errSource;
    return {
      message: err.message,
      field: onShape || onMesh ? field : err.column > 0 ? field : err.field || field,
      text: onShape ? this.shape : onMesh ? this.mesh : field === 'compare' ? this.compare : this.layout,
      column: err.column,
    };
  }

  private exported?: { key: string; r: ReturnType<Engine['exportLayout']> };

  /** What each text was read as, and the layout in the syntax chosen under "export to" (the engine's export). */
  private formatView() {
    if (!this.read.length || !this.eng) return nothing;
    const names = [this.tr('layout'), this.tr('compare')];
    // asked once per inputs and syntax, not on every render (a click re-renders the form)
    const exKey = JSON.stringify([this.exportTo, this.read[0].layout, this.shapeNow, this.meshNow]);
    if (this.exported?.key !== exKey)
      this.exported = {
        key: exKey,
        r: this.eng.exportLayout(this.exportTo, this.read[0].layout, this.shapeNow, this.meshNow),
      };
    const ex = this.exported.r;
    return html`<div class="formats full">
      ${this.read.map(
        (n, k) =>
          html`<p class="detected" data-format=${n.format}>
            ${names[k]}: ${this.from === 'auto' ? this.tr('detected') : this.tr('readAs')} <strong>${FORMATS[n.format]}</strong>${
              n.format !== 'axe' ? html` → <code class="notation">${n.layout}</code>` : nothing
            }${n.shape ? ` (${n.shape.join('×')})` : ''}${n.notes.map((t) => html`<br /><small>${t}</small>`)}
          </p>`,
      )}
      <label
        >${this.tr('exportTo')}
        <select
          class="export-to"
          @change=${(e: Event) => {
            this.exportTo = (e.target as HTMLSelectElement).value as LsFormat;
            this.saveState();
          }}
        >
          ${EXPORT_FORMATS.map((f) => html`<option value=${f} ?selected=${this.exportTo === f}>${FORMATS[f]}</option>`)}
        </select></label
      >
      ${
        ex.ok
          ? html`<output class="exported mono">${ex.text}</output>`
          : renderInputError({
              message: ex.error.message,
              field: ex.error.field || this.exportTo,
              text: ex.error.column > 0 ? this.read[0].layout : '',
              column: ex.error.column,
            })
      }
    </div>`;
  }

  protected override controls() {
    const err = this.err;
    const checked = this.sides.every((s) => s.findings !== null);
    const findings = this.sides.flatMap((s, k) =>
      (s.findings ?? []).map((f) => ({ ...f, where: `${k ? 'compare ' : ''}${f.where}` })),
    );
    const memory = this.sides.some((s) => s.arr.width > 0 && s.arr.down[0] === 'm');
    return html`<form class="inputs" @submit=${this.apply}>
        <label>${this.tr('layout')} <input name="layout" size="44" spellcheck="false" .value=${this.layout} /></label>
        <label>${this.tr('shape')} <input name="shape" size="8" spellcheck="false" .value=${this.shape} /></label>
        <label>${this.tr('compare')} <input name="compare" size="30" spellcheck="false" placeholder=${this.tr('compareHint')} .value=${this.compare} /></label>
        <label
          >${this.tr('format')}
          <select name="from">
            <option value="auto" ?selected=${this.from === 'auto'}>${this.tr('autoDetect')}</option>
            ${(Object.keys(FORMATS) as LsFormat[]).map((f) => html`<option value=${f} ?selected=${this.from === f}>${FORMATS[f]}</option>`)}
          </select></label
        >
        <label>${this.tr('meshAxes')} <input name="mesh" size="10" spellcheck="false" placeholder="x=2,y=4" .value=${this.mesh} /></label>
        <button type="submit">${this.tr('apply')}</button>
      </form>
      ${err ? nothing : this.formatView()}
      <label
        >${this.tr('dtype')}
        <select class="dtype" @change=${(e: Event) => this.setOption('dtype', (e.target as HTMLSelectElement).value)}>
          ${DTYPES.map((d) => html`<option value=${d} ?selected=${this.dtype === d}>${d}</option>`)}
        </select></label
      >
      ${
        memory
          ? html`<label
            >${this.tr('rowWidth')}
            <select class="row-width" @change=${(e: Event) => this.setOption('rowWidth', (e.target as HTMLSelectElement).value)}>
              <option value="banks" ?selected=${this.rowWidth === 'banks'}>${this.tr('banksWidth')}</option>
              <option value="tile" ?selected=${this.rowWidth === 'tile'}>${this.tr('tileWidth')} (${this.cols})</option>
            </select></label
          >`
          : nothing
      }
      <label
        >${this.tr('colourBy')}
        <select class="colour" @change=${(e: Event) => this.setOption('colour', (e.target as HTMLSelectElement).value)}>
          <option value="col" ?selected=${this.colour === 'col'}>${this.tr('byCol')}</option>
          <option value="row" ?selected=${this.colour === 'row'}>${this.tr('byRow')}</option>
          <option value="index" ?selected=${this.colour === 'index'}>${this.tr('byIndex')}</option>
        </select></label
      >
      <div class="findings full">
        ${
          err
            ? renderInputError(this.errorView(err))
            : this.progress
              ? html`<p class="progress" role="status">
                  ${this.progress.what}
                  <progress max="1" value=${this.progress.done}>${Math.round(this.progress.done * 100)}%</progress>
                </p>`
              : !checked
                ? html`<p class="checking">${this.tr('checking')}</p>`
                : findings.length
                  ? html`<ul>${findings.map((f) => html`<li><strong>${f.severity}</strong> ${f.code}: ${f.message}${f.where ? ` [${f.where}]` : ''}</li>`)}</ul>`
                  : html`<p>${this.tr('noFindings')}</p>`
        }
      </div>`;
  }

  override render() {
    if (this.eng && !this.sides.length && !this.inputError) {
      // invalid input: keep the form and the message, draw nothing
      return html`<div class="bar">${this.controls()}</div>`;
    }
    return super.render();
  }
}

/** A colour table: `lut` spread over `n` values of index(x) (the logical column, row or index). */
interface Colours {
  lut: [number, number, number][];
  n: number;
  index: (x: number) => number;
}

/** Cells [from, to) of a view's raster in one pass over typed arrays: RGBA packed as one little-endian word a cell
 * (what ImageData holds), colours from a packed copy of the colour table. Same colours as colourOf. */
function fillRaster(
  out: Uint32Array,
  { cellAt, replicas, outOfRange }: RasterSource,
  colours: Colours,
  cols: number,
  by: Colour,
  emptyRgb: [number, number, number],
  badRgb: [number, number, number],
  from: number,
  to: number,
) {
  const pack = ([r, g, b]: [number, number, number]) => (0xff000000 | (b << 16) | (g << 8) | r) >>> 0;
  const lut = Uint32Array.from(colours.lut, pack);
  const steps = lut.length,
    n = colours.n;
  const empty = pack(emptyRgb),
    bad = pack(badRgb);
  const end = Math.min(to, out.length);
  for (let at = from; at < end; ++at) {
    let x = at;
    if (cellAt) {
      const i = cellAt[at];
      if (i < 0) {
        out[at] = empty;
        continue;
      }
      if (outOfRange && outOfRange[i] === 1) {
        out[at] = bad;
        continue;
      }
      x = Math.floor(i / replicas);
    }
    const k = by === 'col' ? x % cols : by === 'row' ? Math.floor(x / cols) : x;
    out[at] = lut[Math.min(steps - 1, Math.floor((k * steps) / n))];
  }
}

/** The next task: a large layout's preparation yields between slices, so input and paint come in between. */
function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => resolve();
    ch.port2.postMessage(null);
  });
}

function hexRgb(h: string): [number, number, number] {
  const v = parseInt(h.slice(1, 7), 16);
  return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
}

customElements.define('ls-playground', LsPlayground);
