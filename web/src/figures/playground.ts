// <ls-playground>: any layout and logical shape. The validator's findings, the logical view (last extent as
// columns) and the physical view laid out by the axes the layout uses (first axis down, the others across),
// linked both ways through the engine's forward and inverse. No cap but the engine's own cell limit.
import { html } from 'lit';
import type { LsError, LsFinding, LsMapping, LsTable } from '../engine.js';
import { LsFigure, renderInputError, type InputError } from '../figure.js';
import { rgbOf, type Item, type Scene } from '../scene.js';
import type { Palette } from '../theme.js';
import { cell, label, small } from './draw.js';
import { mappingOf, selectedElements } from './selection.js';

/** Above this many table cells both views are drawn as rasters (see rasterViews). */
const RASTER_CELLS = 16384;
/** Largest raster (cells of a view's grid) the page draws; beyond it, one object per cell as before. */
const RASTER_AREA = 1 << 23;
/** Selection marks drawn at most (a position selection can name many elements). */
const MAX_MARKS = 4096;

export class LsPlayground extends LsFigure {
  static override properties = { ...LsFigure.properties, layout: { type: String }, shape: { type: String } };
  layout = 'S[(8,4,2):(4@laneid,1@laneid,1@reg)]';
  shape = '8,8';
  protected readonly defaultKey = 'play';
  private t?: LsTable;
  private err?: LsError;
  private findings: LsFinding[] = [];
  private hl = new Set<number>();
  private mapping?: LsMapping;
  /** physical row and column of each table cell (element x replica) */
  private physR = new Int32Array(0);
  private physC = new Int32Array(0);
  private physRows = 1;
  private physCols = 1;
  private rows = 1;
  private cols = 1;

  protected title_() {
    return `${this.layout} over (${this.shape})`;
  }
  protected override extraState() {
    return { layout: this.layout, shape: this.shape };
  }
  protected override applyExtraState(s: Record<string, string>) {
    if (s.layout) this.layout = s.layout;
    if (s.shape) this.shape = s.shape;
  }

  protected override recompute() {
    if (!this.eng) return;
    this.err = undefined;
    this.t = undefined;
    this.findings = [];
    const shape = this.shape.trim() === '' ? null : this.shape;
    const v = this.eng.validate(this.layout, shape);
    if (!v.ok) {
      this.err = v.error;
      return;
    }
    this.findings = v.findings;
    const t = this.eng.table(this.layout, shape);
    if (!t.ok) {
      this.err = t.error;
      return;
    }
    this.t = t;
    this.cols = t.shape[t.shape.length - 1];
    this.rows = t.elements / this.cols;
    // physical view: first axis down; the other axes mixed-radix across (their ranges from the table)
    const k = t.axes.length;
    const span = t.axes.map((_, a) => t.max[a] - t.min[a] + 1);
    this.physRows = k > 1 ? span[0] : Math.ceil(span[0] / Math.min(span[0], Math.max(8, this.cols)));
    this.physCols = k > 1 ? span.slice(1).reduce((a, b) => a * b, 1) : Math.min(span[0], Math.max(8, this.cols));
    const cells = t.elements * t.replicas;
    this.physR = new Int32Array(cells);
    this.physC = new Int32Array(cells);
    for (let i = 0; i < cells; ++i) {
      const o = i * k;
      if (k > 1) {
        let c = 0;
        for (let a = 1; a < k; ++a) c = c * span[a] + (t.values[o + a] - t.min[a]);
        this.physR[i] = t.values[o] - t.min[0];
        this.physC[i] = c;
      } else {
        const v0 = t.values[o] - t.min[0];
        this.physR[i] = Math.floor(v0 / this.physCols);
        this.physC[i] = v0 % this.physCols;
      }
    }
    this.selectionChanged();
  }

  /** The position of table cell i as the hit key's text: "3,17" (axis values in the table's order). */
  private posKey(i: number): string {
    const t = this.t!;
    const k = t.axes.length;
    return Array.from(t.values.subarray(i * k, i * k + k)).join(',');
  }

  protected override selectionChanged() {
    this.hl.clear();
    this.mapping = undefined;
    const s = this.selection;
    const t = this.t;
    if (!s || !this.eng || !t || !(s.startsWith('L:') || s.startsWith('P:'))) return;
    const shape = this.shape.trim() === '' ? null : this.shape;
    this.hl = selectedElements(this.eng, this.layout, shape, s, (vals) => Object.fromEntries(t.axes.map((a, i) => [a, vals[i]])));
    // several elements may share a position (a non-injective layout): the derivation shows the first
    if (this.hl.size >= 1) this.mapping = mappingOf(this.eng, this.layout, shape, [...this.hl][0]);
  }

