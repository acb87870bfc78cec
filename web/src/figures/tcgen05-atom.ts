// <ls-tcgen05-atom>: the tcgen05.ld / tcgen05.st atom explorer. Pick a shape (32x32b, 16x64b, 16x128b, 16x256b,
// 16x32bx2), a repeat .xN and the TMEM lane; left, the warp's 32 threads x registers; right, the TMEM lanes x
// 32-bit columns the atom touches; a warpgroup strip shows which warps may issue it (warp w reaches lanes
// 32*(w%4)..+31). Every position comes from the engine's tmemAccess (its two layouts evaluated in C++); the
// selection is linked: a register cell lights its TMEM cell and the other way round.
import { html, type PropertyValues } from 'lit';
import { must } from '../core/engine.js';
import { LsFigure } from '../core/figure.js';
import type { LsTmemAccess } from '../generated/layoutscope.js';
import type { Item, Scene } from '../core/scene.js';
import type { Palette } from '../core/theme.js';
import { cell, label, legend, small, wrapText } from './draw.js';

/** Below this width (a phone) the TMEM grid goes under the threads, the warps two by two, the legend wraps. */
const NARROW = 600;

const SHAPES = ['32x32b', '16x64b', '16x128b', '16x256b', '16x32bx2'] as const;

export class LsTcgen05Atom extends LsFigure {
  static override properties = {
    ...LsFigure.properties,
    shape: { type: String },
    num: { type: Number },
    lane: { type: Number },
    op: { type: String },
  };
  shape = '16x128b';
  num = 1;
  lane = 0;
  op = 'ld';
  protected readonly defaultKey = 'atom5';
  private a?: LsTmemAccess;
  /** element index by "thread:reg" and by "row:col", both from the engine's cells */
  private byReg = new Map<string, number>();
  private byCell = new Map<string, number>();
  private hl = -1;
  /** laid out for a phone: one column, 24 px cells and 11 px text, nothing wider than the screen */
  private narrow = false;
  private resize?: ResizeObserver;

  override connectedCallback() {
    super.connectedCallback();
    this.resize = new ResizeObserver(() => {
      const narrow = this.clientWidth > 0 && this.clientWidth < NARROW;
      if (narrow === this.narrow) return;
      this.narrow = narrow;
      this.requestUpdate();
    });
    this.resize.observe(this);
  }
  override disconnectedCallback() {
    super.disconnectedCallback();
    this.resize?.disconnect();
  }

  protected title_() {
    return `${this.tr('atomTitle')}: ${this.a?.instruction ?? this.shape}`;
  }

  protected override extraState() {
    return { sh: this.shape, n: this.num, ln: this.lane, op: this.op };
  }
  protected override applyExtraState(s: Record<string, string>) {
    if (s.sh && (SHAPES as readonly string[]).includes(s.sh)) this.shape = s.sh;
    if (s.n && /^\d+$/.test(s.n)) this.num = Number(s.n);
    if (s.ln && /^\d+$/.test(s.ln)) this.lane = Number(s.ln);
    if (s.op === 'ld' || s.op === 'st') this.op = s.op;
  }

  /** This figure's own attributes recompute it when a host page changes them. */
  protected override willUpdate(changed: PropertyValues) {
    super.willUpdate(changed);
    if (this.eng && !changed.has('eng') && ['shape', 'num', 'lane', 'op'].some((k) => changed.has(k)))
      this.safely(() => this.recompute());
  }

  protected override recompute() {
    if (!this.eng) return;
    this.a = must(
      this.eng.m.tmemAccess({ shape: this.shape, num: this.num, lane: this.lane, store: this.op === 'st' }),
    );
    this.byReg.clear();
    this.byCell.clear();
    const c = this.a.cells;
    for (let x = 0; x * 6 < c.length; ++x) {
      this.byCell.set(`${c[6 * x]}:${c[6 * x + 1]}`, x);
      this.byReg.set(`${c[6 * x + 2]}:${c[6 * x + 3]}`, x);
    }
    this.selectionChanged();
  }

  /** The element a hit key names: R:thread:reg or M:row:col. */
  private elementOf(hit: string | null): number {
    if (!hit) return -1;
    const [k, a, b] = hit.split(':');
    const x = (k === 'R' ? this.byReg : this.byCell).get(`${a}:${b}`);
    return x ?? -1;
  }

  protected override selectionChanged() {
    this.hl = this.elementOf(this.selection);
  }

  private get rows() {
    return this.a ? this.a.shape[0] : 16;
  }
  private get cols() {
    return this.a ? this.a.shape[1] : 4;
  }

  protected navGrid(): string[][] {
    const g: string[][] = [];
    const regs = this.a?.registers ?? 1;
    for (let t = 0; t < 32; ++t) g.push(Array.from({ length: regs }, (_, r) => `R:${t}:${r}`));
    for (let r = 0; r < this.rows; ++r) g.push(Array.from({ length: this.cols }, (_, c) => `M:${r}:${c}`));
    return g;
  }

