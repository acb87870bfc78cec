// <ls-bank-conflicts>: the chapter's 8x8 toy (8 banks, fp32) and the real SWIZZLE_128B case (32 banks, fp16,
// 16 B sectors). Read a column or a row with and without the XOR swizzle; the engine gives the addresses
// (lane_addresses), the banks and the cycle of every lane (bank_access); the figure steps through cycles.
import { html } from 'lit';
import { EngineError, must, type LsBankAccess } from '../core/engine.js';
import { accessBytes, elementBytes, elementDtype } from '../core/dtype.js';
import { LsFigure } from '../core/figure.js';
import type { Item, Scene } from '../core/scene.js';
import type { Palette } from '../core/theme.js';
import { cell, label, legend, small } from './draw.js';

interface Case {
  plain: string;
  swizzled: string;
  shape: number[];
  elemBytes: number;
  /** elements per drawn cell: 1 for the toy, one 16 B sector (8 fp16) for the real case */
  perCell: number;
  model: { banks: number; wordBytes: number; wavefrontBytes: number } | null;
  bankLabel: (bank: number) => string;
  /** the drawn sides' names (custom mode: the layouts themselves) */
  names?: string[];
}

type CaseName = 'toy' | 'real' | 'pad' | 'big';
const CASES: Record<CaseName, Case> = {
  // mapped_col = col XOR row is Swizzle<3,0,3> on the element offset
  toy: {
    plain: 'S[(8,8):(8,1)]',
    swizzled: 'Swizzle<3,0,3> o S[(8,8):(8,1)]',
    shape: [8, 8],
    elemBytes: 4,
    perCell: 1,
    model: { banks: 8, wordBytes: 4, wavefrontBytes: 32 },
    bankLabel: (b) => `bank ${b}`,
  },
  // SWIZZLE_128B on fp16 elements is Swizzle<3,3,3> (bytes: Swizzle<3,4,3>)
  real: {
    plain: 'S[(8,64):(64,1)]',
    swizzled: 'Swizzle<3,3,3> o S[(8,64):(64,1)]',
    shape: [8, 64],
    elemBytes: 2,
    perCell: 8,
    model: null,
    bankLabel: (b) => `${b}–${b + 3}`,
  },
  // a 32x32 fp32 tile read down a column: 32 words a row put the whole column in one bank; one padding word a row
  // (33) moves row r to bank r
  pad: {
    plain: 'S[(32,32):(32,1)]',
    swizzled: 'S[(32,32):(33,1)]',
    shape: [32, 32],
    elemBytes: 4,
    perCell: 1,
    model: null,
    bankLabel: (b) => String(b),
    names: ['S[(32,32):(32,1)]', 'S[(32,32):(33,1)] (padded)'],
  },
  // the transpose kernel's 64x64 fp32 tile: a row is 64 words, two bank rows, so row r starts in bank 0 whatever r;
  // one padding word a row (65) starts row r in bank r mod 32. Drawn as an 8x8 overview of 8x8 blocks with a drill-down.
  big: {
    plain: 'S[(64,64):(64,1)]',
    swizzled: 'S[(64,64):(65,1)]',
    shape: [64, 64],
    elemBytes: 4,
    perCell: 1,
    model: null,
    bankLabel: (b) => String(b),
    names: ['S[(64,64):(64,1)]', 'S[(64,64):(65,1)] (padded)'],
  },
};

/** Above this many drawn cells a side is drawn as an overview of 8 x 8 blocks and one block in full. */
const OVERVIEW_CELLS = 1024;

/** A drawn cell read by a lane. */
interface LaneCell {
  row: number;
  cell: number;
  lane: number;
}

interface Side {
  access: LsBankAccess;
  /** drawn column of each cell (row, logical cell column) -> physical cell column: the cell's bank, plus one bank
   * row's width for each bank row the tile row has already filled (a 64-float row spans two) */
  physCol: number[][];
  lanes: LaneCell[];
}

