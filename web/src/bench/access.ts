// The warp accesses of one benchmark state, as the agent declared them next to its kernel and costed them with
// the engine (results' "predicted" blocks): each names its layout, shape, dtype, instruction and the first
// logical element every lane moves. The page reads those numbers; it asks the engine (WASM accessCost) again
// only for a what-if edit of the layout or the instruction, and it draws the lanes from lane_elements.
//
//   const a = accessesOf(state)[0];      // { instr: 'LDG.32', lane_elements: [[0, 8, 16, ...]], sectors_per_request: 32 }
//   checkMeasured(state, measured);      // [{ counter: 'ld', predicted: 32, measured: 32, ok: true }, ...]
//   whatIf(engine, a, a.layout, 'LDG.128'); // the engine's cost of the same lanes moving 16 B each
import { svg, type TemplateResult } from 'lit';
import type { Engine } from '../core/engine.js';
import type { LsAccessCost, LsResult, LsWalk } from '../generated/layoutscope.js';
import type { Measured, PredictedAccess, State } from './results.js';

export interface Access extends PredictedAccess {
  space: 'global' | 'shared';
  /** 'column': each lane's elements run down its column (the engine's column-vector walk); else along its row */
  vector?: 'row' | 'column';
}

/** The state's accesses, global ones first, in the order the agent declared them. */
export function accessesOf(st: State): Access[] {
  return [
    ...(st.predicted.global ?? []).map((a) => ({ ...a, space: 'global' as const })),
    ...(st.predicted.shared ?? []).map((a) => ({ ...a, space: 'shared' as const })),
  ];
}

/** Whether an access loads, stores or both: its instruction says (LDG/LDS load, STG/STS store), and a kernel
 * that stores with the pattern it loads with declares one access that "loads (and stores)"; results written
 * before the instruction was recorded say it in the access's words only. */
export function directions(a: PredictedAccess): ('load' | 'store')[] {
  if (a.instr) {
    const load = /^(LD|ldmatrix|cp\.async|tma)/i.test(a.instr);
    return load && /\(and stores\)/.test(a.access) ? ['load', 'store'] : [load ? 'load' : 'store'];
  }
  const out: ('load' | 'store')[] = [];
  if (/\bloads?\b|\bload:/.test(a.access)) out.push('load');
  if (/\bstores?\b|\bstore:|\(and stores\)/.test(a.access)) out.push('store');
  return out;
}

/** One ncu counter of a profile run against the engine's prediction of the access it counts. */
export interface Check {
  counter: 'ld' | 'st' | 'smem ld' | 'smem st';
  predicted: number;
  /** null: the counter saw no instruction of that kind (a bulk TMA store makes no LSU request) */
  measured: number | null;
  /** measured within 5 % of the prediction; null when there is no measurement */
  ok: boolean | null;
}

/** A prediction matches a counter when they differ by at most this fraction of the prediction. */
export const MATCH_TOLERANCE = 0.05;

/** The engine's per-instruction prediction (the first declared access of each kind, which the kernel runs)
 * next to what Nsight Compute counted over the whole kernel. */
export function checkMeasured(st: State, m: Measured): Check[] {
  const all = accessesOf(st);
  const first = (space: Access['space'], dir: 'load' | 'store') =>
    all.find((a) => a.space === space && directions(a).includes(dir) && !/not run/.test(a.access));
  const out: Check[] = [];
  const add = (
    counter: Check['counter'],
    a: Access | undefined,
    predicted: number | undefined,
    measured: number | null,
  ) => {
    if (!a || predicted === undefined) return;
    out.push({
      counter,
      predicted,
      measured,
      ok: measured === null ? null : Math.abs(measured - predicted) <= MATCH_TOLERANCE * predicted,
    });
  };
  const gl = first('global', 'load'),
    gs = first('global', 'store'),
    sl = first('shared', 'load'),
    ss = first('shared', 'store');
  add('ld', gl, gl?.sectors_per_request, m.loadSectors);
  add('st', gs, gs?.sectors_per_request, m.storeSectors);
  add('smem ld', sl, sl?.wavefronts, m.sharedLoadWavefronts);
  add('smem st', ss, ss?.wavefronts, m.sharedStoreWavefronts);
  return out;
}

/** The instructions a what-if may swap in: the access's own kind at every width the engine's catalogue has. */
export function instructionChoices(a: PredictedAccess): string[] {
  const op = (a.instr ?? '').split('.')[0].toUpperCase();
  if (op === 'LDG' || op === 'STG') return [8, 16, 32, 64, 128].map((b) => `${op}.${b}`);
  if (op === 'LDS' || op === 'STS') return [32, 64, 128].map((b) => `${op}.${b}`);
  return a.instr ? [a.instr] : [];
}

