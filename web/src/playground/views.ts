// The playground's scene: the logical and physical views as cells or rasters, their ticks and legend, the marks of
// the selection, and the readout of a cell.
import type { LsPlayground } from './playground.js';
import type { Item, Scene } from '../core/scene.js';
import { inkOn, type Palette } from '../core/theme.js';
import { hex, hueRgb } from '../core/physical.js';
import { RASTER_CELLS, RASTER_AREA, MAX_MARKS, type RasterSource } from './model.js';
import { type Colours, fillRaster, hexRgb } from './raster.js';
import { textWidth } from '../figures/draw.js';

/** The colour of logical element x, from a table of at most 1024 colours made once per scene (a raster of a
 * million cells looks colours up instead of computing them). */
export function colourOf(pg: LsPlayground, x: number, _dark?: boolean): [number, number, number] {
  const f = pg.lutNow!;
  return f.lut[Math.min(f.lut.length - 1, Math.floor((f.index(x) * f.lut.length) / f.n))];
}

export function prepareColours(pg: LsPlayground, dark: boolean) {
  pg.lutNow = colourTable(pg, dark, pg.rows, pg.cols);
}

/** The colour table of a rows x cols logical shape under the current colouring. */
export function colourTable(pg: LsPlayground, dark: boolean, rows: number, cols: number): Colours {
  const c = pg.colour;
  const n = Math.max(1, c === 'col' ? cols : c === 'row' ? rows : rows * cols);
  const steps = Math.min(n, 1024);
  const key = `${c}|${dark}|${steps}`;
  let lut = pg.lut.get(key);
  if (!lut) {
    lut = Array.from({ length: steps }, (_, k) => hueRgb(k / steps, dark));
    pg.lut.set(key, lut);
  }
  return {
    lut,
    n,
    index: c === 'col' ? (x) => x % cols : c === 'row' ? (x) => Math.floor(x / cols) : (x) => x,
  };
}

/** Tick labels along one edge: every k-th so that labels do not touch. */
export function ticks(
  pg: LsPlayground,
  items: Item[],
  p: Palette,
  n: number,
  size: number,
  at: (i: number) => [number, number],
  text: (i: number) => string,
  anchor: 'end' | 'middle',
  chars = 3,
) {
  // a stacked compare figure draws its ticks at STACKED_LABEL_MIN px, the others at 10
  const font = pg.labelFloor > LABEL_MIN ? STACKED_LABEL_MIN : 10;
  // the room a tick takes: its digits (6.5 px each at 10 px), and at 11 px a gap of 4 px between neighbours
  const need = anchor === 'middle' ? Math.max(14, font > 10 ? chars * 7.2 + 4 : chars * 6.5) : font + 2;
  const every = Math.max(1, Math.ceil(need / Math.max(size, 0.001)));
  const step =
    [1, 2, 4, 5, 8, 10, 16, 20, 32, 50, 64, 100, 128, 256, 512, 1024, 2048, 4096].find((s) => s >= every) ?? every;
  for (let i = 0; i < n; i += step) {
    const [x, y] = at(i);
    items.push({ t: 'text', x, y, s: text(i), size: font, fill: p.muted, anchor });
  }
}