  private apply(e: Event) {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    this.layout = (form.elements.namedItem('layout') as HTMLInputElement).value;
    this.shape = (form.elements.namedItem('shape') as HTMLInputElement).value;
    this.selection = null;
    this.recompute();
    this.saveState();
    this.requestUpdate();
  }

  protected navGrid(): string[][] {
    if (!this.t) return [];
    const rows = Math.min(this.rows, 4096);
    return Array.from({ length: rows }, (_, r) => Array.from({ length: this.cols }, (_, c) => `L:${r * this.cols + c}`));
  }

  protected buildScene(p: Palette): Scene {
    const items: Item[] = [];
    const t = this.t;
    if (!t) return { width: 300, height: 40, background: p.bg, items: [{ t: 'text', x: 8, y: 20, s: '—', fill: p.muted }] };
    const fit = (n: number, m: number) => Math.max(1, Math.min(30, Math.floor(440 / Math.max(n, m))));
    const cs = fit(this.rows, this.cols);
    const ps = fit(this.physRows, this.physCols);
    const ox = 30, oy = 40, px = ox + this.cols * cs + 60;
    const cur = this.cursorHit();
    label(items, p, ox, 14, `${this.tr('logical')} (${t.shape.join('×')})`);
    label(items, p, px, 14, `${this.tr('physical')}: ${t.axes[0]}${t.axes.length > 1 ? ' ↓ ' + t.axes.slice(1).join('·') + ' →' : ''}`);
    const cells = t.elements * t.replicas;
    if (cells > RASTER_CELLS && this.rows * this.cols <= RASTER_AREA && this.physRows * this.physCols <= RASTER_AREA) {
      this.rasterViews(items, p, ox, oy, cs, px, ps);
    } else {
      const big = cells > 4096;
      for (let x = 0; x < t.elements; ++x) {
        const r = Math.floor(x / this.cols), c = x % this.cols;
        cell(items, p, ox + c * cs, oy + r * cs, cs, cs, p.cat[r % 8], {
          hit: `L:${x}`,
          title: big ? undefined : `x=${x}`,
          label: cs >= 18 ? String(x) : undefined,
          labelSize: 9,
          selected: this.hl.has(x),
          cursor: cur === `L:${x}`,
        });
      }
      const seen = new Set<string>();
      for (let i = 0; i < cells; ++i) {
        const x = Math.floor(i / t.replicas);
        const key = this.posKey(i);
        const alias = seen.has(key);
        seen.add(key);
        cell(items, p, px + this.physC[i] * ps, oy + this.physR[i] * ps, ps, ps, p.cat[Math.floor(x / this.cols) % 8], {
          hit: `P:${key}`,
          title: big ? undefined : `${t.axes.map((a, j) => `${a}=${key.split(',')[j]}`).join(' ')}: x=${x}`,
          label: ps >= 18 && !alias ? String(x) : undefined,
          labelSize: 9,
          selected: this.hl.has(x),
        });
      }
    }
    small(items, p, ox, oy + this.rows * cs + 14, `${t.elements} elements × ${t.replicas} replicas`, 'start');
    return { width: px + this.physCols * ps + 20, height: oy + Math.max(this.rows * cs, this.physRows * ps) + 26, background: p.bg, items };
  }