/** The engine's cost of the access's lanes under another layout or instruction (a what-if edit); the layout
 * text is what the user typed, parsed once by the engine. */
export function whatIf(e: Engine, a: Access, layout: string, instr: string): LsResult<LsAccessCost> {
  const first = a.lane_elements ?? null;
  const lanes = first && a.vector === 'column' ? { first, vector: 'column' as const } : first;
  return e.m.accessCost(layout, a.shape ?? null, a.dtype ?? 'f32', instr, lanes, null);
}

/** Bytes one lane moves under a canonical load/store instruction ("LDG.128": 16). */
export function laneBytes(instr: string): number {
  const bits = Number(/\.(\d+)$/.exec(instr)?.[1] ?? 32);
  return Math.max(1, bits / 8);
}

export interface LaneSpan {
  lane: number;
  /** byte address of the lane's first byte (the layout's @m offset x element bytes) */
  addr: number;
  bytes: number;
}

/** Each active lane's byte range in the first instruction: the engine's address of its first element. */
export function laneSpans(e: Engine, a: PredictedAccess, layout: string, instr: string): LaneSpan[] | string {
  const first = a.lane_elements?.[0];
  if (!first) return 'no lane_elements';
  const active = first.map((x, lane) => ({ x, lane })).filter((p) => p.x >= 0);
  const eb = e.dtypeBytes(a.dtype ?? 'f32');
  if (!eb.ok) return eb.error.message;
  const r = e.laneAddresses(
    layout,
    a.shape ?? null,
    active.map((p) => p.x),
    eb.bytes,
  );
  if (!r.ok) return r.error.message;
  const bytes = laneBytes(instr);
  return active.map((p, i) => ({ lane: p.lane, addr: r.addrs[i], bytes }));
}

const ROW = 128; // bytes per drawn row: 4 sectors of 32 B, or the 32 banks of 4 B
const CELL = 18;
const LEFT = 92;
const TOP = 30;

/** The lanes in memory: one row per 128 B line the access touches (untouched lines between them folded into a
 * "⋮" row), 32 words of 4 B across, sector borders (global) or bank numbers (shared) marked, each word a lane
 * touches filled in that lane's colour and labelled with the lane. */
export function lanePicture(
  spans: LaneSpan[],
  space: 'global' | 'shared',
  colours: string[],
  fg: string,
  label: string,
): TemplateResult {
  const lines = [
    ...new Set(spans.flatMap((s) => [Math.floor(s.addr / ROW), Math.floor((s.addr + s.bytes - 1) / ROW)])),
  ].sort((x, y) => x - y);
  const rows: (number | null)[] = [];
  for (const l of lines) {
    const prev = rows.length ? rows[rows.length - 1] : null;
    if (prev !== null && l > prev + 1) rows.push(null);
    rows.push(l);
  }
  const rowOf = new Map<number, number>();
  rows.forEach((l, i) => l !== null && rowOf.set(l, i));
  const words = new Map<string, { lane: number; first: boolean }>();
  for (const s of spans)
    for (let b = s.addr - (s.addr % 4); b < s.addr + s.bytes; b += 4) {
      const key = `${Math.floor(b / ROW)}:${(b % ROW) / 4}`;
      if (!words.has(key)) words.set(key, { lane: s.lane, first: b <= s.addr });
    }
  const width = LEFT + 32 * CELL + 8;
  const height = TOP + rows.length * CELL + 8;
  const base = lines.length ? lines[0] * ROW : 0;
  return svg`<svg class="lanes" role="img" aria-label=${label} viewBox="0 0 ${width} ${height}" width=${width} height=${height}>
    <text x=${LEFT - 6} y=${TOP - 10} text-anchor="end" font-size="10" fill=${fg}>${space === 'shared' ? 'bank' : 'B'}</text>
    ${Array.from({ length: 32 }, (_, w) =>
      w % (space === 'shared' ? 4 : 8) === 0
        ? svg`<text x=${LEFT + w * CELL + 2} y=${TOP - 10} font-size="10" fill=${fg}>${space === 'shared' ? w : w * 4}</text>`
        : svg``,
    )}
    ${rows.map((l, r) =>
      l === null
        ? svg`<text x=${LEFT - 6} y=${TOP + r * CELL + 13} text-anchor="end" font-size="11" fill=${fg}>⋮</text>`
        : svg`<text x=${LEFT - 6} y=${TOP + r * CELL + 13} text-anchor="end" font-size="10" fill=${fg}>+${l * ROW - base}</text>
          ${Array.from({ length: 32 }, (_, w) => {
            const hit = words.get(`${l}:${w}`);
            const x = LEFT + w * CELL;
            const y = TOP + r * CELL;
            return svg`<rect class=${hit ? 'lane-word' : 'word'} x=${x} y=${y} width=${CELL} height=${CELL}
                fill=${hit ? colours[hit.lane % colours.length] : 'none'} stroke=${fg} stroke-opacity="0.35"><title>${`+${l * ROW - base + 4 * w} B${hit ? `: lane ${hit.lane}` : ''}`}</title></rect>
              ${hit?.first ? svg`<text x=${x + CELL / 2} y=${y + 13} text-anchor="middle" font-size="9" fill="#000">${hit.lane}</text>` : svg``}`;
          })}`,
    )}
    ${
      space === 'global'
        ? [8, 16, 24].map(
            (w) =>
              svg`<line x1=${LEFT + w * CELL} x2=${LEFT + w * CELL} y1=${TOP - 4} y2=${TOP + rows.length * CELL} stroke=${fg} stroke-width="2"></line>`,
          )
        : svg``
    }
  </svg>`;
}

