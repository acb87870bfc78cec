// <ls-advisor>: which shared-memory layout lets one warp access write a tile and another read it without bank
// conflicts? The engine's advisor (advise) ranks every candidate (row-major, XOR swizzles, TMA modes, padded
// rows); each row shows its write and read wavefronts, shared bytes and the banks of the read's first
// instruction. A click on a candidate steps through its wavefronts: for each instruction, which lanes the
// hardware serves in which wavefront and bank (accessCost gives the elements each lane moves, laneAddresses
// their byte addresses, bankAccess the bank and wavefront of every lane). With an agent connected in the
// benchmark panel, "measure on GPU" runs the smem_access benchmark under Nsight Compute and shows its counters
// beside the prediction.
//
//   <ls-advisor writer="S[(16,32):(1@reg,1@laneid)];STS.32"
//               reader="S[(16,16,2):(1@laneid,1@reg,16@laneid)];LDS.32" dtype="f32" tile="16,32"></ls-advisor>
//
// A side is "LANES;INSTR": LANES is rows, columns, matrices, a thread layout, or empty (the instruction's own
// walk); INSTR an instruction the engine knows (STS.32, LDS.128, ldmatrix.x4, tma.128B, ...).
import { css, html, nothing } from 'lit';
import type { AgentClient } from '../bench/client.js';
import type { RunRecord } from '../bench/types.js';
import {
  offMain,
  type LsAccessCost,
  type LsAdvice,
  type LsBankAccess,
  type LsCandidate,
  type LsError,
  type Engine,
} from '../core/engine.js';
import { LsFigure, renderInputError } from '../core/figure.js';
import type { Item, Scene } from '../core/scene.js';
import { inkOn, type Palette } from '../core/theme.js';
import { small } from './draw.js';
import { hex, hueRgb } from '../core/physical.js';

/** Candidates drawn (the search holds hundreds; the best few are what a reader compares). */
const SHOWN = 10;
/** Writer and reader pairs to start from: [label (English, 中文), writer, reader, dtype, tile]. */
const EXAMPLES: [[string, string], string, string, string, string][] = [
  [
    ['16×32 fp32: rows → columns, two a warp', '16×32 fp32：按行写 → 按列读，每个 warp 两列'],
    'S[(16,32):(1@reg,1@laneid)];STS.32',
    'S[(16,16,2):(1@laneid,1@reg,16@laneid)];LDS.32',
    'f32',
    '16,32',
  ],
  [
    ['32×32 fp32: rows → columns (transpose)', '32×32 fp32：按行写 → 按列读（转置）'],
    'rows;STS.32',
    'columns;LDS.32',
    'f32',
    '32,32',
  ],
  [
    ['32×64 f16: cp.async 16 B → ldmatrix.x4.trans', '32×64 f16：cp.async 16 B → ldmatrix.x4.trans'],
    ';cp.async.16',
    ';ldmatrix.x4.trans',
    'f16',
    '32,64',
  ],
  [
    ['64×64 f16: TMA 128B → ldmatrix.x4', '64×64 f16：TMA 128B → ldmatrix.x4'],
    ';tma.128B',
    ';ldmatrix.x4',
    'f16',
    '64,64',
  ],
  [
    ['64×64 bf16: STS.128 rows → ldmatrix.x4', '64×64 bf16：STS.128 按行写 → ldmatrix.x4'],
    'rows;STS.128',
    ';ldmatrix.x4',
    'bf16',
    '64,64',
  ],
];

/** One instruction of one access: its lanes' banks and wavefronts, from the engine. */
interface Step {
  /** lanes[l]: the first logical element lane l moves, -1 idle */
  lanes: number[];
  wavefronts: number;
  ideal: number;
  bank: LsBankAccess | null;
  /** the active lanes, in the order of bank.laneBank */
  active: number[];
}

/** One access (write or read) of one candidate. */
interface SideCost {
  cost: LsAccessCost;
  steps: Step[];
}

/** What an agent measured for a candidate. */
interface Measured {
  state: 'running' | 'done' | 'error';
  message: string;
  counters: [string, number | null][];
  /** why a counter was not measured (a CPU agent has no Nsight Compute), one line per access */
  notes?: string[];
}

