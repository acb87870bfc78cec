// <ls-tmem>: TMEM at full size, 128 lanes x 512 columns (65,536 cells: one raster, a pixel per cell, on a
// canvas). The layout is the accumulator S[(128,256):(1@TLane,1@TCol)] or one of the tcgen05 MMA datapath
// layouts A-G (per-CTA view, as TIRx tmem_datapath_layout documents them). Click a cell -> the logical element(s) there.
import { html } from 'lit';
import { must, type LsMapping, type LsTable } from '../core/engine.js';
import { LsFigure } from '../core/figure.js';
import { drawScene, rgbOf, type Item, type RectItem, type Scene } from '../core/scene.js';
import { legend } from './draw.js';
import type { Palette } from '../core/theme.js';

const LANES = 128;
const COLS = 512;

/** Datapath layouts over a logical (rows, N) buffer; N is the logical column count. */
export const DATAPATHS: Record<string, { rows: number; label: string; layout: (n: number) => string }> = {
  acc: { rows: 128, label: 'accumulator 128×N', layout: (n) => `S[(128,${n}):(1@TLane,1@TCol)]` },
  A: { rows: 128, label: 'A: M=256 cta_group::2', layout: (n) => `S[(128,${n}):(1@TLane,1@TCol)]` },
  B: { rows: 64, label: 'B: M=128 cta_group::2 dense', layout: (n) => `S[(64,2,${n / 2}):(1@TLane,64@TLane,1@TCol)]` },
  C: { rows: 64, label: 'C: M=128 cta_group::2 sparse', layout: (n) => `S[(4,16,${n}):(32@TLane,1@TLane,1@TCol)]` },
  D: { rows: 128, label: 'D: M=128 cta_group::1', layout: (n) => `S[(128,${n}):(1@TLane,1@TCol)]` },
  E: { rows: 64, label: 'E: M=64 .ws', layout: (n) => `S[(64,2,${n / 2}):(1@TLane,64@TLane,1@TCol)]` },
  F: { rows: 64, label: 'F: M=64', layout: (n) => `S[(4,16,${n}):(32@TLane,1@TLane,1@TCol)]` },
  G: { rows: 32, label: 'G: M=32 .ws', layout: (n) => `S[(32,4,${n / 4}):(1@TLane,32@TLane,1@TCol)]` },
};

export class LsTmem extends LsFigure {
  static override properties = { ...LsFigure.properties, datapath: { type: String }, n: { type: Number } };
  datapath = 'acc';
  n = 256;
  protected readonly defaultKey = 'tmem';
  private t?: LsTable;
  /** element at each TMEM cell (lane * 512 + col), -1 when empty: an index over the engine's table */
  private at = new Int32Array(LANES * COLS);
  private lane = 0;
  private col = 1;
  private base?: { scene: Scene; bitmap: HTMLCanvasElement; theme: string };
  private hits: number[] = [];
  private mapping?: LsMapping;
  private grid: string[][] = [];
  /** click -> painted latency of the last selection, ms (read by the benchmark) */
  lastLatencyMs = 0;
  private clickAt = 0;

  private readonly cw = 2;
  private readonly ch = 3;
  private readonly ox = 44;
  private readonly oy = 22;

  get layout() {
    return (DATAPATHS[this.datapath] ?? DATAPATHS.acc).layout(this.n);
  }
  get shape() {
    return `${(DATAPATHS[this.datapath] ?? DATAPATHS.acc).rows},${this.n}`;
  }
  protected title_() {
    return `${this.tr('tmemTitle')}: ${this.layout}`;
  }
  protected override useCanvas() {
    return true;
  }
  protected override extraState() {
    return { dp: this.datapath, n: this.n };
  }
  protected override applyExtraState(s: Record<string, string>) {
    if (s.dp && s.dp in DATAPATHS) this.datapath = s.dp;
    if (s.n && [64, 128, 256, 512].includes(Number(s.n))) this.n = Number(s.n);
  }

