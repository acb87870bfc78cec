// Small drawing helpers shared by the figures: a cell with its label and its selection/related/cursor marks.
import type { Item } from '../core/scene.js';
import type { Palette } from '../core/theme.js';

export interface CellMarks {
  hit?: string;
  title?: string;
  label?: string;
  labelSize?: number;
  selected?: boolean;
  related?: boolean;
  cursor?: boolean;
  dim?: boolean;
}

/** Readable text colour on a categorical fill. */
export function textOn(p: Palette, fill: string): string {
  const i = p.cat.indexOf(fill);
  return i >= 0 ? p.catText[i] : p.fg;
}

export function cell(
  items: Item[],
  p: Palette,
  x: number,
  y: number,
  w: number,
  h: number,
  fill: string,
  m: CellMarks = {},
) {
  items.push({
    t: 'rect',
    x,
    y,
    w,
    h,
    fill: m.dim ? p.cell : fill,
    stroke: p.grid,
    sw: 0.5,
    hit: m.hit,
    title: m.title,
  });
  if (m.label !== undefined && h >= 9)
    items.push({
      t: 'text',
      x: x + w / 2,
      y: y + h / 2,
      s: m.label,
      size: m.labelSize ?? Math.min(12, h * 0.55),
      fill: m.dim ? p.muted : textOn(p, fill),
      anchor: 'middle',
    });
  if (m.related)
    items.push({ t: 'rect', x: x + 1, y: y + 1, w: w - 2, h: h - 2, fill: 'none', stroke: p.related, sw: 2 });
  if (m.selected)
    items.push({ t: 'rect', x: x + 1.5, y: y + 1.5, w: w - 3, h: h - 3, fill: 'none', stroke: p.select, sw: 3 });
  if (m.cursor)
    items.push({
      t: 'rect',
      x: x - 1,
      y: y - 1,
      w: w + 2,
      h: h + 2,
      fill: 'none',
      stroke: p.related,
      sw: 2,
      dash: '3 2',
    });
}

export function label(items: Item[], p: Palette, x: number, y: number, s: string, size = 13, bold = true) {
  items.push({ t: 'text', x, y, s, size, fill: p.fg, weight: bold ? 'bold' : 'normal' });
}

export function small(
  items: Item[],
  p: Palette,
  x: number,
  y: number,
  s: string,
  anchor: 'start' | 'middle' | 'end' = 'middle',
) {
  items.push({ t: 'text', x, y, s, size: 10, fill: p.muted, anchor });
}

/** One legend entry: a swatch (a fill, or an outline as the figure draws a mark) and what it means. */
export interface LegendEntry {
  fill?: string;
  stroke?: string;
  dash?: string;
  text: string;
}

/** A legend, one entry a line, from (x, y) down; returns the y below it. Every figure says what its colours, marks
 * and numbers mean (an address in one grid, a logical index in another). */
export function legend(
  items: Item[],
  p: Palette,
  x: number,
  y: number,
  entries: LegendEntry[],
  maxWidth = Infinity,
): number {
  for (const e of entries) {
    const swatch = e.fill !== undefined || e.stroke !== undefined;
    if (swatch)
      items.push({
        t: 'rect',
        x,
        y: y - 6,
        w: 12,
        h: 12,
        fill: e.fill ?? 'none',
        stroke: e.stroke ?? p.grid,
        sw: e.stroke ? 2 : 0.5,
        dash: e.dash,
      });
    const indent = swatch ? 18 : 0;
    for (const line of wrapText(e.text, maxWidth - indent, 11)) {
      items.push({ t: 'text', x: x + indent, y, s: line, size: 11, fill: p.fg });
      y += 17;
    }
  }
  return y;
}

/** A generous estimate of a text's width at a font size: CJK characters about the size, others 0.62 of it (the page's
 * sans-serif digits and letters), so that what is placed after a label never overlaps it. */
export function textWidth(s: string, size: number): number {
  let w = 0;
  for (const ch of s) w += /[\u2e80-\u9fff\uff00-\uffef]/.test(ch) ? size : 0.62 * size;
  return w;
}

/** A text broken into lines no wider than maxWidth (by that estimate): at spaces, or between CJK characters. */
export function wrapText(s: string, maxWidth: number, size: number): string[] {
  if (!Number.isFinite(maxWidth) || textWidth(s, size) <= maxWidth) return [s];
  const words = s.split(/(?<= )|(?<=[\u2e80-\u9fff\uff00-\uffef])/);
  const lines: string[] = [];
  let line = '';
  for (const w of words) {
    if (line && textWidth(line + w, size) > maxWidth) {
      lines.push(line.trimEnd());
      line = w.trimStart();
    } else line += w;
  }
  if (line) lines.push(line.trimEnd());
  return lines;
}