/** "LANES;INSTR" split at its last ';' (a thread layout holds none); no ';' is an instruction alone. */
function splitSide(text: string): { lanes: string | null; instr: string } {
  const at = text.lastIndexOf(';');
  const lanes = at < 0 ? '' : text.slice(0, at).trim();
  return { lanes: lanes === '' ? null : lanes, instr: text.slice(at + 1).trim() };
}

/** The candidates drawn, by rank: the best SHOWN, and row-major below them as the baseline. */
function shownOf(a: LsAdvice): number[] {
  const shown = a.candidates.slice(0, SHOWN).map((_, i) => i);
  const plain = a.candidates.findIndex((c) => c.kind === 'plain');
  if (plain >= SHOWN) shown.push(plain);
  return shown;
}

/** A candidate's rank, shared by candidates with the same wavefronts and bytes ("1=", "1=", ...). */
function rankLabel(cands: LsCandidate[], i: number): string {
  const c = cands[i];
  const same = (d: LsCandidate) =>
    d.writeWavefronts === c.writeWavefronts && d.readWavefronts === c.readWavefronts && d.sharedBytes === c.sharedBytes;
  const first = cands.findIndex(same);
  return cands.filter(same).length > 1 ? `${first + 1}=` : String(i + 1);
}

type LsAccessCostResult = ReturnType<Engine['accessCost']>;

export class LsAdvisor extends LsFigure {
  static override properties = {
    ...LsFigure.properties,
    writer: { type: String },
    reader: { type: String },
    dtype: { type: String },
    tile: { type: String },
    access: { state: true },
    instr: { state: true },
    wave: { state: true },
    measured: { state: true },
  };
  static override styles = [
    ...LsFigure.styles,
    css`
      .stepper {
        display: flex;
        flex-wrap: wrap;
        gap: 0.4rem;
        align-items: center;
      }
      .ranking {
        display: flex;
        gap: 0.5rem;
        align-items: center;
      }
      .spinner {
        width: 1rem;
        height: 1rem;
        border: 2px solid currentColor;
        border-right-color: transparent;
        border-radius: 50%;
        animation: spin 0.8s linear infinite;
      }
      @keyframes spin {
        to {
          transform: rotate(360deg);
        }
      }
      @media (prefers-reduced-motion: reduce) {
        .spinner {
          animation: none;
        }
      }
      .measure-box {
        display: flex;
        flex-direction: column;
        align-items: flex-start;
        gap: 0.4rem;
        margin: 0.5rem 0;
      }
      button.measure {
        white-space: nowrap;
        flex: none;
      }
      table.measured {
        width: 100%;
        max-width: 40rem;
        table-layout: fixed;
        border-collapse: collapse;
      }
      table.measured td,
      table.measured th {
        overflow-wrap: anywhere;
        text-align: left;
        padding: 0.1rem 0.4rem;
      }
    `,
  ];
  writer = 'S[(16,32):(1@reg,1@laneid)];STS.32';
  reader = 'S[(16,16,2):(1@laneid,1@reg,16@laneid)];LDS.32';
  dtype = 'f32';
  tile = '16,32';
  /** the access stepped through */
  access: 'write' | 'read' = 'read';
  /** the instruction of that access shown, and the wavefront lit (-1: all) */
  instr = 0;
  wave = -1;
  measured: Record<string, Measured> = {};
  protected readonly defaultKey = 'advisor';
  private advice?: LsAdvice;
  private err?: { e: LsError; field: string };
  private tileShape: number[] = [];
  private elemBytes = 4;
  /** per candidate index drawn: [write, read] costs (null where the engine has no bank counter, e.g. TMA) */
  private costs = new Map<number, (SideCost | null)[]>();
  /** the candidates drawn, by rank: the best SHOWN, and row-major below them as the baseline */
  private shown: number[] = [];
  /** recompute's number: an answer from the engine's worker for older inputs is dropped */
  private asked = 0;
  /** the engine's worker is ranking (a 64x64 tile takes about a second): a spinner in place of the figure */
  private ranking = false;

  protected title_() {
    return `Shared-memory layouts for writer ${this.writer} and reader ${this.reader} (${this.dtype}, ${this.tile})`;
  }
  protected override extraState() {
    return { w: this.writer, r: this.reader, dt: this.dtype, tile: this.tile, acc: this.access };
  }
  protected override applyExtraState(s: Record<string, string>) {
    if (s.w) this.writer = s.w;
    if (s.r) this.reader = s.r;
    if (s.dt) this.dtype = s.dt;
    if (s.tile) this.tile = s.tile;
    if (s.acc === 'write' || s.acc === 'read') this.access = s.acc;
  }