  private cellOf(x: number) {
    const c = this.a!.cells;
    return {
      row: c[6 * x],
      col: c[6 * x + 1],
      thread: c[6 * x + 2],
      reg: c[6 * x + 3],
      tlane: c[6 * x + 4],
      tcol: c[6 * x + 5],
    };
  }

  protected buildScene(p: Palette): Scene {
    const items: Item[] = [];
    const a = this.a!;
    const regs = a.registers;
    const cur = this.cursorHit();
    const curX = this.elementOf(cur);
    // sizes shrink with the repeat count so that x128 still fits a wide screen (the view scrolls beyond it); on a
    // phone the cells stay 24 px (a finger's target) and the text 11 px, and the grids are stacked
    const narrow = this.narrow;
    const rw = narrow
      ? Math.max(24, Math.min(40, Math.floor(300 / regs)))
      : Math.max(7, Math.min(34, Math.floor(560 / regs)));
    const rh = narrow ? 24 : 15;
    const ox = 46,
      oy = 74;
    const tick = (x: number, y: number, s: string, anchor: 'start' | 'middle' | 'end' = 'middle') =>
      narrow ? items.push({ t: 'text', x, y, s, size: 11, fill: p.muted, anchor }) : small(items, p, x, y, s, anchor);
    const color = (thread: number) => p.cat[thread % p.cat.length];
    label(items, p, ox, 16, this.tr('atomThreads'));
    tick(ox, 34, `${this.tr('atomRegs')} ${regs}`, 'start');
    for (let r = 0; r < regs; r += regs > 32 ? 16 : regs > 8 ? 4 : 1) tick(ox + r * rw + rw / 2, oy - 8, `r${r}`);
    const cellText = narrow ? 11 : 9;
    const showText = narrow ? rw >= 36 : rw >= 26;
    for (let t = 0; t < 32; ++t) {
      tick(ox - 6, oy + t * rh + rh / 2, `T${t}`, 'end');
      for (let r = 0; r < regs; ++r) {
        const x = this.byReg.get(`${t}:${r}`) ?? -1;
        const c = x >= 0 ? this.cellOf(x) : undefined;
        cell(items, p, ox + r * rw, oy + t * rh, rw, rh, color(t), {
          hit: `R:${t}:${r}`,
          title: c ? `T${t} r${r} → TLane ${c.tlane}, TCol ${c.tcol}` : `T${t} r${r}`,
          label: showText && c ? `${c.tlane},${c.tcol}` : undefined,
          labelSize: cellText,
          selected: x >= 0 && x === this.hl,
          cursor: cur === `R:${t}:${r}`,
          related: x >= 0 && x === curX && cur !== `R:${t}:${r}`,
        });
      }
    }
    // TMEM footprint: lanes down, 32-bit columns across, labelled with the holding thread and register (beside
    // the threads, or under them on a phone)
    const px = narrow ? ox : ox + Math.max(regs * rw, 190) + 60;
    const py = narrow ? oy + 32 * rh + 76 : oy;
    const cw = narrow
      ? Math.max(24, Math.min(60, Math.floor(300 / this.cols)))
      : Math.max(8, Math.min(40, Math.floor(640 / this.cols)));
    const ch = narrow ? 24 : 22;
    label(items, p, px, py - 58, this.tr('atomTmem'));
    tick(
      px,
      py - 40,
      `${this.tr('lanesWord')} ${a.lanes[0]}…${a.lanes[1] - 1}, TCol ${a.columns[0]}…${a.columns[1] - 1}`,
      'start',
    );
    const labels = narrow ? cw >= 40 : cw >= 30;
    let firstLane = Infinity,
      firstCol = Infinity;
    for (let x = 0; x * 6 < a.cells.length; ++x) {
      firstLane = Math.min(firstLane, a.cells[6 * x + 4]);
      firstCol = Math.min(firstCol, a.cells[6 * x + 5]);
    }
    for (let x = 0; x * 6 < a.cells.length; ++x) {
      const c = this.cellOf(x);
      cell(items, p, px + c.col * cw, py + c.row * ch, cw, ch, color(c.thread), {
        hit: `M:${c.row}:${c.col}`,
        title: `TLane ${c.tlane}, TCol ${c.tcol} ← T${c.thread} r${c.reg}`,
        label: labels ? `T${c.thread}.${c.reg}` : undefined,
        labelSize: cellText,
        selected: x === this.hl,
        cursor: cur === `M:${c.row}:${c.col}`,
        related: x === curX && cur !== `M:${c.row}:${c.col}`,
      });
    }
    for (let r = 0; r < this.rows; ++r) tick(px - 6, py + r * ch + ch / 2, String(firstLane + r), 'end');
    const step = this.cols > 32 ? 16 : this.cols > 8 ? 4 : 1;
    for (let c = 0; c < this.cols; c += step) {
      // the footprint's columns as TMEM columns: 16x32bx2's second half sits at the split offset
      const x = this.byCell.get(`0:${c}`);
      tick(px + c * cw + cw / 2, py - 8, String(x !== undefined ? this.cellOf(x).tcol : firstCol + c));
    }
    // the warpgroup: warp w reaches the slab 32*(w%4) .. +31; the atom's slab is lit (two by two on a phone)
    const warpsTitle = wrapText(this.tr('atomWarps'), narrow ? 300 : Infinity, 12.6);
    const wy =
      (narrow ? py + this.rows * ch + 34 : oy + Math.max(32 * rh, this.rows * ch) + 34) + 17 * (warpsTitle.length - 1);
    warpsTitle.forEach((line, i) => label(items, p, ox, wy - 10 - 17 * (warpsTitle.length - 1 - i), line, 12));
    const perRow = narrow ? 2 : 4;
    for (let w = 0; w < 4; ++w) {
      const on = w === a.slab;
      const bx = ox + (w % perRow) * 150,
        by = wy + Math.floor(w / perRow) * 34;
      items.push({
        t: 'rect',
        x: bx,
        y: by,
        w: 140,
        h: 26,
        fill: on ? p.cat[1] : p.cell,
        stroke: on ? p.select : p.grid,
        sw: on ? 2 : 0.5,
        title: `warp ${w} (+4k): TLane ${32 * w}…${32 * w + 31}`,
      });
      items.push({
        t: 'text',
        x: bx + 70,
        y: by + 13,
        s: `warp ${w}: TLane ${32 * w}–${32 * w + 31}`,
        size: 11,
        fill: on ? p.catText[1] : p.muted,
        anchor: 'middle',
      });
    }
    const wide = narrow ? 300 : Infinity;
    const ly = legend(
      items,
      p,
      ox,
      wy + 52 + (narrow ? 34 : 0),
      [
        { text: this.tr(narrow ? 'atomLegend1Top' : 'atomLegend1') },
        { text: this.tr(narrow ? 'atomLegend2Below' : 'atomLegend2') },
        { stroke: p.select, text: this.tr('atomLegend3') },
      ],
      wide,
    );
    const width = narrow
      ? Math.max(ox + regs * rw, px + this.cols * cw, ox + 300) + 8
      : Math.max(px + this.cols * cw + 20, ox + 620);
    return { width, height: ly + 4, background: p.bg, items };
  }

