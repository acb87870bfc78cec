// <ls-fragment>: the m8n8 register fragment S[(8,4,2):(4@laneid,1@laneid,1@reg)]. Logical 8x8 and the warp's
// 32 lanes x 2 slots (lanes drawn 4 per row); click a cell -> its lane and slot, click a lane -> its elements.
import { html } from 'lit';
import { must, type LsMapping } from '../core/engine.js';
import { LsFigure } from '../core/figure.js';
import type { Item, Scene } from '../core/scene.js';
import type { Palette } from '../core/theme.js';
import { cell, label, small, textOn } from './draw.js';

export class LsFragment extends LsFigure {
  static override properties = { ...LsFigure.properties, layout: { type: String }, shape: { type: String } };
  layout = 'S[(8,4,2):(4@laneid,1@laneid,1@reg)]';
  shape = '8,8';
  protected readonly defaultKey = 'fragment';
  protected override requiredAttributes() {
    return ['layout'];
  }
  private maps: LsMapping[] = [];
  private laneAxis = 0;
  private regAxis = 1;
  private lanes = 32;
  private slots = 2;
  private rows = 8;
  private cols = 8;
  private highlighted = new Set<number>();

  protected title_() {
    return `${this.tr('logical88')} / ${this.tr('lanes')}: ${this.layout}`;
  }

  protected override recompute() {
    if (!this.eng) return;
    const t = must(this.eng.table(this.layout, this.shape));
    this.laneAxis = t.axes.indexOf('laneid');
    this.regAxis = t.axes.indexOf('reg');
    this.lanes = t.max[this.laneAxis] + 1;
    this.slots = this.regAxis >= 0 ? t.max[this.regAxis] + 1 : 1;
    this.rows = t.shape.length > 1 ? t.shape[0] : 1;
    this.cols = t.shape[t.shape.length - 1];
    this.maps = Array.from({ length: t.elements }, (_, x) => must(this.eng!.forward(this.layout, this.shape, x)));
    this.selectionChanged();
  }

  protected override selectionChanged() {
    this.highlighted = this.elementsOfSelection();
  }

  private laneOf(x: number) {
    return this.maps[x].positions[0][this.laneAxis];
  }
  private slotOf(x: number) {
    return this.regAxis >= 0 ? this.maps[x].positions[0][this.regAxis] : 0;
  }

  /** Elements named by the selection: a logical cell, or (by the engine's inverse) a lane or one slot. */
  private elementsOfSelection(): Set<number> {
    const s = this.selection;
    if (!s || !this.eng || !this.maps.length) return new Set();
    const parts = s.split(':').map(Number);
    if (s.startsWith('L:')) return new Set([parts[1]]);
    const query: Record<string, number> = { laneid: parts[1] };
    if (s.startsWith('S:')) query.reg = parts[2];
    const inv = this.eng.inverse(this.layout, this.shape, query);
    return new Set(inv.ok ? inv.hits.map((h) => h.index) : []);
  }

  private selectedLane(): number | null {
    const s = this.selection;
    if (!s) return null;
    if (s.startsWith('L:')) return this.maps[Number(s.split(':')[1])] ? this.laneOf(Number(s.split(':')[1])) : null;
    return Number(s.split(':')[1]);
  }

  protected navGrid(): string[][] {
    const g: string[][] = [];
    for (let r = 0; r < this.rows; ++r) g.push(Array.from({ length: this.cols }, (_, c) => `L:${r * this.cols + c}`));
    for (let r = 0; r < Math.ceil(this.lanes / 4); ++r)
      g.push(Array.from({ length: Math.min(4, this.lanes - r * 4) }, (_, c) => `N:${r * 4 + c}`));
    return g;
  }

