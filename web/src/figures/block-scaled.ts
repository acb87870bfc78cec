// <ls-block-scaled>: one scale factor of a block-scaled MMA (kind::mxf8f6f4, mxf4, mxf4nvf4) followed from the
// logical (M, K/vec) scale matrix through shared memory (128 x 4 atoms of 512 B) into TMEM
// (tcgen05.cp.32x128b.warpx4: four copies, one per 32-lane slab) and to the MMA that reads it (its column and
// scale-factor id). The engine's scaleFactors gives the two layouts and the trace; every position drawn is from
// the engine's tables of those layouts.
import { html, type PropertyValues } from 'lit';
import { must, type LsTable } from '../core/engine.js';
import { LsFigure } from '../core/figure.js';
import type { LsScaleFactors } from '../generated/layoutscope.js';
import type { Item, Scene } from '../core/scene.js';
import type { Palette } from '../core/theme.js';
import { cell, label, legend, small } from './draw.js';

/** The kinds and scale vectors offered: [kind, vec, label]. */
const KINDS: [string, number, string][] = [
  ['mxf8f6f4', 32, 'mxf8f6f4 (1 per 32, scale_vec::1X)'],
  ['mxf4', 32, 'mxf4 (1 per 32, 2X)'],
  ['mxf4nvf4', 16, 'nvf4 / mxf4nvf4 (1 per 16, 4X)'],
];

export class LsBlockScaled extends LsFigure {
  static override properties = { ...LsFigure.properties, kind: { type: String }, k: { type: Number } };
  kind = 'mxf8f6f4';
  /** K of the A operand in elements. */
  k = 256;
  protected readonly defaultKey = 'bs';
  private sf?: LsScaleFactors;
  private smem?: LsTable;
  private tmem?: LsTable;
  private hl = -1;
  private trace?: LsScaleFactors['trace'];
  /** element by shared byte, by "TLane:TCol:byte" (all four copies) */
  private bySmem = new Map<number, number>();
  private byTmem = new Map<string, number>();

  private get vec() {
    return (KINDS.find((k) => k[0] === this.kind) ?? KINDS[0])[1];
  }

  protected title_() {
    return `${this.tr('bsTitle')}: kind::${this.kind}`;
  }
  protected override extraState() {
    return { kd: this.kind, k: this.k };
  }
  protected override applyExtraState(s: Record<string, string>) {
    if (s.kd && KINDS.some((k) => k[0] === s.kd)) this.kind = s.kd;
    if (s.k && /^\d+$/.test(s.k)) this.k = Number(s.k);
  }

  /** SVG at every size (at most about 12K cells): every cell keeps its hit target for the pointer and the tests. */
  protected override useCanvas() {
    return false;
  }

  /** This figure's own attributes recompute it when a host page changes them. */
  protected override willUpdate(changed: PropertyValues) {
    super.willUpdate(changed);
    if (this.eng && !changed.has('eng') && ['kind', 'k'].some((k) => changed.has(k)))
      this.safely(() => this.recompute());
  }

  protected override recompute() {
    if (!this.eng) return;
    this.sf = must(this.eng.m.scaleFactors({ kind: this.kind, vec: this.vec, m: 128, k: this.k }));
    const shape = this.sf.shape.join(',');
    this.smem = must(this.eng.table(this.sf.smem, shape));
    this.tmem = must(this.eng.table(this.sf.tmem, shape));
    this.bySmem.clear();
    this.byTmem.clear();
    const ka = this.tmem.axes.length;
    const [li, ci, bi] = ['TLane', 'TCol', 'byte'].map((a) => this.tmem!.axes.indexOf(a));
    const mi = this.smem.axes.indexOf('m');
    for (let x = 0; x < this.smem.elements; ++x) {
      this.bySmem.set(mi < 0 ? 0 : this.smem.values[x * this.smem.axes.length + mi], x);
      for (let r = 0; r < this.tmem.replicas; ++r) {
        const o = (x * this.tmem.replicas + r) * ka;
        const v = (i: number) => (i < 0 ? 0 : this.tmem!.values[o + i]);
        this.byTmem.set(`${v(li)}:${v(ci)}:${v(bi)}`, x);
      }
    }
    this.selectionChanged();
  }