  private get index(): number {
    const m = this.selection ? /^C:(\d+)$/.exec(this.selection) : null;
    const i = m ? Number(m[1]) : 0;
    return this.costs.has(i) ? i : 0;
  }
  get candidate(): LsCandidate | undefined {
    return this.advice?.candidates[this.index];
  }

  protected override recompute() {
    const e = this.eng;
    if (!e) return;
    this.err = undefined;
    this.advice = undefined;
    this.costs = new Map();
    this.shown = [];
    const asked = ++this.asked;
    this.setRanking(false);
    const ps = e.parseShape(this.tile);
    if (!ps.ok) {
      this.err = { e: ps.error, field: 'tile' };
      return;
    }
    this.tileShape = ps.shape;
    const eb = e.dtypeBytes(this.dtype);
    if (!eb.ok) {
      this.err = { e: eb.error, field: 'dtype' };
      return;
    }
    this.elemBytes = eb.bytes;
    // the ranking walks every candidate over the whole tile: in the engine's worker, the page stays responsive
    this.setRanking(true);
    const { writer, reader, dtype, tileShape } = this;
    void offMain(e, 'advise', writer, reader, dtype, tileShape).then(async (a) => {
      if (asked !== this.asked) return;
      // the costs of the candidates drawn, both accesses, in the worker too (hundreds of ms for a 16x32 tile)
      const cost = (c: LsCandidate, side: string) => {
        const { lanes, instr } = splitSide(side);
        return offMain(e, 'accessCost', c.layout, tileShape, dtype, instr, lanes, null);
      };
      const drawn = a.ok ? shownOf(a).map((i) => a.candidates[i]) : [];
      const shown = a.ok ? shownOf(a) : [];
      const costs = await Promise.all(drawn.map((c) => Promise.all([cost(c, writer), cost(c, reader)])));
      if (asked !== this.asked) return;
      this.setRanking(false);
      this.safely(() => this.ranked(a, shown, costs));
      this.requestUpdate();
    });
  }

  private setRanking(on: boolean) {
    this.ranking = on;
    this.toggleAttribute('data-busy', on);
  }

  /** The engine's ranking arrived: the candidates drawn and their costs. */
  private ranked(a: ReturnType<Engine['advise']>, shown: number[], costs: LsAccessCostResult[][]) {
    if (!a.ok) {
      this.err = { e: a.error, field: a.error.field || 'writer' };
      return;
    }
    this.advice = a;
    this.shown = shown;
    shown.forEach((i, k) => {
      const c = a.candidates[i];
      this.costs.set(i, [this.sideCost(c, costs[k][0]), this.sideCost(c, costs[k][1])]);
    });
    this.clampStep();
  }

  /** One access of a candidate: the engine's cost, and for every instruction each lane's bank and wavefront. */
  private sideCost(c: LsCandidate, cost: LsAccessCostResult): SideCost | null {
    const e = this.eng!;
    if (!cost.ok || !cost.sharedCounted) return null;
    // bytes one lane moves per instruction, as the engine costs the instruction
    const width = cost.bytesPerLane;
    // Each instruction's banks are asked of the engine when first drawn: the list draws one instruction per
    // candidate and the step view the chosen candidate's, so the ranking's arrival costs a few dozen engine calls
    // instead of two per instruction of every candidate (hundreds for a 16x32 tile, one long task).
    const { layout } = c;
    const { tileShape, elemBytes } = this;
    const steps = cost.instructions.map((ins): Step => {
      const active = ins.lanes.flatMap((x, l) => (x >= 0 ? [l] : []));
      let bank: LsBankAccess | null | undefined;
      return {
        lanes: ins.lanes,
        wavefronts: ins.wavefronts,
        ideal: ins.idealWavefronts,
        get bank() {
          if (bank === undefined) {
            const addrs = e.laneAddresses(
              layout,
              tileShape,
              active.map((l) => ins.lanes[l]),
              elemBytes,
            );
            const b = addrs.ok ? e.bankAccess(addrs.addrs, width) : null;
            bank = b && b.ok ? b : null;
          }
          return bank;
        },
        active,
      };
    });
    return { cost, steps };
  }