export class LsBankConflicts extends LsFigure {
  static override properties = {
    ...LsFigure.properties,
    case_: { state: true },
    op: { state: true },
    width: { state: true },
    step: { state: true },
    layout: { type: String },
    compare: { type: String },
    shape: { type: String },
    dtype: { type: String },
    swizzle: { type: String },
    lanes: { type: String },
  };
  case_: CaseName = 'toy';
  /** Custom mode (any access pattern, e.g. from the benchmark panel): the layout read by the warp, */
  layout = '';
  /** an optional second layout drawn beside it (e.g. the padded tile), */
  compare = '';
  /** or a swizzle applied to `layout` for the second side: a PTX mode (128B, 64B, 32B) or Swizzle<B,M,S>. */
  swizzle = '';
  shape = '';
  dtype = 'f32';
  /** Custom mode: the element index each lane starts its access at ("0,256,512,..."), shown while nothing is
   * selected (the benchmark panel gives a kernel's own access this way); a click reads a row or column instead. */
  lanes = '';
  op: 'col' | 'row' = 'col';
  width = 16;
  step = -1;
  protected readonly defaultKey = 'banks';
  private sides: Side[] = [];
  private timer = 0;

  protected title_() {
    if (this.custom) return `Bank conflicts: ${[this.layout, this.compare].filter((l) => l).join(' vs ')}`;
    return this.case_ === 'toy'
      ? this.tr('toy')
      : this.case_ === 'pad'
        ? this.tr('padded')
        : this.case_ === 'big'
          ? this.tr('big64')
          : this.tr('real');
  }

  protected override requiredAttributes() {
    return ['layout'];
  }
  private get custom() {
    return !!this.layout;
  }
  private customCase?: Case;
  private get c(): Case {
    return this.custom && this.customCase ? this.customCase : CASES[this.case_];
  }
  private get accessWidth() {
    if (this.custom) return accessBytes(this.eng!, this.dtype);
    return this.case_ === 'real' ? this.width : 4;
  }
  /** The custom case from the attributes; the engine parses the layouts and spells the swizzle. */
  private buildCustom(): Case | undefined {
    const e = this.eng!;
    const elemBytes = elementBytes(e, this.dtype);
    const parsed = e.parse(this.layout);
    if (!parsed.ok) throw new EngineError({ ...parsed.error, field: 'layout' });
    const ps = this.shape ? e.parseShape(this.shape) : null;
    if (ps && !ps.ok) throw new Error(`shape: ${ps.error.message} (column ${ps.error.column} of "${this.shape}")`);
    const shape = ps && ps.ok ? ps.shape : parsed.defaultShape;
    if (shape.length !== 2)
      throw new Error(
        this.shape
          ? `shape: expected "rows,cols" (two extents), got "${this.shape}"`
          : `shape: required here: the layout's own shape (${shape.join(',')}) has ${shape.length} extent${shape.length === 1 ? '' : 's'}, the banks need "rows,cols"`,
      );
    let second = this.compare;
    if (!second && this.swizzle) {
      let sw = this.swizzle.trim();
      // a PTX mode the engine knows (128B, SWIZZLE_64B, ...) becomes its Swizzle<B,M,S> on this dtype; anything
      // else is taken as a Swizzle<B,M,S> itself, which the engine parses below
      const atom = e.swizzleAtom(sw, elementDtype(this.dtype));
      if (atom.ok) sw = `Swizzle<${atom.elements.bits},${atom.elements.base},${atom.elements.shift}>`;
      second = `${sw} o ${this.layout}`;
    }
    const layouts = [this.layout, ...(second ? [second] : [])];
    for (const l of layouts) must(e.laneAddresses(l, shape, [0], elemBytes));
    // one drawn cell per bank word (the engine's bank model: 4 B)
    const { wordBytes } = e.bankModel();
    const perCell = Math.max(1, wordBytes / elemBytes);
    if (shape[1] % perCell)
      throw new Error(`shape: ${shape[1]} columns of ${this.dtype} do not fill ${wordBytes}-byte words`);
    return {
      plain: layouts[0],
      swizzled: layouts[1] ?? '',
      shape,
      elemBytes,
      perCell,
      model: null,
      bankLabel: (b) => String(b),
      names: layouts,
    };
  }
  protected override extraState() {
    return {
      case: this.case_,
      w: this.case_ === 'real' ? this.width : null,
      step: this.step >= 0 ? this.step : null,
      blk: this.overview ? this.block.join(',') : null,
    };
  }
  protected override applyExtraState(s: Record<string, string>) {
    if (s.case === 'toy' || s.case === 'real' || s.case === 'pad' || s.case === 'big') this.case_ = s.case;
    const b = s.blk ? /^(\d+),(\d+)$/.exec(s.blk) : null;
    if (b) this.block = [Number(b[1]), Number(b[2])];
    if (s.w && ['4', '8', '16'].includes(s.w)) this.width = Number(s.w);
    this.step = s.step !== undefined ? Number(s.step) : -1;
  }