  private elementOf(hit: string | null): number {
    if (!hit || !this.sf) return -1;
    const parts = hit.split(':');
    if (parts[0] === 'S') return Number(parts[1]) * this.sf.shape[1] + Number(parts[2]);
    if (parts[0] === 'B') return this.bySmem.get(Number(parts[1])) ?? -1;
    if (parts[0] === 'T') return this.byTmem.get(parts.slice(1).join(':')) ?? -1;
    return -1;
  }

  protected override selectionChanged() {
    this.hl = this.elementOf(this.selection);
    this.trace = undefined;
    if (this.hl >= 0 && this.eng && this.sf) {
      const ks = this.sf.shape[1];
      const r = this.eng.m.scaleFactors({
        kind: this.kind,
        vec: this.vec,
        m: 128,
        k: this.k,
        at: [Math.floor(this.hl / ks), this.hl % ks],
      });
      if (r.ok) this.trace = r.trace;
    }
  }

  protected navGrid(): string[][] {
    const [m, ks] = this.sf?.shape ?? [128, 8];
    return Array.from({ length: m }, (_, i) => Array.from({ length: ks }, (_, j) => `S:${i}:${j}`));
  }

  protected buildScene(p: Palette): Scene {
    const items: Item[] = [];
    const sf = this.sf!,
      smem = this.smem!,
      tmem = this.tmem!;
    const [rows, ks] = sf.shape;
    const cur = this.cursorHit();
    const curX = this.elementOf(cur);
    const ka = tmem.axes.length;
    const [li, ci, bi] = ['TLane', 'TCol', 'byte'].map((a) => tmem.axes.indexOf(a));
    const mi = smem.axes.indexOf('m');
    const tpos = (x: number, r: number) => {
      const o = (x * tmem.replicas + r) * ka;
      const v = (i: number) => (i < 0 ? 0 : tmem.values[o + i]);
      return [v(li), v(ci), v(bi)];
    };
    const sbyte = (x: number) => (mi < 0 ? 0 : smem.values[x * smem.axes.length + mi]);
    // colour: the TMEM column within the atom (the M group packed along TCol), as in the chapter's figure
    const color = (x: number) => p.cat[tpos(x, 0)[1] % 4];
    const marks = (x: number, hit: string) => ({
      selected: x === this.hl,
      related: x === curX && cur !== hit,
      cursor: cur === hit,
    });

    // 1. the logical scale matrix, 128 rows x K/vec scales
    const ox = 40,
      oy = 58,
      cw = 14,
      ch = 5;
    label(items, p, ox, 16, this.tr('bsLogical'));
    small(items, p, ox, 34, `SF[m, k]: ${rows} × ${ks} (K = ${this.k}, ${this.tr('bsPer')} ${sf.vec})`, 'start');
    for (let x = 0; x < rows * ks; ++x) {
      const i = Math.floor(x / ks),
        j = x % ks;
      cell(items, p, ox + j * cw, oy + i * ch, cw, ch, color(x), {
        hit: `S:${i}:${j}`,
        title: `SF[${i}, ${j}]`,
        ...marks(x, `S:${i}:${j}`),
      });
    }
    for (let i = 0; i < rows; i += 32) small(items, p, ox - 5, oy + i * ch + 6, `m ${i}`, 'end');
    for (let j = 0; j < ks; ++j) small(items, p, ox + j * cw + cw / 2, oy - 6, String(j));

    // 2. shared memory: one 512 B atom per 128 x 4 block, 32 rows of 16 B
    const sx = ox + Math.max(ks * cw, 190) + 40,
      bw = 9,
      bh = 5;
    const atoms = sf.atoms[0] * sf.atoms[1];
    label(items, p, sx, 16, this.tr('bsSmem'));
    small(items, p, sx, 34, `${atoms} × 512 B (${this.tr('bsAtom')})`, 'start');
    for (let x = 0; x < rows * ks; ++x) {
      const b = sbyte(x);
      const atom = Math.floor(b / 512),
        row = Math.floor((b % 512) / 16),
        col = b % 16;
      const X = sx + atom * (16 * bw + 12) + col * bw,
        Y = oy + row * bh;
      cell(items, p, X, Y, bw, bh, color(x), {
        hit: `B:${b}`,
        title: `byte ${b}: SF[${Math.floor(x / ks)}, ${x % ks}]`,
        ...marks(x, `B:${b}`),
      });
    }
    for (let a = 0; a < atoms; ++a) small(items, p, sx + a * (16 * bw + 12) + 8 * bw, oy - 6, `${a * 512}…`);

    // 3. TMEM: 128 lanes x (columns x 4 bytes); the four slabs are .warpx4's copies
    const tx = sx + Math.max(atoms * (16 * bw + 12), 190) + 50,
      tw = 7,
      th = 4;
    const cols = sf.columns;
    label(items, p, tx, 16, this.tr('tmemPart'));
    small(items, p, tx, 34, sf.copy, 'start');
    for (let x = 0; x < rows * ks; ++x)
      for (let r = 0; r < tmem.replicas; ++r) {
        const [l, c, b] = tpos(x, r);
        const hit = `T:${l}:${c}:${b}`;
        cell(items, p, tx + (c * 4 + b) * tw, oy + l * th, tw, th, color(x), {
          hit,
          title: `TLane ${l}, TCol ${c}, byte ${b}: SF[${Math.floor(x / ks)}, ${x % ks}]`,
          ...marks(x, hit),
        });
      }
    for (let c = 0; c < cols; c += cols > 16 ? 4 : 1) small(items, p, tx + (c * 4 + 2) * tw, oy - 6, String(c));
    small(items, p, tx + cols * 4 * tw + 4, oy - 6, 'TCol', 'start');
    for (let s = 0; s < 4; ++s) {
      items.push({
        t: 'line',
        x1: tx - 4,
        y1: oy + 32 * s * th,
        x2: tx + cols * 4 * tw,
        y2: oy + 32 * s * th,
        stroke: p.fg,
        sw: 1,
      });
      small(items, p, tx - 6, oy + (32 * s + 16) * th, `${32 * s}…${32 * s + 31}`, 'end');
    }

    // the selected scale's path, drawn over the cells: logical -> shared byte -> the four TMEM copies
    if (this.hl >= 0) {
      const x = this.hl;
      const i = Math.floor(x / ks),
        j = x % ks;
      const b = sbyte(x);
      const box = (X: number, Y: number, w: number, h: number) =>
        items.push({ t: 'rect', x: X - 3, y: Y - 3, w: w + 6, h: h + 6, fill: 'none', stroke: p.select, sw: 2.5 });
      const L = [ox + j * cw, oy + i * ch, cw, ch] as const;
      const atom = Math.floor(b / 512);
      const S = [sx + atom * (16 * bw + 12) + (b % 16) * bw, oy + Math.floor((b % 512) / 16) * bh, bw, bh] as const;
      box(...L);
      box(...S);
      items.push({
        t: 'line',
        x1: L[0] + cw + 3,
        y1: L[1] + ch / 2,
        x2: S[0] - 3,
        y2: S[1] + bh / 2,
        stroke: p.select,
        sw: 1.5,
        dash: '4 3',
      });
      for (let r = 0; r < tmem.replicas; ++r) {
        const [l, c, bb] = tpos(x, r);
        const T = [tx + (c * 4 + bb) * tw, oy + l * th, tw, th] as const;
        box(...T);
        items.push({
          t: 'line',
          x1: S[0] + bw + 3,
          y1: S[1] + bh / 2,
          x2: T[0] - 3,
          y2: T[1] + th / 2,
          stroke: p.select,
          sw: 1.2,
          dash: '4 3',
        });
      }
    }

    // 4. the MMA that reads the selected scale
    const by = oy + Math.max(rows * ch, 32 * bh, 128 * th) + 28;
    let y = by;
    const tr = this.trace;
    if (tr) {
      const lines = [
        `SF[${tr.m}, ${tr.k}]  →  smem byte ${tr.smemByte} (atom ${tr.atom}, ${this.tr('row')} ${tr.copyRow}, byte ${tr.copyByte})`,
        `→ ${sf.copy}  →  (TLane, TCol, byte) ${tr.tlanes.map((l) => `(${l},${tr.tcol},${tr.byte})`).join(' ')}`,
        `→ MMA ${tr.mma} (K ${tr.mma * sf.mmaK}…${tr.mma * sf.mmaK + sf.mmaK - 1}): ${this.tr('bsColumn')} ${tr.mmaColumn}, sf_id ${tr.sfId}`,
      ];
      for (const s of lines) {
        items.push({ t: 'text', x: ox, y, s, size: 12, fill: p.fg });
        y += 18;
      }
      y += 6;
    }
    y = legend(items, p, ox, y, [
      { fill: p.cat[0], text: `${this.tr('bsGroup')} 0 (m 0…31)` },
      { fill: p.cat[1], text: `${this.tr('bsGroup')} 1 (m 32…63)` },
      { fill: p.cat[2], text: `${this.tr('bsGroup')} 2 (m 64…95)` },
      { fill: p.cat[3], text: `${this.tr('bsGroup')} 3 (m 96…127)` },
      { stroke: p.select, text: this.tr('bsSelected') },
    ]);
    return { width: tx + cols * 4 * tw + 40, height: y + 4, background: p.bg, items };
  }

