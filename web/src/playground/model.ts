// The playground's values: what the form's inputs are read into, one layout's engine results, and the limits
// that decide how a view is drawn (SVG cells or one raster, on the main thread or in the engine's worker).
import type { LsFinding, LsMesh, LsShape, LsTable } from '../core/engine.js';
import type { Arrangement, Limits } from '../core/physical.js';
import type { Notation } from './notation.js';

/** Above this many cells in a view it is drawn as one raster (one pixel block per cell) instead of SVG cells. */
export const RASTER_CELLS = 2048;
/** Largest raster (cells of a view's grid) the page draws. */
export const RASTER_AREA = 1 << 23;
/** Selection marks drawn at most (a position selection can name many elements). */
export const MAX_MARKS = 4096;
/** Above this many table cells the validator runs in the engine's worker (a few milliseconds below it). */
export const VALIDATE_HERE = 1 << 16;
/** Above this many table cells a layout is tabulated and arranged in the engine's worker and its rasters are
 * filled a slice per task: applying a million-cell layout keeps the page answering (each task a few tens of ms). */
export const OFF_MAIN_CELLS = 1 << 17;
/** Raster cells filled per task while a large layout is prepared. */
export const FILL_SLICE = 1 << 18;
export const DTYPES = ['f8', 'f16', 'f32', 'f64'] as const;

export type Colour = 'col' | 'row' | 'index';

/** What a raster view's cells hold: the first table cell at each place (null: the place is element x itself, the
 * logical view), the table's replicas, and its out-of-range flags. */
export interface RasterSource {
  cellAt: Int32Array | null;
  replicas: number;
  outOfRange: Uint8Array | null;
}

/** The form's inputs as the engine reads them: what the figure is computed from. */
export interface Inputs {
  /** the layout (and compare) texts read into the notation */
  read: Notation[];
  /** the shape the sides are computed on: the imported shape, else the form's */
  shapeNow: LsShape;
  meshNow: LsMesh | null;
  /** the logical shape's last extent */
  cols: number;
  elemBytes: number;
  limits: Limits;
  /** table cells (elements x holders) of the larger side */
  cells: number;
}

/** One layout's engine results and its arrangement. */
export interface Side {
  layout: string;
  t: LsTable;
  arr: Arrangement;
  /** first table cell at each grid place, -1 where empty */
  cellAt: Int32Array;
  /** the validator's findings; null until they are computed (after the figure is drawn) */
  findings: LsFinding[] | null;
}