  /** Both views as rasters, one pixel block per cell, with the selection and cursor drawn on top: the path for
   * tables of more than RASTER_CELLS cells, where one scene object per cell would take seconds. */
  private rasterViews(items: Item[], p: Palette, ox: number, oy: number, cs: number, px: number, ps: number) {
    const t = this.t!;
    const cols = this.cols, rows = this.rows, pc = this.physCols, pr = this.physRows;
    const cat = p.cat.map(rgbOf);
    const logical = new Uint8ClampedArray(rows * cols * 4);
    for (let x = 0; x < t.elements; ++x) {
      const [r, g, b] = cat[Math.floor(x / cols) % cat.length];
      logical.set([r, g, b, 255], x * 4);
    }
    const physical = new Uint8ClampedArray(pr * pc * 4);
    const [br, bg, bb] = rgbOf(p.cell);
    for (let o = 0; o < physical.length; o += 4) physical.set([br, bg, bb, 255], o);
    const cellAt = new Int32Array(pr * pc).fill(-1);  // first table cell at each physical place
    for (let i = 0; i < t.elements * t.replicas; ++i) {
      const at = this.physR[i] * pc + this.physC[i];
      if (cellAt[at] < 0) cellAt[at] = i;
      const [r, g, b] = cat[Math.floor(Math.floor(i / t.replicas) / cols) % cat.length];
      physical.set([r, g, b, 255], at * 4);
    }
    items.push({ t: 'image', x: ox, y: oy, w: cols * cs, h: rows * cs, pw: cols, ph: rows, pixels: logical,
      hitAt: (c, r) => (r * cols + c < t.elements ? `L:${r * cols + c}` : undefined) });
    items.push({ t: 'image', x: px, y: oy, w: pc * ps, h: pr * ps, pw: pc, ph: pr, pixels: physical,
      hitAt: (c, r) => (cellAt[r * pc + c] >= 0 ? `P:${this.posKey(cellAt[r * pc + c])}` : undefined) });
    // marks: at least 3 px wide so that one selected cell among a million can be seen
    const mark = (x: number, y: number, size: number, dash?: string) => {
      const m = Math.max(size, 3);
      items.push({ t: 'rect', x: x - (m - size) / 2, y: y - (m - size) / 2, w: m, h: m, fill: 'none', stroke: dash ? p.related : p.select, sw: dash ? 1 : 1.5, dash });
    };
    let marks = 0;
    for (const x of this.hl) {
      if (++marks > MAX_MARKS) break;
      mark(ox + (x % cols) * cs, oy + Math.floor(x / cols) * cs, cs);
      for (let r = 0; r < t.replicas; ++r) {
        const i = x * t.replicas + r;
        mark(px + this.physC[i] * ps, oy + this.physR[i] * ps, ps);
      }
    }
    const cur = this.cursorHit();
    if (cur?.startsWith('L:')) {
      const x = Number(cur.slice(2));
      mark(ox + (x % cols) * cs, oy + Math.floor(x / cols) * cs, cs, '2 1');
    }
  }

  protected announce(): string {
    if (!this.selection) return this.tr('noSelection');
    const f = this.mapping;
    return f ? `x = ${f.index} (${f.coord.join(', ')}) → ${f.positions.map((q) => `{${f.axes.map((a, i) => `${a}: ${q[i]}`).join(', ')}}`).join(' ')}` : '';
  }

  protected details() {
    const f = this.mapping;
    return html`${f ? html`<p class="mono derivation">${f.derivation}</p>${this.hl.size > 1 ? html`<p>${this.hl.size} elements here: ${[...this.hl].join(', ')}</p>` : ''}` : html`<p>${this.tr('noSelection')}</p>`}`;
  }

  protected exportData() {
    const t = this.t;
    return t ? { layout: this.layout, shape: t.shape, axes: t.axes, elements: t.elements, replicas: t.replicas, values: Array.from(t.values) } : { layout: this.layout, error: this.err };
  }

  /** The error with its caret under the input it is about: the shape field's errors under the shape. */
  private errorView(err: LsError): InputError {
    const onShape = err.field === 'shape';
    return { message: err.message, field: onShape ? 'shape' : err.column > 0 ? 'layout' : err.field, text: onShape ? this.shape : this.layout, column: err.column };
  }

  protected override controls() {
    const err = this.err;
    return html`<form class="inputs" @submit=${this.apply}>
        <label>${this.tr('layout')} <input name="layout" size="44" spellcheck="false" .value=${this.layout} /></label>
        <label>${this.tr('shape')} <input name="shape" size="8" spellcheck="false" .value=${this.shape} /></label>
        <button type="submit">${this.tr('apply')}</button>
      </form>
      <div class="findings full">
        ${err
          ? renderInputError(this.errorView(err))
          : this.findings.length
            ? html`<ul>${this.findings.map((f) => html`<li><strong>${f.severity}</strong> ${f.code}: ${f.message}${f.where ? ` [${f.where}]` : ''}</li>`)}</ul>`
            : html`<p>${this.tr('noFindings')}</p>`}
      </div>`;
  }

  override render() {
    if (this.eng && !this.t) {
      // invalid input: keep the form and the message, draw nothing
      return html`<div class="bar">${this.controls()}</div>`;
    }
    return super.render();
  }
}

customElements.define('ls-playground', LsPlayground);