  private get stepped(): SideCost | null {
    return this.costs.get(this.index)?.[this.access === 'write' ? 0 : 1] ?? null;
  }
  private clampStep() {
    const s = this.stepped;
    const n = s?.steps.length ?? 0;
    if (this.instr >= n) this.instr = 0;
    const waves = s?.steps[this.instr]?.wavefronts ?? 0;
    if (this.wave >= waves) this.wave = -1;
  }

  override select(hit: string | null) {
    // a cell of the step view lights its wavefront; the selection stays the candidate
    const w = hit ? /^W:(\d+):/.exec(hit) : null;
    if (w) {
      this.wave = Number(w[1]);
      return;
    }
    super.select(hit);
    this.instr = 0;
    this.wave = -1;
  }

  protected navGrid(): string[][] {
    return this.shown.map((i) => [`C:${i}`]);
  }

  protected announce(): string {
    const c = this.candidate;
    return c
      ? `${c.name}: ${this.tr('writeWf')} ${c.writeWavefronts}, ${this.tr('readWf')} ${c.readWavefronts}, ${c.sharedBytes} B`
      : '';
  }

  // ---- drawing -----------------------------------------------------------------------------------------

  protected buildScene(p: Palette): Scene {
    const items: Item[] = [];
    const a = this.advice;
    if (!a) return { width: 300, height: 40, background: p.bg, items };
    const dark = p.name === 'dark';
    // the engine's bank model: one column per bank
    const { banks } = this.eng!.bankModel();
    // the ranked list: name, wavefronts, bytes, and a strip of the banks of the read's first instruction
    const rowH = 30,
      top = 44,
      x0 = 8;
    const cols = [x0, x0 + 34, x0 + 200, x0 + 300, x0 + 400];
    const stripX = x0 + 480,
      bw = 5;
    items.push({ t: 'text', x: x0, y: 14, s: this.tr('candidates'), size: 13, fill: p.fg, weight: 'bold' });
    const heads = ['#', this.tr('layoutName'), this.tr('writeWf'), this.tr('readWf'), this.tr('sharedBytes')];
    heads.forEach((h, i) => items.push({ t: 'text', x: cols[i], y: top - 10, s: h, size: 11, fill: p.muted }));
    items.push({ t: 'text', x: stripX, y: top - 10, s: this.tr('readBanks'), size: 11, fill: p.muted });
    const cur = this.cursorHit();
    this.shown.forEach((i, row) => {
      const cc = this.costs.get(i)!;
      const c = a.candidates[i];
      const y = top + row * rowH;
      const hit = `C:${i}`;
      const sel = i === this.index;
      items.push({
        t: 'rect',
        x: x0 - 4,
        y,
        w: stripX + banks * bw + 12 - x0,
        h: rowH - 4,
        fill: sel ? (dark ? '#1d3b52' : '#dcecf8') : p.bg,
        stroke: sel ? p.select : cur === hit ? p.related : p.grid,
        sw: sel ? 2 : 0.5,
        dash: cur === hit && !sel ? '3 2' : undefined,
        hit,
        title: `${c.name}: ${c.writeWavefronts}/${c.writeIdeal} write, ${c.readWavefronts}/${c.readIdeal} read wavefronts, ${c.sharedBytes} B`,
      });
      const cy = y + rowH / 2;
      const ok = c.conflictFree;
      items.push({ t: 'text', x: cols[0], y: cy, s: rankLabel(a.candidates, i), size: 12, fill: p.fg });
      items.push({
        t: 'text',
        x: cols[1],
        y: cy,
        s: c.name,
        size: 12,
        fill: p.fg,
        mono: true,
        weight: ok ? 'bold' : 'normal',
      });
      const wf = (n: number, ideal: number, counted = true) =>
        counted ? `${n} (${this.tr('ideal')} ${ideal})` : 'TMA';
      items.push({
        t: 'text',
        x: cols[2],
        y: cy,
        s: wf(c.writeWavefronts, c.writeIdeal, c.writeCounted),
        size: 12,
        fill: p.fg,
      });
      items.push({ t: 'text', x: cols[3], y: cy, s: wf(c.readWavefronts, c.readIdeal), size: 12, fill: p.fg });
      items.push({ t: 'text', x: cols[4], y: cy, s: `${c.sharedBytes} B`, size: 12, fill: p.fg });
      // bank strip: each bank's height is the wavefronts it needs in the read's first instruction
      const first = cc[1]?.steps[0];
      if (first?.bank) {
        const need = this.wavesPerBank(first);
        const max = Math.max(1, ...need);
        need.forEach((n, b) => {
          const h = n ? Math.max(2, ((rowH - 8) * n) / max) : 0;
          items.push({
            t: 'rect',
            x: stripX + b * bw,
            y: y + rowH - 6 - h,
            w: bw - 1,
            h,
            fill: n > 1 ? p.conflict : p.ok,
          });
        });
        items.push({
          t: 'text',
          x: stripX + banks * bw + 4,
          y: cy,
          s: `${Math.max(...need)}×`,
          size: 10,
          fill: p.muted,
        });
      }
    });
    let bottom = top + this.shown.length * rowH;
    small(items, p, x0, bottom + 10, this.tr('advisorLegend'), 'start');
    bottom += 20;
    // the floor: when no candidate is conflict-free, how far above the ideal the best is and how many reach it
    const best = a.candidates[0];
    if (best && !best.conflictFree) {
      const atBest = a.candidates.filter(
        (c) => c.writeWavefronts === best.writeWavefronts && c.readWavefronts === best.readWavefronts,
      ).length;
      const k = Math.max(
        best.writeWavefronts / Math.max(1, best.writeIdeal),
        best.readWavefronts / Math.max(1, best.readIdeal),
      );
      const note = this.tr('floorNote')
        .replace('{n}', String(a.searched))
        .replace('{w}', String(best.writeWavefronts))
        .replace('{wi}', String(best.writeIdeal))
        .replace('{r}', String(best.readWavefronts))
        .replace('{ri}', String(best.readIdeal))
        .replace('{k}', k.toFixed(1).replace(/\.0$/, ''))
        .replace('{t}', String(atBest));
      items.push({ t: 'text', x: x0, y: bottom + 6, s: note, size: 11, fill: p.fg });
      bottom += 18;
    }
    if (this.shown.some((i) => rankLabel(a.candidates, i).endsWith('='))) {
      small(items, p, x0, bottom + 6, this.tr('tiesNote'), 'start');
      bottom += 18;
    }
    // the selected candidate's wavefronts, step by step
    const s = this.stepped;
    const st = s?.steps[this.instr];
    const gy = bottom + 36;
    const c = this.candidate!;
    items.push({
      t: 'text',
      x: x0,
      y: bottom + 16,
      s: `${c.name} · ${this.access === 'write' ? this.tr('writeWf') : this.tr('readWf')} · ${this.tr('instruction')} ${this.instr + 1}/${s?.steps.length ?? 0}`,
      size: 13,
      fill: p.fg,
      weight: 'bold',
    });
    if (!st?.bank) {
      items.push({ t: 'text', x: x0, y: gy + 10, s: this.tr('noBankCounter'), size: 12, fill: p.muted });
      return { width: stripX + banks * bw + 40, height: gy + 30, background: p.bg, items };
    }
    const cw = 26,
      ch = 20,
      gx = x0 + 70;
    for (let b = 0; b < banks; ++b)
      items.push({
        t: 'text',
        x: gx + b * cw + cw / 2,
        y: gy - 6,
        s: String(b),
        size: 10,
        fill: p.muted,
        anchor: 'middle',
      });
    items.push({ t: 'text', x: gx - 8, y: gy - 6, s: this.tr('bank'), size: 10, fill: p.muted, anchor: 'end' });
    const byCell = new Map<string, number[]>();
    st.bank.laneBank.forEach((b, k) => {
      const key = `${st.bank!.laneCycle[k]},${b}`;
      byCell.set(key, [...(byCell.get(key) ?? []), st.active[k]]);
    });
    const waves = st.bank.cycles;
    for (let w = 0; w < waves; ++w) {
      const lit = this.wave < 0 || this.wave === w;
      items.push({
        t: 'text',
        x: gx - 8,
        y: gy + w * ch + ch / 2,
        s: `${this.tr('wavefronts').replace(/s$/, '')} ${w + 1}`,
        size: 10,
        fill: lit ? p.fg : p.muted,
        anchor: 'end',
        weight: this.wave === w ? 'bold' : 'normal',
      });
      for (let b = 0; b < banks; ++b) {
        const lanes = byCell.get(`${w},${b}`);
        const hit = `W:${w}:${b}`;
        const fill = lanes ? hex(hueRgb(lanes[0] / 32, dark)) : p.cell;
        items.push({
          t: 'rect',
          x: gx + b * cw,
          y: gy + w * ch,
          w: cw,
          h: ch,
          fill: lit ? fill : p.cell,
          stroke: this.wave === w ? p.select : p.grid,
          sw: this.wave === w ? 1.5 : 0.5,
          title: lanes
            ? `${this.tr('wavefronts').replace(/s$/, '')} ${w + 1}, bank ${b}: lane ${lanes.join(', ')}`
            : undefined,
          hit: lanes ? hit : undefined,
        });
        if (lanes)
          items.push({
            t: 'text',
            x: gx + b * cw + cw / 2,
            y: gy + w * ch + ch / 2,
            s: lanes.length > 1 ? `${lanes[0]}+` : String(lanes[0]),
            size: 10,
            fill: lit && lanes ? inkOn(hueRgb(lanes[0] / 32, dark)) : p.muted,
            anchor: 'middle',
          });
      }
    }
    const ly = gy + waves * ch + 16;
    small(items, p, x0, ly, this.tr('stepLegend'), 'start');
    return {
      width: Math.max(gx + banks * cw + 10, stripX + banks * bw + 40),
      height: ly + 12,
      background: p.bg,
      items,
    };
  }