  /** The selection "C:3" (column 3) or "R:2" (row 2); default column 3. */
  private target(): { op: 'col' | 'row'; i: number } {
    const s = this.selection ?? 'C:3';
    return { op: s.startsWith('R:') ? 'row' : 'col', i: Number(s.split(':')[1]) || 0 };
  }

  /** The given lanes (the `lanes` attribute), while nothing is selected. */
  private get givenLanes(): number[] | null {
    if (!this.custom || !this.lanes || this.selection) return null;
    return this.lanes
      .split(',')
      .map((s) => Number(s.trim()))
      .filter((x) => Number.isInteger(x) && x >= 0)
      .slice(0, 32);
  }

  /** Element indices each lane reads: the given lanes, or a column of cells over all rows, or one row, at the access
   * width; and the drawn cells each lane's access covers. */
  private laneIndices(): { idx: number[]; lanes: LaneCell[] } {
    const c = this.c;
    const [rows, cols] = c.shape;
    const per = Math.max(1, this.accessWidth / c.elemBytes); // elements per lane access
    const given = this.givenLanes;
    if (given) {
      const lanes: LaneCell[] = [];
      given.forEach((x, lane) => {
        for (let e = 0; e < per; e += c.perCell)
          lanes.push({ row: Math.floor((x + e) / cols), cell: Math.floor(((x + e) % cols) / c.perCell), lane });
      });
      return { idx: given, lanes };
    }
    // one row of the tile, or one column of cells: the engine walks the window
    const { op, i } = this.target();
    const window = op === 'col' ? [0, i * c.perCell, rows, c.perCell] : [i, 0, 1, cols];
    const idx = must(this.eng!.windowLanes(c.shape, per, window)).lanes;
    const lanes = idx.map((x, lane) => ({ row: Math.floor(x / cols), cell: Math.floor((x % cols) / c.perCell), lane }));
    return { idx, lanes };
  }

  protected override recompute() {
    if (!this.eng) return;
    this.sides = [];
    if (!this.layout && this.compare) throw new Error('layout: required with compare (compare is drawn beside layout)');
    if (this.custom) this.customCase = this.buildCustom();
    const c = this.c;
    const [rows, cols] = c.shape;
    const { idx, lanes } = this.laneIndices();
    this.sides = [c.plain, c.swizzled]
      .filter((l) => l)
      .map((layout) => {
        // where each drawn cell lands: the bank of its first element, per row (engine: addresses and banks)
        const physCol: number[][] = [];
        const cellW = c.perCell * c.elemBytes;
        const perLine = this.cellsPerBankRow();
        for (let r = 0; r < rows; ++r) {
          const first = Array.from({ length: cols / c.perCell }, (_, k) => r * cols + k * c.perCell);
          const addrs = must(this.eng!.laneAddresses(layout, c.shape, first, c.elemBytes)).addrs;
          const banks = must(this.eng!.bankAccess(addrs, Math.min(16, cellW), c.model)).laneBank;
          physCol.push(
            banks.map(
              (b, k) => Math.floor(k / perLine) * perLine + Math.floor(b / (cellW / (c.model?.wordBytes ?? 4))),
            ),
          );
        }
        const addrs = must(this.eng!.laneAddresses(layout, c.shape, idx, c.elemBytes)).addrs;
        const access = must(this.eng!.bankAccess(addrs, this.accessWidth, c.model));
        return { access, physCol, lanes };
      });
  }

