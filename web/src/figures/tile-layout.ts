// <ls-tile-layout>: the chapter's 8x8 matrix in 2x4 tiles, S[(4,2,2,4):(16,4,8,1)]. Logical grid, physical
// memory grid (addresses wrapped 8 per row) and the memory strip; every number comes from the engine.
import { html, nothing } from 'lit';
import { must, type LsMapping } from '../core/engine.js';
import { accessBytes, elementBytes } from '../core/dtype.js';
import { LsFigure } from '../core/figure.js';
import type { Item, Scene } from '../core/scene.js';
import type { Palette } from '../core/theme.js';
import { cell, label, legend, small } from './draw.js';

export class LsTileLayout extends LsFigure {
  static override properties = {
    ...LsFigure.properties,
    layout: { type: String },
    shape: { type: String },
    access: { type: String },
    dtype: { type: String },
  };
  layout = 'S[(4,2,2,4):(16,4,8,1)]';
  shape = '8,8';
  /** Elements one warp instruction touches, lane by lane: "0,8,16" or start:stop:step ("0:256:8"). Drawn as
   * the lanes' cells, with the 32 B sectors they touch (the engine's sector_access). */
  access = '';
  /** Element type of the access (bytes per lane): f32 (default), f16, f64, f8. */
  dtype = 'f32';
  private lanes: number[] = [];
  private sectorInfo?: { sectors: number; bytes: number; efficiency: number; addrs: number[] };
  private accessError = '';
  protected readonly defaultKey = 'tile';
  protected override requiredAttributes() {
    return ['layout'];
  }
  /** The engine's mapping of each element, computed when first asked for (the selection, the JSON export): the
   * grid itself is drawn from two tables, so the first render makes two engine calls instead of one per cell. */
  private maps: (LsMapping | undefined)[] = [];
  /** The @m address of each element (replica 0, after any swizzle and offset): the table's m column. */
  private addrs: number[] = [];
  /** The tile of each element for the chapter's 4-mode split, else empty. */
  private tiles: number[] = [];
  private elementAt = new Map<number, number>();
  /** Each element's 32 B sector (the engine's sector_access), or empty when the layout has no @m axis. */
  private sectorOf: number[] = [];
  private rows = 8;
  private cols = 8;
  private elements = 0;

  protected title_() {
    return `${this.tr('logical')} / ${this.tr('memory')}: ${this.layout}`;
  }

  protected override recompute() {
    if (!this.eng) return;
    const t = must(this.eng.table(this.layout, this.shape));
    this.rows = t.shape.length > 1 ? t.shape[0] : 1;
    this.cols = t.shape[t.shape.length - 1];
    this.elements = t.elements;
    this.maps = new Array(t.elements);
    this.elementAt.clear();
    const m = t.axes.indexOf('m');
    const stride = t.replicas * Math.max(1, t.partials) * t.axes.length;
    this.addrs = Array.from({ length: t.elements }, (_, x) =>
      m < 0 ? this.map(x).replicaSteps[0].mAfterSwizzle : t.values[x * stride + m],
    );
    this.addrs.forEach((a, x) => this.elementAt.set(a, x));
    // The tile of x is 2·c0 + c2 over the digits (c0, c1, c2, c3) of its unflatten: the value of the layout with
    // the same modes and strides (2, 0, 1, 0), which the engine tabulates for every x in one call.
    const shard = must(this.eng.parse(this.layout)).shard;
    this.tiles = [];
    if (shard.length === 4) {
      const ext = shard.map((mode) => mode.extent).join(',');
      const tiles = this.eng.table(`S[(${ext}):(2,0,1,0)]`, this.shape);
      if (tiles.ok) this.tiles = Array.from(tiles.values);
    }
    this.sectorOf = [];
    const eb = elementBytes(this.eng!, this.dtype);
    for (let s = 0; !this.tiles.length && s < t.elements; s += 1024) {
      // colour by sector only without the 4-mode split; the engine takes up to 1024 lanes per call
      const idx = Array.from({ length: Math.min(1024, t.elements - s) }, (_, k) => s + k);
      const addrs = this.eng.laneAddresses(this.layout, this.shape, idx, eb);
      const sec = addrs.ok ? this.eng.sectorAccess(addrs.addrs, eb) : null;
      if (!sec?.ok) {
        this.sectorOf = [];
        break;
      }
      this.sectorOf.push(...sec.laneSector);
    }
    this.computeAccess(t.elements);
  }