/** A grid of cells: one SVG rect per cell when small, else one cached raster; returns nothing, draws at (x, y). */
export function drawGrid(
  pg: LsPlayground,
  items: Item[],
  p: Palette,
  key: string,
  x: number,
  y: number,
  cw: number,
  ch: number,
  rows: number,
  cols: number,
  fillAt: (at: number) => [number, number, number] | null,
  hitAt: (at: number) => string | undefined,
  labelAt: (at: number) => string | undefined,
  flagAt: (at: number) => boolean,
  source: RasterSource,
) {
  const dark = p.name === 'dark';
  if (rows * cols > RASTER_CELLS && rows * cols <= RASTER_AREA) {
    const cacheKey = `${key}|${p.name}|${pg.colour}`;
    let img = pg.rasterCache.get(cacheKey);
    if (!img) {
      let px = pg.pixelCache.get(cacheKey);
      if (!px) {
        px = new Uint8ClampedArray(rows * cols * 4);
        const out = new Uint32Array(px.buffer);
        const colours = pg.lutNow!;
        fillRaster(out, source, colours, pg.cols, pg.colour, hexRgb(p.cell), hexRgb(p.select), 0, out.length);
      }
      img = {
        t: 'image',
        x,
        y,
        w: cols * cw,
        h: rows * ch,
        pw: cols,
        ph: rows,
        pixels: px,
        hitAt: (c, r) => hitAt(r * cols + c),
      };
      pg.rasterCache.set(cacheKey, img);
    }
    items.push(img);
    return;
  }
  items.push({ t: 'rect', x, y, w: cols * cw, h: rows * ch, fill: p.cell, stroke: p.grid, sw: 0.5 });
  // a stacked compare figure numbers a grid's cells only when its largest number (a logical index) fits: all
  // or none, never the short numbers alone
  const digits = String(pg.rows * pg.cols - 1).length;
  const numbered =
    pg.labelFloor <= LABEL_MIN || Math.min(11, ch * 0.7, (cw - 2) / (DIGIT_EM * digits)) >= pg.labelFloor;
  for (let at = 0; at < rows * cols; ++at) {
    const rgb = fillAt(at);
    if (!rgb) continue;
    const r = Math.floor(at / cols),
      c = at % cols;
    const hit = hitAt(at);
    const bad = flagAt(at);
    items.push({
      t: 'rect',
      x: x + c * cw,
      y: y + r * ch,
      w: cw,
      h: ch,
      fill: hex(rgb),
      stroke: bad ? p.select : p.grid,
      sw: bad ? 2 : 0.5,
      hit,
      title: hit ? readout(pg, hit) : undefined,
      dash: bad ? '3 2' : undefined,
    });
    const lab = labelAt(at);
    // the number fits its cell: as large as the cell allows (11 at most), smaller for 3 and 4 digits, never
    // below LABEL_MIN (fit widens the cells of a numbered grid so that it never has to be)
    const size = lab === undefined ? 0 : Math.min(11, ch * 0.7, (cw - 2) / (DIGIT_EM * lab.length));
    if (lab !== undefined && numbered && ch >= 12 && size >= pg.labelFloor) {
      items.push({
        t: 'text',
        x: x + c * cw + cw / 2,
        y: y + r * ch + ch / 2,
        s: lab,
        size,
        fill: inkOn(rgb),
        anchor: 'middle',
      });
      pg.labelSize = Math.min(pg.labelSize, size);
    }
  }
  void dark;
}

/** Width of a digit in ems (the page's sans-serif digits are about 0.6 em; a little more, so that none touches
 * its cell's edge). */
const DIGIT_EM = 0.62;
/** The smallest number drawn in a cell, in scene units; the view never shows the scene smaller than this makes
 * 9 px on screen (labelMinWidth), it scrolls instead. */
export const LABEL_MIN = 7;

/** Cell sizes for a rows x cols grid in about w x h pixels: as wide as fits, at least 12 px tall when there is
 * room; below a pixel a cell is a fraction of one (a large view is an overview, drawn as a scaled raster). A grid
 * drawn as numbered cells (labelChars: the digits of its largest number) is made wide enough for its numbers at
 * LABEL_MIN and tall enough (12 px rows, up to 1600 px) to carry them: a 32x32 grid's 1023 fits its cell. */
export function fit(
  pg: LsPlayground,
  rows: number,
  cols: number,
  w: number,
  h: number,
  labelChars = 0,
): [number, number] {
  const px = (v: number) => (v >= 1 ? Math.floor(v) : v);
  const numbered = labelChars > 0 && rows * cols <= RASTER_CELLS;
  const cw = px(Math.max(Math.min(30, w / cols), numbered ? Math.ceil(DIGIT_EM * LABEL_MIN * labelChars + 2) : 0));
  const hh = numbered ? Math.max(h, Math.min(1600, rows * 12)) : h;
  const ch = px(Math.min(24, hh / rows, Math.max(cw, 12)));
  return [cw, ch];
}