  protected announce(): string {
    const tr = this.trace;
    if (!tr) return this.tr('noSelection');
    return `SF[${tr.m}, ${tr.k}]: smem byte ${tr.smemByte} → TLane ${tr.tlanes.join(', ')}, TCol ${tr.tcol}, byte ${tr.byte}; MMA ${tr.mma}, sf_id ${tr.sfId}`;
  }

  protected details() {
    const sf = this.sf;
    if (!sf) return html``;
    return html`<p class="mono">smem ${sf.smem}</p>
      <p class="mono">TMEM ${sf.tmem}</p>
      <p class="mono sel">${this.announce()}</p>`;
  }

  protected exportData() {
    const sf = this.sf!;
    return { kind: sf.kind, vec: sf.vec, shape: sf.shape, smem: sf.smem, tmem: sf.tmem, trace: this.trace ?? null };
  }

  private set(k: 'kind' | 'k', v: string) {
    if (k === 'kind') this.kind = v;
    else this.k = Number(v);
    // K must hold whole 128 x 4 atoms of the new scale vector
    if (this.k % (4 * this.vec) !== 0) this.k = 4 * this.vec * Math.max(1, Math.round(this.k / (4 * this.vec)));
    this.selection = null;
    this.safely(() => this.recompute());
    this.saveState();
  }

  protected override controls() {
    const ks = [128, 256, 512].filter((k) => k % (4 * this.vec) === 0);
    return html`<label
        >kind
        <select class="kind" @change=${(e: Event) => this.set('kind', (e.target as HTMLSelectElement).value)}>
          ${KINDS.map(([k, , name]) => html`<option value=${k} ?selected=${k === this.kind}>${name}</option>`)}
        </select></label
      >
      <label
        >K
        <select class="k" @change=${(e: Event) => this.set('k', (e.target as HTMLSelectElement).value)}>
          ${ks.map((k) => html`<option value=${k} ?selected=${k === this.k}>${k}</option>`)}
        </select></label
      >`;
  }
}

customElements.define('ls-block-scaled', LsBlockScaled);
