// Where the playground draws each position of a layout: a grid in the layout's own physical coordinates.
//
//   S[(8,64):(64,1)]                      one axis (@m): rows of a chosen width, 32 banks x 4 B by default
//   S[(8,4,2):(4@laneid,1@laneid,1@reg)]  laneid down, reg across
//   S[(4,32,4):(1@TCol,1@TLane,1@byte)]   TLane down, (TCol, byte) across
//   S[(2,4,8):(1@gpuid_y,8@m,1@m)] + ...  devices (gpuid_x, gpuid_y) down, local memory across
//
// The positions are the engine's (a table); this file only arranges them. Axes start at 0 (or below, when the
// layout reaches negative values), so offsets stay visible: `+ O[8@laneid]` leaves lanes 0-7 empty. A position
// past an axis's hardware range (lane 39 of a 32-lane warp) is flagged, drawn in its place.
import type { LayoutscopeModule, LsResult, LsShape, LsTable } from '../generated/layoutscope.js';

/** Axes drawn across (the fast, "within one lane / one row" coordinates); every other axis is drawn down. */
const ACROSS = ['reg', 'TCol', 'byte', 'm', 'F', 'Bank', 'col'];

export interface Arrangement {
  /** the axes drawn down and across, outermost first */
  down: string[];
  across: string[];
  rows: number;
  cols: number;
  /** grid row and column of each table cell (element x replica) */
  rowOf: Int32Array;
  colOf: Int32Array;
  /** 1 where a table cell lies outside an axis's hardware range */
  outOfRange: Uint8Array;
  /** the values of the down / across axes at a grid row / column */
  rowValues(r: number): number[];
  colValues(c: number): number[];
  /** memory view: elements per drawn row (0 otherwise) */
  width: number;
}

interface AxisSpan {
  index: number;
  origin: number;
  extent: number;
}

function span(t: LsTable, axis: string): AxisSpan {
  const index = t.axes.indexOf(axis);
  const origin = Math.min(0, t.min[index]);
  return { index, origin, extent: t.max[index] - origin + 1 };
}

/** A mixed-radix grid coordinate over several axes (the first outermost). */
function radix(spans: AxisSpan[]) {
  const size = spans.reduce((a, s) => a * s.extent, 1);
  return {
    size,
    of(values: Float64Array, base: number) {
      let v = 0;
      for (const s of spans) v = v * s.extent + (values[base + s.index] - s.origin);
      return v;
    },
    values(v: number): number[] {
      const out = new Array<number>(spans.length);
      for (let i = spans.length - 1; i >= 0; --i) {
        out[i] = (v % spans[i].extent) + spans[i].origin;
        v = Math.floor(v / spans[i].extent);
      }
      return out;
    },
  };
}

/** The hardware limit of each axis (the engine's hardwareAxes): values at or past it are out of range. */
export type Limits = Record<string, number>;

function flagRange(t: LsTable, limits: Limits): Uint8Array {
  const cells = t.elements * t.replicas;
  const k = t.axes.length;
  const out = new Uint8Array(cells);
  const lim = t.axes.map((a) => limits[a] ?? Infinity);
  if (t.axes.every((_, a) => t.min[a] >= 0 && t.max[a] < lim[a])) return out;
  const values = t.values;
  for (let i = 0; i < cells; ++i)
    for (let a = 0; a < k; ++a) {
      const v = values[i * k + a];
      if (v < 0 || v >= lim[a]) {
        out[i] = 1;
        break;
      }
    }
  return out;
}

/** The per-cell arrays of an arrangement: what a worker computes and transfers (the rest is a few closures). */
export type Placement = Pick<Arrangement, 'rowOf' | 'colOf' | 'outOfRange'>;

/** One axis as rows of `width` values (the memory view): row = floor(v / width), column = v mod width. `done`:
 * the per-cell arrays already computed for the same table (by arrangeTable in a worker). */
export function memoryArrangement(
  t: LsTable,
  axis: string,
  width: number,
  limits: Limits,
  done?: Placement,
): Arrangement {
  const s = span(t, axis);
  const cells = t.elements * t.replicas;
  const k = t.axes.length;
  const rowOf = done?.rowOf ?? new Int32Array(cells);
  const colOf = done?.colOf ?? new Int32Array(cells);
  const values = t.values,
    index = s.index,
    origin = s.origin;
  for (let i = 0; !done && i < cells; ++i) {
    const v = values[i * k + index] - origin;
    const r = Math.floor(v / width);
    rowOf[i] = r;
    colOf[i] = v - r * width;
  }
  return {
    down: [axis],
    across: [axis],
    rows: Math.max(1, Math.ceil(s.extent / width)),
    cols: width,
    rowOf,
    colOf,
    outOfRange: done?.outOfRange ?? flagRange(t, limits),
    rowValues: (r) => [s.origin + r * width],
    colValues: (c) => [c],
    width,
  };
}