  /** Wavefronts each bank needs in one instruction: one more than the last wavefront a lane on it is served in. */
  private wavesPerBank(st: Step): number[] {
    const { banks } = this.eng!.bankModel();
    const need = new Array<number>(banks).fill(0);
    st.bank!.laneBank.forEach((b, k) => (need[b % banks] = Math.max(need[b % banks], st.bank!.laneCycle[k] + 1)));
    return need;
  }

  // ---- the agent ---------------------------------------------------------------------------------------

  /** The first agent the benchmark panel holds that is ready (the panel reads the token from the URL). */
  private agent(): AgentClient | null {
    const panel = document.querySelector('ls-bench-panel') as
      (Element & { agents?: { client: AgentClient; state: string }[] }) | null;
    return panel?.agents?.find((a) => a.state === 'ready')?.client ?? null;
  }
  private agentTimer = 0;
  private hadAgent = false;
  override connectedCallback() {
    super.connectedCallback();
    // the panel connects on its own schedule: show the button once it has an agent
    this.agentTimer = window.setInterval(() => {
      const has = !!this.agent();
      if (has !== this.hadAgent) {
        this.hadAgent = has;
        this.requestUpdate();
      }
    }, 1000);
  }
  override disconnectedCallback() {
    super.disconnectedCallback();
    clearInterval(this.agentTimer);
  }