  /** The case's bank model: its own (the toy's 8 banks), else the engine's default (32 banks of 4 B). */
  private bankModel(): { banks: number; wordBytes: number } {
    return this.c.model ?? this.eng!.bankModel();
  }

  /** Drawn cells in one row of banks. */
  private cellsPerBankRow(): number {
    const c = this.c;
    const m = this.bankModel();
    return Math.max(1, (m.banks * m.wordBytes) / (c.perCell * c.elemBytes));
  }

  protected override selectionChanged() {
    this.recompute(); // the lanes follow the selected row or column
  }

  override select(hit: string | null) {
    // a block of the overview opens it below; the row or column read stays
    const b = hit ? /^B:(\d+):(\d+)$/.exec(hit) : null;
    if (b) {
      this.block = [Number(b[1]), Number(b[2])];
      this.saveState();
      this.requestUpdate();
      return;
    }
    this.stop();
    this.step = -1;
    super.select(hit);
  }

  /** The block of the overview drawn in full: [block row, block column]. */
  block: [number, number] = [0, 0];
  /** A grid too large to read cell by cell (64 x 64): drawn as 8 x 8 blocks and the chosen block. */
  private get overview(): boolean {
    const [rows, cols] = this.c.shape;
    return rows * (cols / this.c.perCell) > OVERVIEW_CELLS && rows % 8 === 0 && (cols / this.c.perCell) % 8 === 0;
  }

  private setCase(c: CaseName) {
    this.case_ = c;
    this.selection = null;
    this.block = [0, 0];
    this.step = -1;
    this.stop();
    this.recompute();
    this.saveState();
  }
  private setWidth(w: number) {
    this.width = w;
    this.step = -1;
    this.recompute();
    this.saveState();
  }
  private maxCycles() {
    return Math.max(1, ...this.sides.map((s) => s.access.cycles));
  }
  private doStep() {
    const n = this.maxCycles();
    this.step = this.step + 1 >= n ? -1 : this.step + 1;
    this.saveState();
  }
  private play() {
    if (this.timer) return this.stop();
    this.step = -1;
    this.timer = window.setInterval(() => {
      this.doStep();
      if (this.step === -1) this.stop();
    }, 700);
    this.requestUpdate();
  }
  private stop() {
    if (this.timer) window.clearInterval(this.timer);
    this.timer = 0;
    this.requestUpdate();
  }
  override disconnectedCallback() {
    super.disconnectedCallback();
    this.stop();
  }

  protected navGrid(): string[][] {
    const [rows, cols] = this.c.shape;
    return [
      Array.from({ length: cols / this.c.perCell }, (_, k) => `C:${k}`),
      Array.from({ length: rows }, (_, r) => `R:${r}`),
      // the overview's blocks: Enter opens one
      ...(this.overview ? Array.from({ length: 8 }, (_, R) => Array.from({ length: 8 }, (_, C) => `B:${R}:${C}`)) : []),
    ];
  }

  /** The overview: per side, 8 x 8 blocks (the number is how many cells of the block the warp reads), then the
   * chosen block at full size on both sides, with the same rows and bank columns. */
  /** One side's name and its badge: cycles, and the conflict ways or "conflict-free". */
  private sideHeader(items: Item[], p: Palette, ox: number, name: string, a: LsBankAccess) {
    label(items, p, ox, 14, name);
    const badge =
      a.maxWays > 1
        ? `${this.count(a.cycles, 'cycles')} · ${a.maxWays}${this.tr('way')}`
        : `${this.count(a.cycles, 'cycles')} · ${this.tr('conflictFree')}`;
    items.push({ t: 'rect', x: ox, y: 24, w: 200, h: 18, fill: a.maxWays > 1 ? p.conflict : p.ok, rx: 9 });
    items.push({ t: 'text', x: ox + 100, y: 33, s: badge, size: 11, fill: '#000', anchor: 'middle', weight: 'bold' });
  }