  protected override recompute() {
    if (!this.eng) return;
    const t = must(this.eng.table(this.layout, this.shape));
    this.t = t;
    this.lane = t.axes.indexOf('TLane');
    this.col = t.axes.indexOf('TCol');
    this.at.fill(-1);
    const k = t.axes.length;
    for (let x = 0; x < t.elements; ++x)
      for (let r = 0; r < t.replicas; ++r) {
        const o = (x * t.replicas + r) * k;
        const l = t.values[o + this.lane],
          c = t.values[o + this.col];
        if (l >= 0 && l < LANES && c >= 0 && c < COLS) this.at[l * COLS + c] = x;
      }
    this.base = undefined;
    this.grid = Array.from({ length: LANES }, (_, l) => Array.from({ length: COLS }, (_, c) => `T:${l}:${c}`));
    this.selectionChanged();
  }

  override select(hit: string | null) {
    this.clickAt = performance.now();
    super.select(hit);
  }

  protected override selectionChanged() {
    this.hits = [];
    this.mapping = undefined;
    const s = this.selection;
    if (!s || !this.eng) return;
    const [l, c] = s.split(':').slice(1).map(Number);
    const x = this.at[l * COLS + c];
    if (x < 0) return;
    this.hits = [x];
    const f = this.eng.forward(this.layout, this.shape, x);
    if (f.ok) this.mapping = f;
  }

  private setDatapath(d: string) {
    this.datapath = d;
    this.selection = null;
    this.recompute();
    this.saveState();
    this.requestUpdate();
  }
  private setN(n: number) {
    this.n = n;
    this.selection = null;
    this.recompute();
    this.saveState();
    this.requestUpdate();
  }

  protected navGrid(): string[][] {
    return this.grid;
  }

  /** Every cell, coloured by logical row band (16 rows); built once per layout and theme. */
  private baseScene(p: Palette): { scene: Scene; bitmap: HTMLCanvasElement; theme: string } {
    if (this.base && this.base.theme === `${p.name}|${this.language}`) return this.base;
    const cols = this.t!.shape[this.t!.shape.length - 1];
    // One pixel per cell, scaled up without smoothing: the export is one PNG instead of 65,536 rectangles.
    const pixels = new Uint8ClampedArray(LANES * COLS * 4);
    const empty = rgbOf(p.cell),
      bands = p.cat.map(rgbOf);
    for (let i = 0; i < LANES * COLS; ++i) {
      const x = this.at[i];
      pixels.set(x < 0 ? empty : bands[Math.floor(Math.floor(x / cols) / 16) % 8], 4 * i);
      pixels[4 * i + 3] = 255;
    }
    const items: Item[] = [
      { t: 'image', x: this.ox, y: this.oy, w: COLS * this.cw, h: LANES * this.ch, pw: COLS, ph: LANES, pixels },
    ];
    for (let l = 0; l <= LANES; l += 32)
      items.push({
        t: 'line',
        x1: this.ox - 4,
        y1: this.oy + l * this.ch,
        x2: this.ox + COLS * this.cw,
        y2: this.oy + l * this.ch,
        stroke: p.fg,
        sw: 1,
      });
    for (let l = 0; l < LANES; l += 32)
      items.push({
        t: 'text',
        x: this.ox - 6,
        y: this.oy + l * this.ch + 6,
        s: `${l}`,
        size: 10,
        fill: p.muted,
        anchor: 'end',
      });
    for (let c = 0; c <= COLS; c += 64)
      items.push({ t: 'text', x: this.ox + c * this.cw, y: 10, s: `${c}`, size: 10, fill: p.muted, anchor: 'middle' });
    items.push({ t: 'text', x: 4, y: this.oy + LANES * this.ch + 12, s: 'TLane ↓  TCol →', size: 10, fill: p.muted });
    const ly = legend(items, p, 4, this.oy + LANES * this.ch + 32, [
      { fill: p.cat[0], text: this.tr('lgTmemBand') },
      { fill: p.cell, text: this.tr('emptyCell') },
      { stroke: p.select, text: this.tr('lgSelected') },
    ]);
    const scene: Scene = {
      width: this.ox + COLS * this.cw + 12,
      height: ly,
      background: p.bg,
      items,
    };
    const bitmap = document.createElement('canvas');
    const dpr = Math.min(2, window.devicePixelRatio || 1);
    bitmap.width = scene.width * dpr;
    bitmap.height = scene.height * dpr;
    const ctx = bitmap.getContext('2d')!;
    ctx.scale(dpr, dpr);
    drawScene(ctx, scene);
    this.base = { scene, bitmap, theme: `${p.name}|${this.language}` };
    return this.base;
  }