/** Several axes: the across axes (reg, TCol, byte, m, ...) as columns, the others as rows. */
export function gridArrangement(t: LsTable, limits: Limits, done?: Placement): Arrangement {
  let across = t.axes.filter((a) => ACROSS.includes(a));
  let down = t.axes.filter((a) => !ACROSS.includes(a));
  if (!down.length || !across.length) {
    down = [t.axes[0]];
    across = t.axes.slice(1);
  }
  // devices: x outermost, as a mesh is written (gpuid_x, gpuid_y, gpuid_z)
  down = [...down].sort((a, b) => (a.startsWith('gpuid_') && b.startsWith('gpuid_') ? a.localeCompare(b) : 0));
  across = [...across].sort((a, b) => ACROSS.indexOf(a) - ACROSS.indexOf(b));
  const dr = radix(down.map((a) => span(t, a)));
  const ac = radix(across.map((a) => span(t, a)));
  const cells = t.elements * t.replicas;
  const k = t.axes.length;
  const rowOf = done?.rowOf ?? new Int32Array(cells);
  const colOf = done?.colOf ?? new Int32Array(cells);
  for (let i = 0; !done && i < cells; ++i) {
    rowOf[i] = dr.of(t.values, i * k);
    colOf[i] = ac.of(t.values, i * k);
  }
  return {
    down,
    across,
    rows: dr.size,
    cols: ac.size,
    rowOf,
    colOf,
    outOfRange: done?.outOfRange ?? flagRange(t, limits),
    rowValues: dr.values,
    colValues: ac.values,
    width: 0,
  };
}

/** A table arranged for the playground: one axis as rows of `width` (the memory view, `width` for @m, else the
 * axis's range up to 128), several as a grid; and the first table cell at each grid place (-1: empty). */
export function arrangeTable(
  t: LsTable,
  width: number,
  limits: Limits,
  done?: Placement & { cellAt: Int32Array },
): { arr: Arrangement; cellAt: Int32Array } {
  const one = t.axes[0];
  const w = one === 'm' ? width : Math.min(limits[one] ?? t.shape[t.shape.length - 1], 128);
  const arr = t.axes.length === 1 ? memoryArrangement(t, one, w, limits, done) : gridArrangement(t, limits, done);
  if (done) return { arr, cellAt: done.cellAt };
  const cellAt = new Int32Array(arr.rows * arr.cols).fill(-1);
  const { rowOf, colOf, cols } = arr;
  for (let i = 0, n = t.elements * t.replicas; i < n; ++i) {
    const at = rowOf[i] * cols + colOf[i];
    if (cellAt[at] < 0) cellAt[at] = i;
  }
  return { arr, cellAt };
}

/** A table with its arrangement's per-cell arrays (what crosses from the engine's worker to the page). */
export interface ArrangedTable {
  t: LsTable;
  placement: Placement & { cellAt: Int32Array };
}

/** The engine's table of a layout and arrangeTable's arrays for it; the page rebuilds the Arrangement from them
 * with arrangeTable(t, width, limits, placement), which does no per-cell work. */
export function arrangedTable(
  m: LayoutscopeModule,
  layout: string,
  shape: LsShape,
  width: number,
  limits: Limits,
): LsResult<ArrangedTable> {
  const t = m.table(layout, shape, 0);
  if (!t.ok) return t;
  const { arr, cellAt } = arrangeTable(t, width, limits);
  return { ok: true, t, placement: { rowOf: arr.rowOf, colOf: arr.colOf, outOfRange: arr.outOfRange, cellAt } };
}

/** A readable colour for position t in [0, 1): a hue wheel at fixed lightness (logical column as colour). */
export function hueRgb(t: number, dark: boolean): [number, number, number] {
  const h = (t * 300) % 360; // stop short of red again, so the first and last column differ
  const s = 0.62;
  const l = dark ? 0.52 : 0.68;
  const c = (1 - Math.abs(2 * l - 1)) * s;
  const x = c * (1 - Math.abs(((h / 60) % 2) - 1));
  const m = l - c / 2;
  const [r, g, b] =
    h < 60
      ? [c, x, 0]
      : h < 120
        ? [x, c, 0]
        : h < 180
          ? [0, c, x]
          : h < 240
            ? [0, x, c]
            : h < 300
              ? [x, 0, c]
              : [c, 0, x];
  return [Math.round((r + m) * 255), Math.round((g + m) * 255), Math.round((b + m) * 255)];
}

export function hex([r, g, b]: [number, number, number]): string {
  return `#${((1 << 24) | (r << 16) | (g << 8) | b).toString(16).slice(1)}`;
}