/** The narrowest the view may show a scene whose smallest cell number is `size` scene units: that number at
 * 9 px on screen (0 when no cell carries a number). */
export function labelMinWidth(sceneWidth: number, size: number): number {
  return Number.isFinite(size) && size > 0 ? Math.ceil((sceneWidth * 9) / size) : 0;
}

/** The marks of the selected and hovered elements (and the keyboard cursor) in every view. */
export function drawMarks(pg: LsPlayground, items: Item[], p: Palette) {
  const g = pg.geom.get('L');
  if (g) marks(pg, items, p, 'L', g.x, g.y, g.cw, g.ch, pg.cols, pg.cursorHit());
  pg.sides.forEach((s, k) => {
    const gk = pg.geom.get(k ? 'Q' : 'P');
    if (!gk) return;
    const a = s.arr;
    let n = 0;
    for (const e of shown(pg)) {
      if (++n > MAX_MARKS) break;
      for (let r = 0; r < s.t.replicas; ++r) {
        const i = e * s.t.replicas + r;
        mark(
          pg,
          items,
          p,
          gk.x + a.colOf[i] * gk.cw,
          gk.y + a.rowOf[i] * gk.ch,
          gk.cw,
          gk.ch,
          pg.hl.has(e) ? undefined : '3 2',
        );
      }
    }
  });
}

/** The smallest number drawn in a cell of a stacked compare figure: it is drawn at its size (the scene is no
 * wider than its box), so this is its size on screen. */
export const STACKED_LABEL_MIN = 11;

/** The figure: the logical view and the physical views side by side; in compare mode, when that is wider than
 * `avail` (the box's width in pixels), one above the other, each grid as wide as the box allows, so that a pair
 * of 8x64 tiles reads without scrolling sideways (a cell number that would be under STACKED_LABEL_MIN px is left
 * out: the readout gives it). */
export function buildBase(pg: LsPlayground, p: Palette, avail = Infinity): Scene {
  const wide = buildViews(pg, p, false, avail);
  if (pg.sides.length < 2 || wide.width <= avail) return wide;
  return buildViews(pg, p, true, avail);
}