  private overlay(p: Palette): Item[] {
    const items: Item[] = [];
    const t = this.t!;
    const cols = t.shape[t.shape.length - 1];
    const mark = (l: number, c: number, stroke: string, sw: number, dash?: string): RectItem => ({
      t: 'rect',
      x: this.ox + c * this.cw - 2,
      y: this.oy + l * this.ch - 2,
      w: this.cw + 4,
      h: this.ch + 4,
      fill: 'none',
      stroke,
      sw,
      dash,
    });
    if (this.hits.length) {
      // the selected element's logical row, wherever the datapath folded it
      const row = Math.floor(this.hits[0] / cols);
      const k = t.axes.length;
      for (let x = row * cols; x < (row + 1) * cols; ++x) {
        const o = x * t.replicas * k;
        items.push({
          t: 'rect',
          x: this.ox + t.values[o + this.col] * this.cw,
          y: this.oy + t.values[o + this.lane] * this.ch,
          w: this.cw,
          h: this.ch,
          fill: p.related,
        });
      }
    }
    const s = this.selection;
    if (s) {
      const [l, c] = s.split(':').slice(1).map(Number);
      items.push(mark(l, c, p.select, 2));
    }
    const cur = this.cursorHit();
    if (cur && cur !== s) {
      const [l, c] = cur.split(':').slice(1).map(Number);
      items.push(mark(l, c, p.related, 1.5, '2 1'));
    }
    return items;
  }

  protected buildScene(p: Palette): Scene {
    const base = this.baseScene(p);
    return { ...base.scene, items: base.scene.items.concat(this.overlay(p)) };
  }

  protected override paintCanvas(canvas: HTMLCanvasElement, scene: Scene) {
    const base = this.base!;
    if (canvas.width !== base.bitmap.width) {
      canvas.width = base.bitmap.width;
      canvas.height = base.bitmap.height;
    }
    const ctx = canvas.getContext('2d')!;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.drawImage(base.bitmap, 0, 0);
    const dpr = base.bitmap.width / scene.width;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    drawScene(ctx, scene, scene.items.slice(base.scene.items.length), false);
    if (this.clickAt) {
      this.lastLatencyMs = performance.now() - this.clickAt;
      this.clickAt = 0;
      this.dataset.latency = this.lastLatencyMs.toFixed(3);
    }
  }

  protected override canvasHit(x: number, y: number): string | null {
    const c = Math.floor((x - this.ox) / this.cw),
      l = Math.floor((y - this.oy) / this.ch);
    return l >= 0 && l < LANES && c >= 0 && c < COLS ? `T:${l}:${c}` : null;
  }

  protected announce(): string {
    const s = this.selection;
    if (!s) return this.tr('noSelection');
    const [l, c] = s.split(':').slice(1).map(Number);
    const f = this.mapping;
    return f
      ? `TLane ${l}, TCol ${c}: ${this.tr('element')} (${f.coord.join(', ')}), x = ${f.index}`
      : `TLane ${l}, TCol ${c}: ${this.tr('emptyCell')}`;
  }

  protected details() {
    const f = this.mapping;
    return html`<p class="mono cellinfo">${this.announce()}</p>${f ? html`<p class="mono derivation">${f.derivation}</p>` : ''}`;
  }

  protected exportData() {
    const t = this.t!;
    return {
      layout: this.layout,
      shape: t.shape,
      axes: t.axes,
      elements: t.elements,
      replicas: t.replicas,
      values: Array.from(t.values),
    };
  }

  protected override controls() {
    return html`<label>${this.tr('datapath')}
        <select class="datapath" @change=${(e: Event) => this.setDatapath((e.target as HTMLSelectElement).value)}>
          ${Object.entries(DATAPATHS).map(([k, d]) => html`<option value=${k} ?selected=${this.datapath === k}>${d.label}</option>`)}
        </select></label
      >
      <label>N
        <select class="ncols" @change=${(e: Event) => this.setN(Number((e.target as HTMLSelectElement).value))}>
          ${[64, 128, 256, 512].map((n) => html`<option value=${n} ?selected=${this.n === n}>${n}</option>`)}
        </select></label
      >
      <span class="mono">${this.layout}</span>`;
  }
}

customElements.define('ls-tmem', LsTmem);