  private async measure() {
    const client = this.agent();
    const c = this.candidate;
    if (!client || !c) return;
    const key = c.name;
    const set = (m: Measured) => (this.measured = { ...this.measured, [key]: m });
    set({ state: 'running', message: this.tr('measuring'), counters: [] });
    try {
      const res = await client.json<{ id: string }>('/v1/runs', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          benchmark: 'smem_access',
          params: {
            writer: this.writer,
            reader: this.reader,
            tile: this.tileShape,
            dtype: this.dtype,
            candidate: c.name,
          },
          profile: true,
        }),
      });
      for await (const ev of client.events(res.id)) {
        set({ state: 'running', message: `${ev.data?.status ?? ''} ${ev.data?.message ?? ''}`.trim(), counters: [] });
        if (ev.event === 'end') break;
      }
      const rec = await client.json<RunRecord>(`/v1/runs/${encodeURIComponent(res.id)}`);
      if (rec.status !== 'succeeded') {
        set({ state: 'error', message: rec.error ?? rec.status, counters: [] });
        return;
      }
      set({ state: 'done', message: '', ...profileCounters(rec.result) });
    } catch (err) {
      set({ state: 'error', message: (err as Error).message, counters: [] });
    }
  }

  // ---- controls ----------------------------------------------------------------------------------------

  private apply(e: Event) {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const get = (n: string) => (form.elements.namedItem(n) as HTMLInputElement | HTMLSelectElement).value;
    this.writer = get('writer');
    this.reader = get('reader');
    this.dtype = get('dtype');
    this.tile = get('tile');
    this.selection = null;
    this.instr = 0;
    this.wave = -1;
    this.safely(() => this.recompute());
    this.saveState();
    this.requestUpdate();
  }

  private example(k: number) {
    const ex = EXAMPLES[k];
    if (!ex) return;
    [, this.writer, this.reader, this.dtype, this.tile] = ex;
    this.selection = null;
    this.go(0, -1);
    this.safely(() => this.recompute());
    this.saveState();
    this.requestUpdate();
  }

  private go(instr: number, wave: number) {
    this.instr = instr;
    this.wave = wave;
  }
  /** Next wavefront; past the last one of an instruction, the next instruction's first. */
  private next(dir: 1 | -1) {
    const s = this.stepped;
    if (!s) return;
    const waves = (i: number) => s.steps[i].bank?.cycles ?? 0;
    let i = this.instr,
      w = this.wave + dir;
    if (w >= waves(i)) {
      i = (i + 1) % s.steps.length;
      w = 0;
    } else if (w < 0) {
      i = (i - 1 + s.steps.length) % s.steps.length;
      w = waves(i) - 1;
    }
    this.go(i, w);
  }

  protected override controls() {
    const fieldText: Record<string, string> = {
      writer: this.writer,
      reader: this.reader,
      tile: this.tile,
      dtype: this.dtype,
    };
    const at = EXAMPLES.findIndex(
      ([, w, r, d, t]) => w === this.writer && r === this.reader && d === this.dtype && t === this.tile,
    );
    return html`<label
        >${this.tr('example')}
        <select class="example" @change=${(e: Event) => this.example(Number((e.target as HTMLSelectElement).value))}>
          <option value="-1" ?selected=${at < 0}>—</option>
          ${EXAMPLES.map(([label], k) => html`<option value=${k} ?selected=${at === k}>${label[this.language === 'zh' ? 1 : 0]}</option>`)}
        </select></label
      >
      <form class="inputs" @submit=${this.apply}>
        <label>${this.tr('writer')} <input name="writer" size="34" spellcheck="false" .value=${this.writer} /></label>
        <label>${this.tr('reader')} <input name="reader" size="40" spellcheck="false" .value=${this.reader} /></label>
        <label
          >${this.tr('dtype')}
          <select name="dtype">
            ${(this.eng?.dtypeNames() ?? [this.dtype]).map((d) => html`<option value=${d} ?selected=${this.dtype === d}>${d}</option>`)}
          </select></label
        >
        <label>${this.tr('tile')} <input name="tile" size="6" spellcheck="false" .value=${this.tile} /></label>
        <button type="submit">${this.tr('apply')}</button>
      </form>
      ${
        this.err
          ? html`<div class="full">
            ${renderInputError({
              message: this.err.e.message,
              field: this.err.field,
              text: fieldText[this.err.field] ?? '',
              column: this.err.e.column,
            })}
          </div>`
          : nothing
      }`;
  }

  protected details() {
    const c = this.candidate;
    const s = this.stepped;
    if (!c || !this.advice) return nothing;
    const m = this.measured[c.name];
    const agent = this.agent();
    const n = s?.steps.length ?? 0;
    return html`<div class="stepper">
        <span role="group" aria-label=${this.tr('access')}>
          ${(['write', 'read'] as const).map(
            (a) =>
              html`<button type="button" class="access-${a}" aria-pressed=${this.access === a} @click=${() => {
                this.access = a;
                this.go(0, -1);
                this.saveState();
              }}>${a === 'write' ? this.tr('writeWf') : this.tr('readWf')}</button>`,
          )}
        </span>
        <button type="button" class="prev" ?disabled=${!n} @click=${() => this.next(-1)}>◀ ${this.tr('prevWave')}</button>
        <button type="button" class="next" ?disabled=${!n} @click=${() => this.next(1)}>${this.tr('nextWave')} ▶</button>
        <button type="button" class="all" ?disabled=${!n} @click=${() => this.go(this.instr, -1)}>${this.tr('allWaves')}</button>
        <span class="step-readout" aria-live="polite">${this.stepText()}</span>
      </div>
      <p class="rules">
        ${this.advice.rules.map(
          (r) =>
            html`<span class="rule">${r.rule}: <strong>${r.choice || '—'}</strong>${r.candidate ? ` (${r.candidate.readWavefronts} ${this.tr('readWf')})` : ''}; </span>`,
        )}
      </p>
      ${
        agent
          ? html`<div class="measure-box">
            <button type="button" class="measure" ?disabled=${m?.state === 'running'} @click=${() => void this.measure()}>
              ${this.tr('measureGpu')}
            </button>
            ${this.measuredView(c, m)}
          </div>`
          : html`<p class="no-agent">${this.tr('noAgentAdvisor')}</p>`
      }`;
  }

  private stepText(): string {
    const s = this.stepped;
    const st = s?.steps[this.instr];
    if (!st?.bank) return this.tr('noBankCounter');
    const lanes =
      this.wave < 0 ? '' : st.bank.laneCycle.flatMap((w, k) => (w === this.wave ? [st.active[k]] : [])).join(', ');
    return this.wave < 0
      ? `${this.tr('instruction')} ${this.instr + 1}: ${this.count(st.bank.cycles, 'wavefronts')} (${this.tr('ideal')} ${st.ideal})`
      : `${this.tr('instruction')} ${this.instr + 1}, ${this.tr('wavefronts').replace(/s$/, '')} ${this.wave + 1}/${st.bank.cycles}: lanes ${lanes}`;
  }

  private measuredView(c: LsCandidate, m: Measured | undefined) {
    if (!m) return nothing;
    if (m.state === 'error') return html`<span class="error measure-error" role="alert">${m.message}</span>`;
    if (m.state === 'running') return html`<span class="measure-status">${m.message}</span>`;
    // the engine's numbers for the same counters: conflicts are wavefronts beyond the ideal (as ncu counts them)
    const predicted: Record<string, number> = {
      'write wavefronts': c.writeWavefronts,
      'write conflicts': c.writeWavefronts - c.writeIdeal,
      'read wavefronts': c.readWavefronts,
      'read conflicts': c.readWavefronts - c.readIdeal,
    };
    return html`<table class="measured">
        <tr><th>${this.tr('counter')}</th><th>${this.tr('measuredCol')}</th><th>${this.tr('predictedCol')}</th></tr>
        ${m.counters.map(
          ([k, v]) => html`<tr><td class="mono">${k}</td><td>${v ?? '—'}</td><td>${predicted[k] ?? ''}</td></tr>`,
        )}
      </table>
      ${m.notes?.length ? html`<p class="measure-notes muted">${this.tr('notMeasured')}: ${m.notes.join('; ')}</p>` : nothing}`;
  }

  protected exportData() {
    return this.advice ?? { error: this.err };
  }

  override render() {
    if (this.eng && !this.advice && !this.inputError)
      return html`<div class="bar">${this.controls()}</div>
        ${this.ranking ? html`<p class="ranking" role="status"><span class="spinner" aria-hidden="true"></span> ${this.tr('ranking')}</p>` : nothing}`;
    return super.render();
  }
}

/** The counters an agent measured for each access of a result document (benchmarks[].states[].measured, one
 * state per access: "write" and "read"), or why they are missing. */
function profileCounters(result: RunRecord['result']): { counters: [string, number | null][]; notes: string[] } {
  const out: [string, number | null][] = [];
  const notes: string[] = [];
  for (const b of result?.benchmarks ?? [])
    for (const s of b.states ?? []) {
      const m = s.measured;
      const who = s.axis_values?.access ?? '';
      if (!m) continue;
      if (m.available === false) {
        // not measured: the counters are still listed, with the prediction beside an empty measurement
        for (const k of ['wavefronts', 'conflicts']) out.push([`${who} ${k}`, null]);
        notes.push(`${who}: ${String(m.reason ?? '')}`);
        continue;
      }
      for (const k of ['wavefronts', 'conflicts'] as const)
        if (typeof m[k] === 'number' || m[k] === null) out.push([`${who} ${k}`, m[k] ?? null]);
    }
  return { counters: out, notes };
}

customElements.define('ls-advisor', LsAdvisor);
