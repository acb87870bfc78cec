// <ls-tile-layout>: the chapter's 8x8 matrix in 2x4 tiles, S[(4,2,2,4):(16,4,8,1)]. Logical grid, physical
// memory grid (addresses wrapped 8 per row) and the memory strip; every number comes from the engine.
import { html, nothing } from 'lit';
import { must, type LsMapping } from '../engine.js';
import { LsFigure } from '../figure.js';
import type { Item, Scene } from '../scene.js';
import type { Palette } from '../theme.js';
import { cell, label, small } from './draw.js';

export class LsTileLayout extends LsFigure {
  static override properties = { ...LsFigure.properties, layout: { type: String }, shape: { type: String } };
  layout = 'S[(4,2,2,4):(16,4,8,1)]';
  shape = '8,8';
  protected readonly defaultKey = 'tile';
  private maps: LsMapping[] = [];
  private elementAt = new Map<number, number>();
  private rows = 8;
  private cols = 8;

  protected title_() {
    return `${this.tr('logical')} / ${this.tr('memory')}: ${this.layout}`;
  }

  protected override recompute() {
    if (!this.eng) return;
    const t = must(this.eng.table(this.layout, this.shape));
    this.rows = t.shape.length > 1 ? t.shape[0] : 1;
    this.cols = t.shape[t.shape.length - 1];
    this.maps = [];
    this.elementAt.clear();
    for (let x = 0; x < t.elements; ++x) {
      const f = must(this.eng.forward(this.layout, this.shape, x));
      this.maps.push(f);
      this.elementAt.set(f.positions[0][0], x);
    }
  }

  private addr(x: number) {
    return this.maps[x].positions[0][0];
  }
  /** The tile of x: its digits over the "outer" modes (c0, c2 for the chapter's 4-mode split). */
  private tileOf(x: number): number {
    const s = this.maps[x].split;
    return s.length === 4 ? s[0] * 2 + s[2] : 0;
  }
  private selectedElement(): number | null {
    const s = this.selection;
    if (!s) return null;
    const [kind, v] = s.split(':');
    const n = Number(v);
    if (kind === 'L') return n;
    return this.elementAt.get(n) ?? null;
  }

  protected navGrid(): string[][] {
    return Array.from({ length: this.rows }, (_, r) => Array.from({ length: this.cols }, (_, c) => `L:${r * this.cols + c}`));
  }

  protected buildScene(p: Palette): Scene {
    const items: Item[] = [];
    const cs = 34;
    const sel = this.selectedElement();
    const selTile = sel === null ? -1 : this.tileOf(sel);
    const cur = this.cursorHit();
    const ox = 40, oy = 44, px = 400;
    label(items, p, ox, 16, this.tr('logical88'));
    label(items, p, px, 16, this.tr('physicalMem'));
    for (let i = 0; i < this.rows; ++i) {
      small(items, p, ox - 14, oy + i * cs + cs / 2, `r${i}`);
      small(items, p, px - 14, oy + i * cs + cs / 2, `${i * this.cols}`, 'end');
    }
    for (let j = 0; j < this.cols; ++j) small(items, p, ox + j * cs + cs / 2, oy - 10, `c${j}`);
    const n = this.maps.length;
    for (let x = 0; x < n; ++x) {
      const i = Math.floor(x / this.cols), j = x % this.cols;
      const fill = p.cat[this.tileOf(x) % p.cat.length];
      const related = sel !== null && this.tileOf(x) === selTile && x !== sel;
      cell(items, p, ox + j * cs, oy + i * cs, cs, cs, fill, {
        hit: `L:${x}`,
        title: `(${i}, ${j}) x=${x} -> ${this.addr(x)}@m`,
        label: String(this.addr(x)),
        selected: x === sel,
        related,
        cursor: cur === `L:${x}`,
      });
      // physical: the cell at address a holds element x
      const a = this.addr(x);
      const pi = Math.floor(a / this.cols), pj = a % this.cols;
      cell(items, p, px + pj * cs, oy + pi * cs, cs, cs, fill, {
        hit: `P:${a}`,
        title: `@m ${a}: x=${x}`,
        label: String(x),
        selected: x === sel,
        related,
      });
    }
    // memory strip
    const sy = oy + this.rows * cs + 36;
    const sw = Math.min(13, 820 / Math.max(1, n));
    label(items, p, ox, sy - 14, this.tr('memoryStrip'), 12);
    for (let a = 0; a < n; ++a) {
      const x = this.elementAt.get(a);
      if (x === undefined) continue;
      cell(items, p, ox + a * sw, sy, sw, 26, p.cat[this.tileOf(x) % p.cat.length], {
        hit: `M:${a}`,
        title: `@m ${a}: x=${x}`,
        selected: x === sel,
        related: sel !== null && this.tileOf(x) === selTile && x !== sel,
      });
      if (a % 8 === 0) small(items, p, ox + a * sw, sy + 36, String(a), 'start');
    }
    return { width: Math.max(px + this.cols * cs + 20, ox + n * sw + 20), height: sy + 48, background: p.bg, items };
  }

  protected announce(): string {
    const x = this.selectedElement();
    if (x === null) return this.tr('noSelection');
    const f = this.maps[x];
    return `${this.tr('element')} (${f.coord.join(', ')}), x = ${f.index} → ${this.addr(x)}@m`;
  }

  protected details() {
    const x = this.selectedElement();
    if (x === null) return html`<p>${this.tr('noSelection')}</p>`;
    const f = this.maps[x];
    const ext = must(this.eng!.parse(this.layout)).shard.map((m) => m.extent);
    const cs = f.split.map((_, i) => `c${i}`).join(',');
    const terms = f.terms.map((t) => `${t.digit}·${t.k}`).join(' + ');
    return html`<p class="mono">(i, j) = (${f.coord.join(', ')}) → x = ${f.index}</p>
      <p class="mono">(${cs}) = unflatten(${f.index}; ${ext.join(',')}) = (${f.split.join(', ')})</p>
      <p class="mono">f_D(x) = ${terms} = ${this.addr(x)}@m</p>
      <p class="mono derivation">${f.derivation}</p>`;
  }

  protected exportData() {
    return {
      layout: this.layout,
      shape: this.shape.split(',').map(Number),
      axes: ['m'],
      table: this.maps.map((f) => ({ index: f.index, coord: f.coord, split: f.split, positions: f.positions })),
    };
  }

  protected override controls() {
    return html`<span class="mono">${this.layout}</span>` ?? nothing;
  }
}

customElements.define('ls-tile-layout', LsTileLayout);