function buildViews(pg: LsPlayground, p: Palette, stacked: boolean, avail: number): Scene {
  const items: Item[] = [];
  const dark = p.name === 'dark';
  prepareColours(pg, dark);
  pg.labelSize = Infinity;
  pg.labelFloor = stacked ? STACKED_LABEL_MIN : LABEL_MIN;
  const views = 1 + pg.sides.length;
  const left = 56;
  // stacked: each grid gets the box's width less the row ticks on its left and a margin on its right
  const budget = stacked ? Math.max(120, avail - left - 40) : Math.max(260, Math.floor(1100 / views) - 40);
  /** the top of the current band of views: 0 side by side; below the previous view when stacked */
  let band = 0;
  let top = band + 74;
  const titleW = (s: string) => s.length * 7.6;
  let x = left;
  let bottom = 0;
  let right = 0;
  // logical view
  // stacked, a grid fills the box's width with cells of 12 px at least (a phone scrolls inside the figure)
  const wide = (cols: number) => (stacked ? Math.max(budget, cols * 12) : budget);
  // and rows 16 px tall, room for an 11 px number, as long as a view stays under 1600 px
  const tall = (rows: number, [cw, ch]: [number, number]): [number, number] =>
    stacked && rows * 16 <= 1600 && cw >= 12 ? [cw, 16] : [cw, ch];
  const [lw, lh] = tall(
    pg.rows,
    fit(pg, pg.rows, pg.cols, wide(pg.cols), 440, stacked ? 0 : String(pg.rows * pg.cols - 1).length),
  );
  const t0 = pg.sides[0].t;
  const logicalTitle = `${pg.tr('logical')} (${t0.shape.join('×')})`;
  items.push({ t: 'text', x, y: band + 14, s: logicalTitle, size: 13, fill: p.fg, weight: 'bold' });
  items.push({
    t: 'text',
    x,
    y: band + 30,
    s: `${pg.tr('row')} ↓ · ${pg.tr('col')} →`,
    size: stacked ? STACKED_LABEL_MIN : 10,
    fill: p.muted,
  });
  ticks(pg, items, p, pg.cols, lw, (c) => [x + c * lw + lw / 2, top - 8], String, 'middle', String(pg.cols).length);
  ticks(pg, items, p, pg.rows, lh, (r) => [x - 4, top + r * lh + lh / 2], String, 'end');
  pg.geom.set('L', { x, y: top, cw: lw, ch: lh });
  drawGrid(
    pg,
    items,
    p,
    'L',
    x,
    top,
    lw,
    lh,
    pg.rows,
    pg.cols,
    (at) => colourOf(pg, at, dark),
    (at) => `L:${at}`,
    (at) => String(at),
    () => false,
    { cellAt: null, replicas: 1, outOfRange: null },
  );
  bottom = Math.max(bottom, top + pg.rows * lh);
  x += Math.max(pg.cols * lw, titleW(logicalTitle)) + 70;
  right = Math.max(right, x);
  // physical views
  pg.sides.forEach((s, k) => {
    if (stacked) {
      band = bottom + 24;
      top = band + 74;
      x = left;
    }
    const a = s.arr;
    const grid = !a.width;
    // several axes down (warpid · laneid, gpuid_x · gpuid_y): the outermost groups the rows, named in a band
    // left of the inner axis's ticks; a tall grid of lanes gets rows tall enough to label
    const grouped = grid && a.down.length > 1;
    const [cw, ch] = tall(
      a.rows,
      fit(
        pg,
        a.rows,
        a.cols,
        wide(a.cols),
        grid ? Math.min(1600, Math.max(440, a.rows * 12)) : 440,
        stacked ? 0 : String(s.t.elements - 1).length,
      ),
    );
    const title =
      a.width && a.down[0] === 'm'
        ? `${k ? pg.tr('compare') + ': ' : ''}${pg.tr('memoryRows')} ${a.width} ${pg.tr('elements')} (${a.width * pg.elemBytes} B)`
        : a.width
          ? `${k ? pg.tr('compare') + ': ' : pg.tr('physical') + ': '}${a.down[0]} ${pg.tr('inRowsOf')} ${a.width}`
          : `${k ? pg.tr('compare') + ': ' : pg.tr('physical') + ': '}${a.down.join('·')} ↓ · ${a.across.join('·')} →`;
    items.push({ t: 'text', x, y: band + 14, s: title, size: 13, fill: p.fg, weight: 'bold' });
    items.push({
      t: 'text',
      x,
      y: band + 30,
      s: s.layout,
      size: stacked ? STACKED_LABEL_MIN : 10,
      fill: p.muted,
      mono: true,
    });
    const rowText = (r: number) => (grouped ? a.rowValues(r).slice(1) : a.rowValues(r)).join(',');
    const tickW = Math.max(textWidth(rowText(a.rows - 1), 10), textWidth(rowText(0), 10));
    const groupLabel = (v: number) => `${axisName(pg, a.down[0])} ${v}`;
    const groupW = grouped
      ? Math.max(textWidth(groupLabel(a.rowValues(0)[0]), 11), textWidth(groupLabel(a.rowValues(a.rows - 1)[0]), 11)) +
        12
      : 0;
    const x0 = x;
    if (grouped) x += groupW;
    const bankRow = a.down[0] === 'm' && a.width > 0 && (a.width * pg.elemBytes) % 128 === 0;
    const colTop = bankRow ? top - 22 : top - 8;
    if (grid) {
      // the physical axes by name: across above the column ticks, down above the row ticks
      items.push({
        t: 'text',
        x,
        y: top - 24,
        s: `${a.across.map((n) => axisName(pg, n)).join(' · ')} →`,
        size: 11,
        fill: p.fg,
      });
      const downNames = (grouped ? a.down.slice(1) : a.down).map((n) => axisName(pg, n)).join(' · ');
      items.push({ t: 'text', x: x - 4, y: top - 8, s: `${downNames} ↓`, size: 11, fill: p.fg, anchor: 'end' });
    }
    ticks(
      pg,
      items,
      p,
      a.cols,
      cw,
      (c) => [x + c * cw + cw / 2, colTop],
      (c) => a.colValues(c).join(','),
      'middle',
      String(a.cols).length,
    );
    if (bankRow) {
      const banks = banksOfColumns(pg, a.cols);
      ticks(
        pg,
        items,
        p,
        a.cols,
        cw,
        (c) => [x + c * cw + cw / 2, top - 8],
        (c) => `b${banks[c]}`,
        'middle',
        3,
      );
    }
    ticks(pg, items, p, a.rows, ch, (r) => [x - 4, top + r * ch + ch / 2], rowText, 'end');
    if (grouped) {
      // one band per value of the outer axis: its name and value, and a line where the next one starts
      let from = 0;
      for (let r = 1; r <= a.rows; ++r) {
        if (r < a.rows && a.rowValues(r)[0] === a.rowValues(from)[0]) continue;
        const y0 = top + from * ch,
          y1 = top + r * ch;
        items.push({
          t: 'text',
          x: x - tickW - 10,
          y: (y0 + y1) / 2,
          s: groupLabel(a.rowValues(from)[0]),
          size: 11,
          fill: p.fg,
          anchor: 'end',
        });
        items.push({ t: 'line', x1: x - tickW - 8, y1: y0 + 1, x2: x - tickW - 8, y2: y1 - 1, stroke: p.muted, sw: 1 });
        if (r < a.rows)
          items.push({ t: 'line', x1: x - tickW - 8, y1, x2: x + a.cols * cw, y2: y1, stroke: p.fg, sw: 1.5 });
        from = r;
      }
    }
    const key = k ? 'Q' : 'P';
    pg.geom.set(key, { x, y: top, cw, ch });
    drawGrid(
      pg,
      items,
      p,
      `${key}${k}`,
      x,
      top,
      cw,
      ch,
      a.rows,
      a.cols,
      (at) => (s.cellAt[at] >= 0 ? colourOf(pg, Math.floor(s.cellAt[at] / s.t.replicas), dark) : null),
      (at) => (s.cellAt[at] >= 0 ? `${key}:${pg.posKey(s, s.cellAt[at])}` : undefined),
      (at) => (s.cellAt[at] >= 0 ? String(Math.floor(s.cellAt[at] / s.t.replicas)) : undefined),
      (at) => s.cellAt[at] >= 0 && s.arr.outOfRange[s.cellAt[at]] === 1,
      { cellAt: s.cellAt, replicas: s.t.replicas, outOfRange: s.arr.outOfRange },
    );
    // a hardware range ending inside the drawn rows: a line where it ends (lane 32 of a warp)
    if (a.down.length === 1 && !a.width) {
      const lim = pg.limits[a.down[0]];
      const origin = a.rowValues(0)[0];
      if (lim !== undefined && lim - origin < a.rows) {
        const yy = top + (lim - origin) * ch;
        items.push({
          t: 'line',
          x1: x - 4,
          y1: yy,
          x2: x + a.cols * cw + 4,
          y2: yy,
          stroke: p.select,
          sw: 2,
          dash: '5 3',
        });
        items.push({
          t: 'text',
          x: x + a.cols * cw + 6,
          y: yy,
          s: `${a.down[0]} < ${lim}`,
          size: 10,
          fill: p.select,
        });
      }
    }
    bottom = Math.max(bottom, top + a.rows * ch);
    x = x0 + Math.max(x - x0 + a.cols * cw + 60, titleW(title), titleW(s.layout) * 0.8) + 40;
    right = Math.max(right, x);
  });
  // legend
  const ly = bottom + 22;
  const legendW = legend(pg, items, p, left, ly, dark);
  const width = stacked ? Math.max(right - 60, left + legendW + 20) : Math.max(x - 20, left + legendW + 20);
  // stacked, the scene is drawn at its size: no text under STACKED_LABEL_MIN px (ticks and the legend's ends)
  if (stacked)
    for (const it of items) if (it.t === 'text' && (it.size ?? 11) < STACKED_LABEL_MIN) it.size = STACKED_LABEL_MIN;
  return { width, height: ly + 40, background: p.bg, items };
}

