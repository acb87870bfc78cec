// <ls-scale-factors>: SFA 128x4 packed into the 32-lane base tile and replicated to four partitions by
// .warpx4: S[(4,32,4):(1@TCol,1@TLane,1@byte)] + R[4:32@TLane]. Colour = TCol (Mgroup, the packing "four");
// bands = replica r (partition, the copying "four"). Positions come from the engine's table.
import { html } from 'lit';
import { must, position, type LsMapping, type LsTable } from '../core/engine.js';
import { LsFigure } from '../core/figure.js';
import type { Item, Scene } from '../core/scene.js';
import type { Palette } from '../core/theme.js';
import { cell, label, small } from './draw.js';
import { mappingOf, selectedElements } from './selection.js';

export class LsScaleFactors extends LsFigure {
  static override properties = { ...LsFigure.properties, layout: { type: String }, shape: { type: String } };
  layout = 'S[(4,32,4):(1@TCol,1@TLane,1@byte)] + R[4:32@TLane]';
  shape = '128,4';
  protected readonly defaultKey = 'sf';
  protected override requiredAttributes() {
    return ['layout'];
  }
  private t?: LsTable;
  private ax = { TCol: 0, TLane: 1, byte: 2 };
  private hl = new Set<number>();
  private mapping?: LsMapping;

  protected title_() {
    return `${this.tr('sfaTitle')} → ${this.tr('tmemPart')}: ${this.layout}`;
  }

  protected override recompute() {
    if (!this.eng) return;
    this.t = must(this.eng.table(this.layout, this.shape));
    const a = this.t.axes;
    this.ax = { TCol: a.indexOf('TCol'), TLane: a.indexOf('TLane'), byte: a.indexOf('byte') };
    this.selectionChanged();
  }

  protected override selectionChanged() {
    this.hl.clear();
    this.mapping = undefined;
    if (!this.selection || !this.eng) return;
    this.hl = selectedElements(this.eng, this.layout, this.shape, this.selection, ([TLane, TCol, byte]) => ({
      TLane,
      TCol,
      byte,
    }));
    if (this.hl.size === 1) this.mapping = mappingOf(this.eng, this.layout, this.shape, [...this.hl][0]);
  }

  protected navGrid(): string[][] {
    // the SFA drawn as four blocks of 32 rows side by side: display row i, block g, column k
    return Array.from({ length: 32 }, (_, i) => {
      const row: string[] = [];
      for (let g = 0; g < 4; ++g) for (let k = 0; k < 4; ++k) row.push(`L:${(g * 32 + i) * 4 + k}`);
      return row;
    });
  }