  private buildOverview(p: Palette): Scene {
    const items: Item[] = [];
    const c = this.c;
    const [rows, cols] = c.shape;
    const ncell = cols / c.perCell;
    const br = rows / 8,
      bc = ncell / 8;
    const bs = 34,
      oy = 64,
      gap = 60,
      side = 8 * bs;
    const cur = this.cursorHit();
    const given = !!this.givenLanes;
    const { op, i } = given ? { op: '', i: -1 } : this.target();
    const names = c.names ?? [this.tr('rowMajor'), this.tr('swizzled')];
    const [R0, C0] = this.block;
    const cs = 30;
    const dy = oy + side + 70;
    const dside = bc * cs;
    this.sides.forEach((sd, s) => {
      const ox = 60 + s * (Math.max(side, dside) + gap);
      const a = sd.access;
      this.sideHeader(items, p, ox, names[s], a);
      // which cells the lanes read and the cycle each is served in, by (row, physical column)
      const served = new Map<string, { cyc: number; k: number }>();
      for (const l of sd.lanes) {
        const pc = sd.physCol[l.row][l.cell];
        const key = `${l.row}:${pc}`;
        served.set(key, { cyc: Math.max(served.get(key)?.cyc ?? 0, a.laneCycle[l.lane]), k: l.cell });
      }
      // overview
      for (let C = 0; C < 8; ++C) small(items, p, ox + C * bs + bs / 2, oy - 8, `${C * bc}–${C * bc + bc - 1}`);
      for (let R = 0; R < 8; ++R) {
        if (s === 0) small(items, p, ox - 6, oy + R * bs + bs / 2, `${R * br}–${R * br + br - 1}`, 'end');
        for (let C = 0; C < 8; ++C) {
          let n = 0,
            now = false;
          for (let r = R * br; r < (R + 1) * br; ++r)
            for (let pc = C * bc; pc < (C + 1) * bc; ++pc) {
              const v = served.get(`${r}:${pc}`);
              if (!v) continue;
              ++n;
              if (v.cyc === this.step) now = true;
            }
          const hit = `B:${R}:${C}`;
          cell(items, p, ox + C * bs, oy + R * bs, bs, bs, n ? (now ? p.cat[0] : p.cat[1]) : p.cell, {
            hit,
            title: `${this.tr('row')} ${R * br}–${R * br + br - 1}, ${this.tr('bankColumn')} ${C * bc}–${C * bc + bc - 1}: ${n} ${this.tr('cellsRead')}`,
            label: n ? String(n) : '',
            selected: R === R0 && C === C0,
            cursor: cur === hit,
          });
        }
      }
      // the chosen block in full
      label(
        items,
        p,
        ox,
        dy - 34,
        `${this.tr('row')} ${R0 * br}–${R0 * br + br - 1}, ${this.tr('bankColumn')} ${C0 * bc}–${C0 * bc + bc - 1}`,
        12,
      );
      for (let j = 0; j < bc; ++j)
        small(items, p, ox + j * cs + cs / 2, dy - 8, c.bankLabel((C0 * bc + j) % this.bankModel().banks));
      for (let r = R0 * br; r < (R0 + 1) * br; ++r) {
        const y = dy + (r - R0 * br) * cs;
        if (s === 0) {
          items.push({
            t: 'rect',
            x: 8,
            y: y + 4,
            w: 44,
            h: cs - 8,
            fill: p.cell,
            hit: `R:${r}`,
            title: `${this.tr('readRow')} ${r}`,
            rx: 4,
          });
          small(items, p, 30, y + cs / 2, `${this.tr('row')} ${r}`);
          if (cur === `R:${r}` || (op === 'row' && i === r))
            items.push({
              t: 'rect',
              x: 7,
              y: y + 3,
              w: 46,
              h: cs - 6,
              fill: 'none',
              stroke: cur === `R:${r}` ? p.related : p.select,
              sw: 2,
            });
        }
        for (let k = 0; k < ncell; ++k) {
          const pc = sd.physCol[r][k];
          if (pc < C0 * bc || pc >= (C0 + 1) * bc) continue;
          const v = served.get(`${r}:${pc}`);
          const now = v !== undefined && this.step >= 0 && v.cyc === this.step;
          const done = v !== undefined && this.step >= 0 && v.cyc < this.step;
          cell(items, p, ox + (pc - C0 * bc) * cs, y, cs, cs, v ? (now ? p.cat[0] : done ? p.cell : p.cat[1]) : p.bg, {
            title: `${this.tr('row')} ${r}, ${this.tr('col')} ${k} → ${this.tr('bankColumn')} ${pc}${v ? `, ${this.tr('cycle')} ${v.cyc}` : ''}`,
            label: String(k),
            labelSize: 11,
            selected: now,
          });
        }
      }
    });
    // the logical columns of the chosen block's bank columns on the unpadded side, to read (click = read that column)
    const hy = dy + br * cs + 14;
    for (let j = 0; j < bc; ++j) {
      const k = C0 * bc + j;
      const x = 60 + j * cs;
      items.push({
        t: 'rect',
        x,
        y: hy,
        w: cs - 2,
        h: 22,
        fill: p.cell,
        hit: `C:${k}`,
        title: `${this.tr('readColumn')} ${k}`,
        rx: 4,
      });
      small(items, p, x + cs / 2, hy + 11, String(k));
      if (cur === `C:${k}` || (op === 'col' && i === k))
        items.push({
          t: 'rect',
          x: x - 1,
          y: hy - 1,
          w: cs,
          h: 24,
          fill: 'none',
          stroke: cur === `C:${k}` ? p.related : p.select,
          sw: 2,
        });
    }
    const what = given
      ? this.tr('laneAccess')
      : `${this.tr('readColumn')}: ${op === 'col' ? i : '-'} · ${this.tr('readRow')}: ${op === 'row' ? i : '-'}`;
    small(items, p, 60, hy + 36, `${what} · ${this.accessWidth} B / lane`, 'start');
    const ly = legend(items, p, 60, hy + 58, [
      { fill: p.cat[1], text: this.tr('lgBlock') },
      { stroke: p.select, text: this.tr('lgBlockOpen') },
      { text: this.tr('lgBankNumbers') },
      { fill: p.cat[0], stroke: p.select, text: this.tr('lgBankNow') },
    ]);
    const n = Math.max(1, this.sides.length);
    return { width: 60 + n * Math.max(side, dside) + (n - 1) * gap + 20, height: ly, background: p.bg, items };
  }