  /** The engine's forward mapping of element x (cached until the inputs change). */
  private map(x: number): LsMapping {
    return (this.maps[x] ??= must(this.eng!.forward(this.layout, this.shape, x)));
  }

  private computeAccess(elements: number) {
    this.lanes = [];
    this.sectorInfo = undefined;
    this.accessError = '';
    const a = this.access.trim();
    if (!a) return;
    const m = /^(\d+):(\d+):(\d+)$/.exec(a);
    const lanes = m
      ? Array.from(
          { length: Math.max(0, Math.ceil((Number(m[2]) - Number(m[1])) / Math.max(1, Number(m[3])))) },
          (_, k) => Number(m[1]) + k * Math.max(1, Number(m[3])),
        )
      : a.split(',').map((v) => Number(v.trim()));
    if (!lanes.length || lanes.length > 32 || lanes.some((x) => !Number.isInteger(x) || x < 0 || x >= elements)) {
      this.accessError = `access: expected 1 to 32 element indices below ${elements}, got "${a}"`;
      return;
    }
    const width = this.accessWidth();
    const addrs = must(
      this.eng!.laneAddresses(this.layout, this.shape, lanes, elementBytes(this.eng!, this.dtype)),
    ).addrs;
    const r = this.eng!.sectorAccess(addrs, width);
    if (!r.ok) {
      this.accessError = r.error.message;
      return;
    }
    this.lanes = lanes;
    this.sectorInfo = { sectors: r.sectors, bytes: r.bytes, efficiency: r.efficiency, addrs };
  }
  private accessWidth(): number {
    return accessBytes(this.eng!, this.dtype);
  }
  /** Colour of element x: its tile for the chapter's 4-mode split, else the 32 B sector its byte address is in. */
  private colourIndex(x: number): number {
    return this.tiles.length ? this.tiles[x] : (this.sectorOf[x] ?? 0);
  }

  /** The @m address of element x (replica 0, after any swizzle), wherever m sits among the layout's axes. */
  private addr(x: number) {
    return this.addrs[x];
  }
  /** The tile of x: its digits over the "outer" modes (c0, c2 for the chapter's 4-mode split). */
  private tileOf(x: number): number {
    return this.tiles.length ? this.tiles[x] : 0;
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
    return Array.from({ length: this.rows }, (_, r) =>
      Array.from({ length: this.cols }, (_, c) => `L:${r * this.cols + c}`),
    );
  }

