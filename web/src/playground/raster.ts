// A large view's raster: cells filled from typed arrays a slice at a time, between tasks.
import type { Colour, RasterSource } from './model.js';

/** A colour table: `lut` spread over `n` values of index(x) (the logical column, row or index). */
export interface Colours {
  lut: [number, number, number][];
  n: number;
  index: (x: number) => number;
}

/** Cells [from, to) of a view's raster in one pass over typed arrays: RGBA packed as one little-endian word a cell
 * (what ImageData holds), colours from a packed copy of the colour table. Same colours as colourOf. */
export function fillRaster(
  out: Uint32Array,
  { cellAt, replicas, outOfRange }: RasterSource,
  colours: Colours,
  cols: number,
  by: Colour,
  emptyRgb: [number, number, number],
  badRgb: [number, number, number],
  from: number,
  to: number,
) {
  const pack = ([r, g, b]: [number, number, number]) => (0xff000000 | (b << 16) | (g << 8) | r) >>> 0;
  const lut = Uint32Array.from(colours.lut, pack);
  const steps = lut.length,
    n = colours.n;
  const empty = pack(emptyRgb),
    bad = pack(badRgb);
  const end = Math.min(to, out.length);
  for (let at = from; at < end; ++at) {
    let x = at;
    if (cellAt) {
      const i = cellAt[at];
      if (i < 0) {
        out[at] = empty;
        continue;
      }
      if (outOfRange && outOfRange[i] === 1) {
        out[at] = bad;
        continue;
      }
      x = Math.floor(i / replicas);
    }
    const k = by === 'col' ? x % cols : by === 'row' ? Math.floor(x / cols) : x;
    out[at] = lut[Math.min(steps - 1, Math.floor((k * steps) / n))];
  }
}

/** The next task: a large layout's preparation yields between slices, so input and paint come in between. */
export function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => resolve();
    ch.port2.postMessage(null);
  });
}

export function hexRgb(h: string): [number, number, number] {
  const v = parseInt(h.slice(1, 7), 16);
  return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
}