  protected buildScene(p: Palette): Scene {
    if (this.overview) return this.buildOverview(p);
    const items: Item[] = [];
    const c = this.c;
    const [rows, cols] = c.shape;
    const ncell = cols / c.perCell;
    const cs = Math.max(12, Math.min(36, Math.floor(520 / ncell))),
      oy = 64,
      gap = 70;
    const cur = this.cursorHit();
    const given = !!this.givenLanes; // then no row or column is the one read
    const { op, i } = given ? { op: '', i: -1 } : this.target();
    const names = c.names ?? [this.tr('rowMajor'), this.tr('swizzled')];
    const maxCycles = Math.max(0, ...this.sides.map((sd) => sd.access.cycles));
    this.sides.forEach((side, s) => {
      const ox = 60 + s * (ncell * cs + gap);
      const a = side.access;
      this.sideHeader(items, p, ox, names[s], a);
      const perLine = this.cellsPerBankRow();
      for (let b = 0; b < ncell; ++b)
        small(
          items,
          p,
          ox + b * cs + cs / 2,
          oy - 8,
          c.bankLabel((b % perLine) * ((c.perCell * c.elemBytes) / this.bankModel().wordBytes)),
        );
      // read cells: which drawn cells lanes touch, and in which cycle each is served
      const served = new Map<string, number>();
      for (const l of side.lanes) {
        const key = `${l.row}:${l.cell}`;
        served.set(key, Math.max(served.get(key) ?? 0, a.laneCycle[l.lane]));
      }
      for (let r = 0; r < rows; ++r) {
        if (s === 0) {
          items.push({
            t: 'rect',
            x: 8,
            y: oy + r * cs + 4,
            w: 40,
            h: cs - 8,
            fill: p.cell,
            hit: `R:${r}`,
            title: `${this.tr('readRow')} ${r}`,
            rx: 4,
          });
          small(items, p, 28, oy + r * cs + cs / 2, `${this.tr('row')} ${r}`);
          if (cur === `R:${r}` || (op === 'row' && i === r))
            items.push({
              t: 'rect',
              x: 7,
              y: oy + r * cs + 3,
              w: 42,
              h: cs - 6,
              fill: 'none',
              stroke: cur === `R:${r}` ? p.related : p.select,
              sw: 2,
              dash: cur === `R:${r}` ? '3 2' : undefined,
            });
        }
        for (let k = 0; k < ncell; ++k) {
          const pc = side.physCol[r][k];
          const cyc = served.get(`${r}:${k}`);
          const read = cyc !== undefined;
          const now = read && this.step >= 0 && cyc === this.step;
          const done = read && this.step >= 0 && cyc! < this.step;
          const fill = read ? (now ? p.cat[0] : done ? p.cell : p.cat[1]) : p.bg;
          cell(items, p, ox + pc * cs, oy + r * cs, cs, cs, fill, {
            title: `${this.tr('row')} ${r}, ${this.tr('col')} ${k} → ${this.tr('bankColumn')} ${pc}${read ? `, ${this.tr('cycle')} ${cyc}` : ''}`,
            label: String(k),
            labelSize: Math.min(12, cs * 0.55),
            selected: now,
          });
        }
      }
      // timeline: one box per cycle
      const ty = oy + rows * cs + 18;
      small(items, p, ox, ty - 6, `${this.tr('cycle')}:`, 'start');
      // one box per cycle, narrowed to stay under this side (32 cycles do not fit 22 px each beside a second side)
      const room = s + 1 < this.sides.length ? ncell * cs + gap - 50 : Infinity;
      const tw = Math.max(6, Math.min(22, room / Math.max(1, a.cycles)));
      for (let t = 0; t < a.cycles; ++t)
        cell(
          items,
          p,
          ox + 40 + t * tw,
          ty - 14,
          tw - 2,
          18,
          t === this.step ? p.cat[0] : t < this.step ? p.cell : p.cat[1],
          { label: tw >= 16 ? String(t) : undefined, labelSize: 10 },
        );
    });
    // logical column headers (click = read that column)
    for (let k = 0; k < ncell; ++k) {
      const x = 60 + k * cs;
      items.push({
        t: 'rect',
        x,
        y: oy + rows * cs + 34,
        w: cs - 2,
        h: 22,
        fill: p.cell,
        hit: `C:${k}`,
        title: `${this.tr('readColumn')} ${k}`,
        rx: 4,
      });
      small(items, p, x + cs / 2, oy + rows * cs + 45, cs >= 30 ? `${this.tr('col')} ${k}` : String(k));
      if (cur === `C:${k}` || (op === 'col' && i === k))
        items.push({
          t: 'rect',
          x: x - 1,
          y: oy + rows * cs + 33,
          w: cs,
          h: 24,
          fill: 'none',
          stroke: cur === `C:${k}` ? p.related : p.select,
          sw: 2,
          dash: cur === `C:${k}` ? '3 2' : undefined,
        });
    }
    const what = given
      ? this.tr('laneAccess')
      : `${this.tr('readColumn')}: ${op === 'col' ? i : '-'} · ${this.tr('readRow')}: ${op === 'row' ? i : '-'}`;
    small(items, p, 60, oy + rows * cs + 70, `${what} · ${this.accessWidth} B / lane`, 'start');
    const n = Math.max(1, this.sides.length);
    const width = Math.max(
      60 + n * (ncell * cs) + (n - 1) * gap + 20,
      60 + (n - 1) * (ncell * cs + gap) + 40 + maxCycles * 22 + 20,
      420,
    );
    const ly = legend(items, p, 60, oy + rows * cs + 92, [
      { text: this.tr('lgBankNumbers') },
      { fill: p.cat[1], text: this.tr('lgBankRead') },
      { fill: p.cat[0], stroke: p.select, text: this.tr('lgBankNow') },
    ]);
    return { width, height: ly, background: p.bg, items };
  }