  protected announce(): string {
    if (!this.selection || this.hl < 0 || !this.a) return this.tr('noSelection');
    const c = this.cellOf(this.hl);
    return `T${c.thread} (warp ${this.a.warp}) r${c.reg} ↔ TLane ${c.tlane}, TCol ${c.tcol}`;
  }

  protected details() {
    const a = this.a;
    if (!a) return html``;
    return html`<p class="mono">${a.instruction}</p>
      <p class="mono">threads ${a.threads}</p>
      <p class="mono">TMEM ${a.tmem}</p>
      <p class="mono sel">${this.announce()}</p>`;
  }

  protected exportData() {
    const a = this.a!;
    return {
      instruction: a.instruction,
      threads: a.threads,
      tmem: a.tmem,
      shape: a.shape,
      axes: ['row', 'col', 'laneid', 'reg', 'TLane', 'TCol'],
      cells: Array.from(a.cells),
    };
  }

  private set(k: 'shape' | 'num' | 'lane' | 'op', v: string) {
    if (k === 'shape') {
      this.shape = v;
      // keep the repeat and the lane legal for the new shape: the engine says how far .xN goes
      const probe = this.eng?.m.tmemAccess({ shape: v });
      if (probe?.ok) this.num = Math.min(this.num, probe.maxNum);
      if (v === '32x32b') this.lane -= this.lane % 32;
    } else if (k === 'op') this.op = v;
    else this[k] = Number(v);
    this.selection = null;
    this.safely(() => this.recompute());
    this.saveState();
  }

  protected override controls() {
    const maxNum = this.a?.maxNum ?? 128;
    const nums: number[] = [];
    for (let n = 1; n <= maxNum; n *= 2) nums.push(n);
    const laneStep = this.shape === '32x32b' ? 32 : 16;
    const lanes: number[] = [];
    for (let l = 0; l < 128; l += laneStep) lanes.push(l);
    const sel = (k: 'shape' | 'num' | 'lane' | 'op', name: string, values: (string | number)[], cur: string | number) =>
      html`<label
        >${name}
        <select class=${k} @change=${(e: Event) => this.set(k, (e.target as HTMLSelectElement).value)}>
          ${values.map((v) => html`<option value=${v} ?selected=${String(v) === String(cur)}>${v}</option>`)}
        </select></label
      >`;
    return html`${sel('op', this.tr('atomOp'), ['ld', 'st'], this.op)} ${sel('shape', this.tr('atomShape'), [...SHAPES], this.shape)}
    ${sel('num', '.x', nums, this.num)} ${sel('lane', 'TLane', lanes, this.lane)}`;
  }
}

customElements.define('ls-tcgen05-atom', LsTcgen05Atom);