/** Elements to mark: the selection and the hovered element. */
export function shown(pg: LsPlayground): Set<number> {
  if (pg.hoverX === null) return pg.hl;
  return new Set([...pg.hl, pg.hoverX]);
}

export function mark(
  pg: LsPlayground,
  items: Item[],
  p: Palette,
  x: number,
  y: number,
  w: number,
  h: number,
  dash?: string,
) {
  const mw = Math.max(w, 3),
    mh = Math.max(h, 3);
  items.push({
    t: 'rect',
    x: x - (mw - w) / 2,
    y: y - (mh - h) / 2,
    w: mw,
    h: mh,
    fill: 'none',
    stroke: dash ? p.related : p.select,
    sw: dash ? 2 : 2.5,
    dash,
  });
}

export function marks(
  pg: LsPlayground,
  items: Item[],
  p: Palette,
  _k: string,
  x: number,
  y: number,
  cw: number,
  ch: number,
  cols: number,
  cur: string | null,
) {
  let n = 0;
  for (const e of shown(pg)) {
    if (++n > MAX_MARKS) break;
    mark(pg, items, p, x + (e % cols) * cw, y + Math.floor(e / cols) * ch, cw, ch, pg.hl.has(e) ? undefined : '3 2');
  }
  if (cur?.startsWith('L:')) {
    const e = Number(cur.slice(2));
    items.push({
      t: 'rect',
      x: x + (e % cols) * cw - 1,
      y: y + Math.floor(e / cols) * ch - 1,
      w: cw + 2,
      h: ch + 2,
      fill: 'none',
      stroke: p.related,
      sw: 2,
      dash: '2 1',
    });
  }
}