  protected announce(): string {
    const { op, i } = this.target();
    const [a, b] = this.sides.map((s) => s.access);
    if (!a) return '';
    if (this.custom || this.c.names) {
      const what = this.givenLanes
        ? this.tr('laneAccess')
        : op === 'col'
          ? `${this.tr('readColumn')} ${i}`
          : `${this.tr('readRow')} ${i}`;
      return `${what}: ${this.sides.map((sd, k) => `${this.c.names![k]} ${this.count(sd.access.cycles, 'cycles')}`).join(', ')}${this.step >= 0 ? `; ${this.tr('cycle')} ${this.step}` : ''}`;
    }
    if (!b) return '';
    const what = op === 'col' ? `${this.tr('readColumn')} ${i}` : `${this.tr('readRow')} ${i}`;
    return `${what}: ${this.tr('rowMajor')} ${this.count(a.cycles, 'cycles')}, ${this.tr('swizzled')} ${this.count(b.cycles, 'cycles')}${this.step >= 0 ? `; ${this.tr('cycle')} ${this.step}` : ''}`;
  }

  protected details() {
    const [a, b] = this.sides.map((s) => s.access);
    if (!a) return html``;
    if (this.custom || this.c.names)
      return html`<p class="cycles">${this.announce()}</p>
        ${this.sides.map(
          (sd, k) =>
            html`<p class="mono">${this.c.names![k]}: banks [${sd.access.laneBank.join(', ')}], ${sd.access.lanesPerGroup} ${this.tr('lanesPerWavefront')}, ${this.tr('groups')} ${sd.access.groupCycles.join('+')} = ${sd.access.cycles}</p>`,
        )}`;
    if (!b) return html``;
    return html`<p class="cycles">${this.announce()}</p>
      <p class="mono">${this.c.plain}: banks [${a.laneBank.join(', ')}], ${a.lanesPerGroup} ${this.tr('lanesPerWavefront')}, ${this.tr('groups')} ${a.groupCycles.join('+')} = ${a.cycles}</p>
      <p class="mono">${this.c.swizzled}: banks [${b.laneBank.join(', ')}], ${this.tr('groups')} ${b.groupCycles.join('+')} = ${b.cycles}</p>`;
  }