/** The engine's walks an access without recorded lanes may be drawn with: lanes along a row, down a column,
 * down the columns of v x v chunks, v elements a lane down a column ('column-vectors'), or a bulk copy's chunks
 * along the start of a row ('bulk'). */
export type Walk = LsWalk | 'bulk';

/** An access of results written before the agent recorded each lane's elements, given the lanes of the engine's
 * own walk over the run's layout: `walk` names it. */
export interface WalkedAccess {
  access: Access;
  walk: Walk;
  /** the recorded cost these lanes reproduce: sectors per request (global) or wavefronts (shared) */
  recorded: number;
}

/** The walks the access's words name, in the order they are tried: a bulk copy (TMA, issued by one thread) as
 * its chunks along a row; "a column of chunks"; a row or a column; words naming none of them try rows, columns,
 * then lanes of v elements down a column (one field of v records). */
export function walksOf(words: string): Walk[] {
  if (/\bTMA\b|\bbulk copy\b/i.test(words)) return ['bulk'];
  const column = /\bcolumns?\b/.test(words),
    row = /\brows?\b/.test(words);
  if (column && /\bchunks?\b/.test(words)) return ['chunks'];
  if (column && !row) return ['columns'];
  if (row && !column) return ['rows'];
  return ['rows', 'columns', 'column-vectors'];
}

/** For an access without lane_elements: the first instruction of an engine walk over the access's layout (its
 * drawing shape, f32, the instruction its kind and bytes per lane name), kept only when the engine's cost of
 * those lanes on that layout is the cost the results recorded for it. The access's words choose the walks
 * (walksOf); a bulk copy is the engine's window of its recorded lane count along the first row. null: no walk
 * reproduces it. */
export function engineWalk(e: Engine, a: Access): WalkedAccess | null {
  if (a.lane_elements) return null;
  const recorded = a.space === 'global' ? a.sectors_per_request : a.wavefronts;
  if (recorded === undefined) return null;
  const load = directions(a)[0] !== 'store';
  const op = a.space === 'global' ? (load ? 'LDG' : 'STG') : load ? 'LDS' : 'STS';
  const instr = a.instr ?? `${op}.${a.bytes_per_lane * 8}`;
  const dtype = a.dtype ?? 'f32';
  const ds = a.shape ? { ok: true as const, shape: a.shape } : e.drawingShape(a.layout);
  if (!ds.ok) return null;
  const shape = ds.shape;
  for (const walk of walksOf(a.access)) {
    let lanes: number[];
    if (walk === 'bulk') {
      const eb = e.dtypeBytes(dtype);
      if (!eb.ok || shape.length !== 2) continue;
      const per = Math.max(1, a.bytes_per_lane / eb.bytes);
      const w = e.windowLanes(shape, per, [0, 0, 1, a.lanes * per]);
      if (!w.ok) continue;
      lanes = w.lanes;
    } else {
      const w = e.m.firstWalkLanes(shape, dtype, instr, walk);
      if (!w.ok) continue;
      lanes = w.lanes;
    }
    const vector = walk === 'column-vectors' ? ('column' as const) : ('row' as const);
    const c = e.m.accessCost(a.layout, shape, dtype, instr, { first: [lanes], vector }, null);
    if (!c.ok) continue;
    const cost = a.space === 'global' ? c.total.sectors / Math.max(1, c.total.requests) : c.total.wavefronts;
    if (cost === recorded)
      return { access: { ...a, shape, dtype, instr, lane_elements: [lanes], vector }, walk, recorded };
  }
  return null;
}