  protected buildScene(p: Palette): Scene {
    const items: Item[] = [];
    const cs = Math.max(12, Math.min(34, Math.floor(520 / Math.max(this.rows, this.cols))));
    const sel = this.selectedElement();
    const selTile = sel === null ? -1 : this.tileOf(sel);
    const cur = this.cursorHit();
    const ox = 40,
      oy = 44,
      px = Math.max(400, ox + this.cols * cs + 60);
    const is88 = this.rows === 8 && this.cols === 8;
    label(items, p, ox, 16, is88 ? this.tr('logical88') : `${this.tr('logical')} ${this.rows}×${this.cols}`);
    label(items, p, px, 16, is88 ? this.tr('physicalMem') : `${this.tr('physical')} @m (${this.cols} / row)`);
    for (let i = 0; i < this.rows; ++i) {
      small(items, p, ox - 14, oy + i * cs + cs / 2, `r${i}`);
      small(items, p, px - 14, oy + i * cs + cs / 2, `${i * this.cols}`, 'end');
    }
    for (let j = 0; j < this.cols; ++j) small(items, p, ox + j * cs + cs / 2, oy - 10, `c${j}`);
    const n = this.elements;
    for (let x = 0; x < n; ++x) {
      const i = Math.floor(x / this.cols),
        j = x % this.cols;
      const fill = p.cat[this.colourIndex(x) % p.cat.length];
      const related = (sel !== null && this.tileOf(x) === selTile && x !== sel) || this.lanes.includes(x);
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
      const pi = Math.floor(a / this.cols),
        pj = a % this.cols;
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
      cell(items, p, ox + a * sw, sy, sw, 26, p.cat[this.colourIndex(x) % p.cat.length], {
        hit: `M:${a}`,
        title: `@m ${a}: x=${x}`,
        selected: x === sel,
        related: (sel !== null && this.tileOf(x) === selTile && x !== sel) || this.lanes.includes(x),
      });
      // the lanes' accesses: a mark under every address a lane touches
      if (this.lanes.includes(x))
        items.push({ t: 'rect', x: ox + a * sw, y: sy + 27, w: Math.max(2, sw), h: 4, fill: p.related });
      if (a % 8 === 0) small(items, p, ox + a * sw, sy + 36, String(a), 'start');
    }
    const ly = legend(items, p, ox, sy + 60, [
      { fill: p.cat[0], text: this.tr('lgTile') },
      { text: this.tr('lgAddrVsIndex') },
      { stroke: p.select, text: this.tr('lgSelected') },
      { stroke: p.related, text: this.tr('lgSameTile') },
    ]);
    return { width: Math.max(px + this.cols * cs + 20, ox + n * sw + 20), height: ly, background: p.bg, items };
  }

  private accessText(): string {
    const s = this.sectorInfo;
    if (!s) return this.accessError;
    return `${this.lanes.length} lanes × ${this.accessWidth()} B: ${s.sectors} sectors of 32 B per request, ${s.bytes} B requested, sector efficiency ${(s.efficiency * 100).toFixed(1)}%`;
  }

  protected announce(): string {
    const x = this.selectedElement();
    if (x === null) return this.sectorInfo ? this.accessText() : this.tr('noSelection');
    const f = this.map(x);
    return `${this.tr('element')} (${f.coord.join(', ')}), x = ${f.index} → ${this.addr(x)}@m`;
  }

  protected details() {
    const x = this.selectedElement();
    const access = this.access
      ? html`<p class=${this.accessError ? 'error' : 'mono access'}>${this.accessText()}</p>${
          this.sectorInfo ? html`<p class="mono">lane addresses (bytes): ${this.sectorInfo.addrs.join(', ')}</p>` : ''
        }`
      : nothing;
    if (x === null) return html`${access}<p>${this.tr('noSelection')}</p>`;
    const f = this.map(x);
    const ext = must(this.eng!.parse(this.layout)).shard.map((m) => m.extent);
    const cs = f.split.map((_, i) => `c${i}`).join(',');
    const terms = f.terms.map((t) => `${t.digit}·${t.k}`).join(' + ');
    return html`${access}<p class="mono">(i, j) = (${f.coord.join(', ')}) → x = ${f.index}</p>
      <p class="mono">(${cs}) = unflatten(${f.index}; ${ext.join(',')}) = (${f.split.join(', ')})</p>
      <p class="mono">f_D(x) = ${terms} = ${this.addr(x)}@m</p>
      <p class="mono derivation">${f.derivation}</p>`;
  }

  protected exportData() {
    return {
      layout: this.layout,
      shape: this.shape.split(',').map(Number),
      axes: ['m'],
      table: Array.from({ length: this.elements }, (_, x) => this.map(x)).map((f) => ({
        index: f.index,
        coord: f.coord,
        split: f.split,
        positions: f.positions,
      })),
    };
  }

  protected override controls() {
    return html`<span class="mono">${this.layout}</span>`;
  }
}

customElements.define('ls-tile-layout', LsTileLayout);