  protected exportData() {
    const { idx } = this.laneIndices();
    return {
      case: this.custom ? 'custom' : this.case_,
      width: this.accessWidth,
      indices: idx,
      layouts: [this.c.plain, this.c.swizzled].filter((l) => l),
      access: this.sides.map((s) => s.access),
    };
  }

  protected override controls() {
    const playing = !!this.timer;
    if (this.custom)
      return html`<button type="button" class="step" @click=${() => this.doStep()}>${this.tr('step')}</button>
        <button type="button" class="play" @click=${() => this.play()}>${playing ? this.tr('pause') : this.tr('play')}</button>`;
    return html`<span role="group" aria-label="case">
        <button type="button" class="case-toy" aria-pressed=${this.case_ === 'toy'} @click=${() => this.setCase('toy')}>${this.tr('toy')}</button>
        <button type="button" class="case-real" aria-pressed=${this.case_ === 'real'} @click=${() => this.setCase('real')}>${this.tr('real')}</button>
        <button type="button" class="case-pad" aria-pressed=${this.case_ === 'pad'} @click=${() => this.setCase('pad')}>${this.tr('padded')}</button>
        <button type="button" class="case-big" aria-pressed=${this.case_ === 'big'} @click=${() => this.setCase('big')}>${this.tr('big64')}</button>
      </span>
      ${
        this.case_ === 'real'
          ? html`<label>${this.tr('width')}
            <select class="width" @change=${(e: Event) => this.setWidth(Number((e.target as HTMLSelectElement).value))}>
              ${[4, 8, 16].map((w) => html`<option value=${w} ?selected=${this.width === w}>${w} B</option>`)}
            </select></label
          >`
          : ''
      }
      <button type="button" class="step" @click=${() => this.doStep()}>${this.tr('step')}</button>
      <button type="button" class="play" @click=${() => this.play()}>${playing ? this.tr('pause') : this.tr('play')}</button>`;
  }
}

customElements.define('ls-bank-conflicts', LsBankConflicts);