  protected buildScene(p: Palette): Scene {
    const items: Item[] = [];
    const cs = 34;
    const ox = 40,
      oy = 44,
      px = 390;
    const cur = this.cursorHit();
    const hl = this.highlighted;
    const selLane = this.selectedLane();
    label(items, p, ox, 16, this.tr('logical88'));
    label(items, p, px, 16, this.tr('lanes'));
    for (let i = 0; i < this.rows; ++i) small(items, p, ox - 14, oy + i * cs + cs / 2, `r${i}`);
    for (let j = 0; j < this.cols; ++j) small(items, p, ox + j * cs + cs / 2, oy - 10, `c${j}`);
    const color = (lane: number) => p.cat[lane % p.cat.length];
    for (let x = 0; x < this.maps.length; ++x) {
      const i = Math.floor(x / this.cols),
        j = x % this.cols;
      const lane = this.laneOf(x);
      cell(items, p, ox + j * cs, oy + i * cs, cs, cs, color(lane), {
        hit: `L:${x}`,
        title: `(${i}, ${j}) x=${x}: ${this.tr('lane')} ${lane}, ${this.tr('slot')} ${this.slotOf(x)}`,
        selected: hl.has(x),
        related: selLane !== null && lane === selLane && !hl.has(x),
        cursor: cur === `L:${x}`,
      });
      // as CUTLASS and the PTX ISA draw fragments: thread (lane) and value (slot) in the cell, "T21 V1"
      const ink = textOn(p, color(lane));
      items.push({
        t: 'text',
        x: ox + j * cs + cs / 2,
        y: oy + i * cs + cs * 0.33,
        s: `T${lane}`,
        size: 11,
        fill: ink,
        anchor: 'middle',
        weight: 'bold',
      });
      items.push({
        t: 'text',
        x: ox + j * cs + cs / 2,
        y: oy + i * cs + cs * 0.7,
        s: `V${this.slotOf(x)}`,
        size: 10,
        fill: ink,
        anchor: 'middle',
      });
    }
    // lanes: 4 per row, each with its slots; the slot shows the element it holds
    const sw = 28,
      lw = this.slots * sw,
      gap = 14,
      lh = cs;
    const holder = new Map<string, number>();
    for (let x = 0; x < this.maps.length; ++x) holder.set(`${this.laneOf(x)}:${this.slotOf(x)}`, x);
    for (let lane = 0; lane < this.lanes; ++lane) {
      const r = Math.floor(lane / 4),
        c = lane % 4;
      const lx = px + c * (lw + gap + 18) + 18,
        ly = oy + r * lh;
      items.push({
        t: 'rect',
        x: lx - 18,
        y: ly,
        w: 17,
        h: lh - 2,
        fill: p.bg,
        hit: `N:${lane}`,
        title: `${this.tr('lane')} ${lane}`,
      });
      small(items, p, lx - 2, ly + lh / 2, `${lane}`, 'end');
      if (cur === `N:${lane}` || selLane === lane)
        items.push({
          t: 'rect',
          x: lx - 19,
          y: ly - 1,
          w: lw + 20,
          h: lh,
          fill: 'none',
          stroke: cur === `N:${lane}` ? p.related : p.select,
          sw: 2,
          dash: cur === `N:${lane}` ? '3 2' : undefined,
        });
      for (let s = 0; s < this.slots; ++s) {
        const x = holder.get(`${lane}:${s}`);
        cell(items, p, lx + s * sw, ly + 2, sw, lh - 6, color(lane), {
          hit: `S:${lane}:${s}`,
          title: `${this.tr('lane')} ${lane}, ${this.tr('slot')} ${s}${x !== undefined ? `: x=${x}` : ''}`,
          label: x !== undefined ? String(x) : '',
          selected: x !== undefined && hl.has(x),
          labelSize: 11,
        });
      }
    }
    const bottom = oy + Math.max(this.rows * cs, Math.ceil(this.lanes / 4) * lh);
    small(items, p, ox, bottom + 14, this.tr('fragLegend'), 'start');
    small(items, p, ox, bottom + 30, this.tr('fragLegend2'), 'start');
    return { width: px + 4 * (lw + gap + 18) + 10, height: bottom + 42, background: p.bg, items };
  }

  protected announce(): string {
    const s = this.selection;
    if (!s) return this.tr('noSelection');
    if (s.startsWith('L:')) {
      const x = Number(s.split(':')[1]);
      const f = this.maps[x];
      if (!f) return '';
      return `${this.tr('cell')} ${x} (${f.coord.join(', ')}): ${this.tr('lane')} ${this.laneOf(x)}, ${this.tr('slot')} ${this.slotOf(x)}`;
    }
    return `${this.tr('elementsOfLane')} ${s.split(':')[1]}: ${[...this.highlighted].sort((a, b) => a - b).join(', ')}`;
  }

  protected details() {
    const s = this.selection;
    if (!s) return html`<p>${this.tr('noSelection')}</p>`;
    if (s.startsWith('L:')) {
      const f = this.maps[Number(s.split(':')[1])];
      if (!f) return html``;
      return html`<p class="mono">(row, col) = (${f.coord.join(', ')}) → x = ${f.index}; (c0, c1, c2) = (${f.split.join(', ')})</p>
        <p class="mono">laneid = ${f.terms
          .filter((t) => t.axis === 'laneid')
          .map((t) => `${t.digit}·${t.k}`)
          .join(' + ')} = ${this.laneOf(f.index)}, reg = ${this.slotOf(f.index)}</p>
        <p class="mono derivation">${f.derivation}</p>`;
    }
    return html`<p class="mono">${this.announce()}</p>`;
  }

  protected exportData() {
    return {
      layout: this.layout,
      shape: this.shape.split(',').map(Number),
      axes: this.maps[0]?.axes ?? [],
      table: this.maps.map((f) => ({ index: f.index, coord: f.coord, positions: f.positions })),
    };
  }

  protected override controls() {
    return html`<span class="mono">${this.layout}</span>`;
  }
}

customElements.define('ls-fragment', LsFragment);