  protected buildScene(p: Palette): Scene {
    const items: Item[] = [];
    const t = this.t!;
    const cur = this.cursorHit();
    const cw = 15,
      ch = 13,
      ox = 34,
      oy = 50;
    label(items, p, ox, 14, this.tr('sfaTitle'));
    small(items, p, ox, 32, 'SFA[m, sfk]: m = 32·block + row', 'start');
    for (let x = 0; x < t.elements; ++x) {
      const m = Math.floor(x / 4),
        k = x % 4;
      const g = Math.floor(m / 32),
        i = m % 32;
      const tcol = position(t, x, 0)[this.ax.TCol];
      cell(items, p, ox + g * (4 * cw + 10) + k * cw, oy + i * ch, cw, ch, p.cat[tcol % 8], {
        hit: `L:${x}`,
        title: `SFA[${m}, ${k}]`,
        selected: this.hl.has(x),
        cursor: cur === `L:${x}`,
      });
    }
    for (let g = 0; g < 4; ++g) small(items, p, ox + g * (4 * cw + 10) + 2 * cw, oy - 8, `m ${g * 32}…${g * 32 + 31}`);
    for (let i = 0; i < 32; i += 8) small(items, p, ox - 6, oy + i * ch + ch / 2, String(i), 'end');
    // TMEM: TLane rows x (TCol, byte) columns
    const px = ox + 4 * (4 * cw + 10) + 90,
      rh = 3.5,
      bw = 16;
    const lanes = t.max[this.ax.TLane] + 1,
      tcols = t.max[this.ax.TCol] + 1,
      bytes = t.max[this.ax.byte] + 1;
    label(items, p, px, 14, this.tr('tmemPart'));
    for (let c = 0; c < tcols; ++c) small(items, p, px + (c * bytes + bytes / 2) * bw, oy - 22, `TCol ${c}`);
    for (let c = 0; c < tcols * bytes; ++c) small(items, p, px + c * bw + bw / 2, oy - 8, String(c % bytes));
    const marks: Item[] = [];
    for (let x = 0; x < t.elements; ++x)
      for (let r = 0; r < t.replicas; ++r) {
        const pos = position(t, x, r);
        const lane = pos[this.ax.TLane],
          tcol = pos[this.ax.TCol],
          byte = pos[this.ax.byte];
        const X = px + (tcol * bytes + byte) * bw,
          Y = oy + lane * rh;
        items.push({
          t: 'rect',
          x: X,
          y: Y,
          w: bw,
          h: rh,
          fill: p.cat[tcol % 8],
          hit: `P:${lane}:${tcol}:${byte}`,
          title: `TLane ${lane}, TCol ${tcol}, byte ${byte}`,
        });
        if (this.hl.has(x))
          marks.push({
            t: 'rect',
            x: X - 1,
            y: Y - 2,
            w: bw + 2,
            h: rh + 4,
            fill: p.selectFill,
            stroke: p.select,
            sw: 1.5,
          });
      }
    // partitions = replicas: label each at the lowest TLane of replica r (engine table)
    for (let r = 0; r < t.replicas; ++r) {
      let lo = Infinity,
        hi = -Infinity;
      for (let x = 0; x < t.elements; ++x) {
        const lane = position(t, x, r)[this.ax.TLane];
        lo = Math.min(lo, lane);
        hi = Math.max(hi, lane);
      }
      items.push({
        t: 'line',
        x1: px - 70,
        y1: oy + lo * rh,
        x2: px + tcols * bytes * bw,
        y2: oy + lo * rh,
        stroke: p.fg,
        sw: 1.5,
      });
      small(items, p, px - 6, oy + ((lo + hi + 1) / 2) * rh - 6, `partition ${r}`, 'end');
      small(items, p, px - 6, oy + ((lo + hi + 1) / 2) * rh + 7, `TLane ${lo}…${hi}`, 'end');
    }
    for (let c = 0; c <= tcols; ++c)
      items.push({
        t: 'line',
        x1: px + c * bytes * bw,
        y1: oy,
        x2: px + c * bytes * bw,
        y2: oy + lanes * rh,
        stroke: p.fg,
        sw: 1,
      });
    items.push(...marks);
    // legend of the two fours
    const ly = oy + Math.max(32 * ch, lanes * rh) + 22;
    for (let c = 0; c < tcols; ++c) {
      items.push({ t: 'rect', x: ox + c * 150, y: ly - 7, w: 14, h: 14, fill: p.cat[c % 8] });
      small(items, p, ox + c * 150 + 20, ly, `Mgroup ${c} → TCol ${c}`, 'start');
    }
    small(items, p, ox, ly + 22, this.tr('twoFours'), 'start');
    return { width: px + tcols * bytes * bw + 20, height: ly + 36, background: p.bg, items };
  }

  private positionsText(): string {
    const f = this.mapping;
    if (!f) return '';
    return f.positions
      .map((q) => [q[this.ax.TLane], q[this.ax.TCol], q[this.ax.byte]])
      .sort((a, b) => a[0] - b[0])
      .map((q) => `(${q.join(',')})`)
      .join(' ');
  }

  protected announce(): string {
    if (!this.selection) return this.tr('noSelection');
    const f = this.mapping;
    if (!f) return `${this.hl.size} ${this.tr('element')}`;
    return `SFA[${f.coord.join(', ')}] → (TLane, TCol, byte) ${this.positionsText()}`;
  }

  protected details() {
    const f = this.mapping;
    if (!this.selection) return html`<p>${this.tr('noSelection')}</p>`;
    if (!f) return html`<p>${this.announce()}</p>`;
    const q0 = f.replicaSteps[0]?.position ?? f.positions[0];
    return html`<p class="mono">SFA[${f.coord.join(', ')}]: (Mgroup, local_lane, sfk) = (${f.split.join(', ')}) → TCol ${q0[this.ax.TCol]}, local lane ${q0[this.ax.TLane]}, byte ${q0[this.ax.byte]}</p>
      <p class="mono positions">(TLane, TCol, byte): ${this.positionsText()}</p>
      <p class="mono derivation">${f.derivation}</p>`;
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
    return html`<span class="mono">${this.layout}</span>`;
  }
}

customElements.define('ls-scale-factors', LsScaleFactors);