/** The bank of each column of a memory row (byte address c * element bytes), from the engine's bank model. */
export function banksOfColumns(pg: LsPlayground, cols: number): number[] {
  const out: number[] = [];
  for (let c0 = 0; c0 < cols; c0 += 32) {
    const w = bankWidth(pg);
    const addrs = Array.from({ length: Math.min(32, cols - c0) }, (_, i) => wordAddress(pg, (c0 + i) * pg.elemBytes));
    const r = pg.eng!.bankAccess(addrs, w, null);
    out.push(...(r.ok ? r.laneBank : addrs.map(() => NaN)));
  }
  return out;
}

/** The access width bankAccess is asked about: one element, widened to the bank's word (the engine's). */
export function bankWidth(pg: LsPlayground): number {
  return pg.eng!.laneAccessBytes(pg.elemBytes);
}

/** A byte address aligned down to that width (two fp16 elements share one 4 B word, hence one bank). */
export function wordAddress(pg: LsPlayground, byte: number): number {
  return pg.eng!.accessStart(byte, bankWidth(pg));
}

export function legend(pg: LsPlayground, items: Item[], p: Palette, x: number, y: number, dark: boolean): number {
  const by = pg.colour === 'col' ? pg.tr('byCol') : pg.colour === 'row' ? pg.tr('byRow') : pg.tr('byIndex');
  const n = pg.colour === 'col' ? pg.cols : pg.colour === 'row' ? pg.rows : pg.rows * pg.cols;
  const title = `${pg.tr('colourBy')}: ${by}`;
  items.push({ t: 'text', x, y, s: title, size: 11, fill: p.fg });
  const gx = x + Math.max(150, textWidth(title, 11) + 24);
  for (let i = 0; i < 40; ++i)
    items.push({ t: 'rect', x: gx + i * 3, y: y - 6, w: 3, h: 12, fill: hex(hueRgb(i / 40, dark)) });
  items.push({ t: 'text', x: gx - 4, y, s: '0', size: 10, fill: p.muted, anchor: 'end' });
  const last = String(n - 1);
  items.push({ t: 'text', x: gx + 124, y, s: last, size: 10, fill: p.muted });
  // each entry starts after the widest the one before can be (a 1024x1024 index legend ends at 1048575)
  let lx = gx + 124 + textWidth(last, 10) + 16;
  items.push({ t: 'rect', x: lx, y: y - 6, w: 12, h: 12, fill: p.cell, stroke: p.grid, sw: 0.5 });
  items.push({ t: 'text', x: lx + 16, y, s: pg.tr('emptyPos'), size: 11, fill: p.fg });
  lx += 16 + textWidth(pg.tr('emptyPos'), 11) + 16;
  items.push({ t: 'rect', x: lx, y: y - 6, w: 12, h: 12, fill: 'none', stroke: p.select, sw: 2, dash: '3 2' });
  items.push({ t: 'text', x: lx + 16, y, s: pg.tr('outOfRange'), size: 11, fill: p.fg });
  lx += 16 + textWidth(pg.tr('outOfRange'), 11) + 16;
  // a stacked compare figure too narrow for its cells' numbers says where they are instead
  const numbers = pg.labelFloor > LABEL_MIN && !Number.isFinite(pg.labelSize) ? 'numbersHover' : 'numbersAre';
  items.push({ t: 'text', x: lx, y, s: pg.tr(numbers), size: 11, fill: p.fg });
  lx += textWidth(pg.tr(numbers), 11);
  const reps = pg.sides[0].t.replicas;
  if (reps > 1) items.push({ t: 'text', x: lx + 16, y, s: `${reps} ${pg.tr('replicas')}`, size: 11, fill: p.fg });
  return lx + 80 - x;
}

/** The readout of a hit: the element, its coordinate, its positions in each layout, and the bank of @m. */
export function readout(pg: LsPlayground, hit: string): string {
  const xs = [...pg.elementsOf(hit)];
  if (!xs.length) return '';
  const x = xs[0];
  const coord = pg.sides[0].t.shape.length > 1 ? `(${Math.floor(x / pg.cols)}, ${x % pg.cols})` : `(${x})`;
  const parts = pg.sides.map((s) => {
    const k = s.t.axes.length;
    const pos: string[] = [];
    for (let r = 0; r < s.t.replicas; ++r) {
      const base = (x * s.t.replicas + r) * k;
      pos.push(`{${s.t.axes.map((a, i) => `${a}: ${s.t.values[base + i]}`).join(', ')}}`);
    }
    const mi = s.t.axes.indexOf('m');
    let bank = '';
    if (mi >= 0) {
      const b = pg.eng!.bankAccess(
        [wordAddress(pg, s.t.values[x * s.t.replicas * k + mi] * pg.elemBytes)],
        bankWidth(pg),
        null,
      );
      if (b.ok) bank = ` bank ${b.laneBank[0]}`;
    }
    return pos.join(' ') + bank;
  });
  return `x = ${x} ${coord} → ${parts.join(' | ')}${xs.length > 1 ? ` (+${xs.length - 1} more here)` : ''}`;
}

/** A physical axis as the reader knows it: register, lane, warp (Triton's and PTX's words); others as named. */
export function axisName(pg: LsPlayground, axis: string): string {
  return axis === 'reg'
    ? pg.tr('axisReg')
    : axis === 'laneid'
      ? pg.tr('axisLane')
      : axis === 'warpid'
        ? pg.tr('axisWarp')
        : axis;
}
