// The benchmark plots, drawn by Observable Plot as SVG. Plot adds a <style> element to each chart; it is removed
// here (the panel's adopted stylesheet has the same rules), so the page needs no style-src 'unsafe-inline'.
import * as Plot from '@observablehq/plot';
import { PAIRS, type Row, type Speedup } from './results.js';
import { OURS, PEER_SERIES, type SuitePoint } from './convert.js';

export const OKABE_ITO = ['#E69F00', '#56B4E9', '#009E73', '#D55E00', '#0072B2', '#CC79A7', '#F0E442', '#999999'];

/** Width of one character of an 11 px tick label, generously (Plot does not measure text). */
const CHAR = 7;

export interface PlotOptions {
  width: number;
  fg: string;
  /** several sources (agents or files): one facet row each */
  sources: string[];
  /** logarithmic value axis */
  log?: boolean;
  /** axis names and chart descriptions in the page's language (English when absent) */
  words?: PlotWords;
}

export interface PlotWords {
  usefulGbps: string;
  speedup: string;
  fractionCopy: string;
  ofCopy: string;
  aosBandwidth: string;
  aosSpeedup: string;
  transposeBandwidth: string;
  transposeFraction: string;
}

export const PLOT_WORDS_EN: PlotWords = {
  usefulGbps: 'useful GB/s',
  speedup: 'SoA / AoS speedup',
  fractionCopy: 'fraction of copy',
  ofCopy: 'of copy',
  aosBandwidth: 'Useful GB/s per layout and touch_fields, with the q1 to q3 spread and the copy ceiling',
  aosSpeedup:
    'SoA over AoS speedup against touch_fields per kernel pair, with the sector-model ratio where the DRAM-bound model applies',
  transposeBandwidth: 'Transpose: useful GB/s per variant and dim, with the q1 to q3 spread and copy as the ceiling',
  transposeFraction: 'Transpose: fraction of copy per variant and dim',
};

function finish(el: SVGSVGElement | HTMLElement, label: string): SVGSVGElement {
  const svg = (el instanceof SVGSVGElement ? el : el.querySelector('svg')) as SVGSVGElement;
  for (const s of el.querySelectorAll('style')) s.remove();
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  // Plot labels its mark groups (<g aria-label="bar">); ARIA prohibits a name on an element without a role, and
  // inside role="img" they are presentational anyway: the chart's one name is the label above.
  for (const el of svg.querySelectorAll('[aria-label], [aria-description]')) {
    el.removeAttribute('aria-label');
    el.removeAttribute('aria-description');
  }
  return svg;
}

/** A source as a facet label: the file or run name without the device ("h200-aos_soa"). */
export function shortSource(s: string): string {
  return s.split(' · ')[0].replace(/\.json$/, '');
}

/** The name of one speedup series: the kernel pair, with the source when there are several. */
export function seriesName(s: { source: string; pair: string }, multi: boolean): string {
  return `${multi ? `${shortSource(s.source)}: ` : ''}${PAIRS[s.pair as keyof typeof PAIRS]?.name ?? s.pair}`;
}

const w = (o: PlotOptions) => o.words ?? PLOT_WORDS_EN;

/** A label cut to n characters, the cut marked. */
function clip(s: string, n: number): string {
  const k = Math.max(4, Math.floor(n));
  return s.length > k ? `${s.slice(0, k - 1)}…` : s;
}

/** A matrix side as facet label: 4096 -> 4K, so that narrow facets keep their labels apart. */
export function dimLabel(d: number): string {
  return d >= 1024 && d % 1024 === 0 ? `${d / 1024}K` : String(d);
}

function base(o: PlotOptions) {
  const multi = o.sources.length > 1;
  // the facet row labels (one per source) take at most a quarter of a narrow chart
  const right = Math.min(150, Math.round(o.width * 0.25));
  return {
    width: o.width,
    marginLeft: 56,
    marginRight: multi ? right : 20,
    style: { background: 'transparent', color: o.fg, fontSize: '11px' } as Partial<CSSStyleDeclaration>,
    fy: multi
      ? { label: null, domain: o.sources, tickFormat: (s: string) => clip(shortSource(s), right / CHAR) }
      : undefined,
    color: { range: OKABE_ITO },
  };
}

/** Narrowest band of one variant: a vertical name (11 px type) needs about 13 px, or it touches its neighbours. */
const MIN_BAND = 15;

/** The variant names under each facet, written vertically: slanted ones overlap their neighbours' and run
 * past the chart's left edge once facets are narrow; the bottom margin fits the longest name. On a narrow
 * screen the chart is drawn wider than the panel (and scrolls) rather than with bands too thin for their names. */
function variantAxis(variants: string[], facets: number, o: PlotOptions) {
  const domain = [...new Set(variants)];
  const b = base(o);
  const need = b.marginLeft + b.marginRight + facets * (domain.length * MIN_BAND + 12);
  return {
    x: { label: null, domain, tickRotate: -90 },
    marginBottom: 12 + CHAR * Math.max(4, ...domain.map((v) => v.length)),
    width: Math.max(o.width, need),
  };
}

/** Facets named in their own tick labels ("t=4", "dim 8K") instead of one axis label between them, which lands
 * on a tick label once facets are narrow; the top margin keeps them clear of the value axis's label. */
const touchFacets = { fx: { label: null, tickFormat: (t: number) => `t=${t}` }, marginTop: 40 };
const dimFacets = { fx: { label: null, tickFormat: (d: number) => `dim ${dimLabel(d)}` }, marginTop: 40 };

/** Bars from the axis floor: 0 on a linear axis, under the smallest value on a log one (log 0 is undefined). */
function floorOf(values: number[], log?: boolean): number {
  return log ? Math.pow(10, Math.floor(Math.log10(Math.max(1e-9, Math.min(...values))))) : 0;
}

/** AoS/SoA: useful GB/s per layout at each touch_fields, the q1-q3 spread of each as a bar; the copy ceiling
 * (the run's own copy, a transpose copy on the same device, or the device's peak) as a dashed rule. */
export function aosBandwidth(
  rows: Row[],
  ceilings: { source: string; gbps: number; label: string }[],
  o: PlotOptions,
): SVGSVGElement {
  const data = rows.filter((r) => r.gbps !== null);
  const multi = o.sources.length > 1;
  const spread = data.filter((r) => r.gbpsLo !== null && r.gbpsHi !== null);
  const floor = floorOf(
    data.map((r) => r.gbps!),
    o.log,
  );
  return finish(
    Plot.plot({
      ...base(o),
      height: 240 * Math.max(1, o.sources.length),
      ...touchFacets,
      ...variantAxis(
        data.map((r) => r.variant),
        new Set(data.map((r) => r.touch)).size,
        o,
      ),
      y: {
        label: w(o).usefulGbps,
        grid: true,
        type: o.log ? 'log' : 'linear',
        domain: o.log
          ? undefined
          : [0, Math.max(...data.map((r) => r.gbpsHi ?? r.gbps!), ...ceilings.map((c) => c.gbps)) * 1.08],
      },
      marks: [
        Plot.barY(data, {
          fx: 'touch',
          x: 'variant',
          y1: floor,
          y2: 'gbps',
          fill: 'variant',
          fy: multi ? 'source' : undefined,
          className: 'ls-bandwidth-bars',
          title: (r: Row) =>
            `${r.variant} t=${r.touch}: ${r.gbps!.toFixed(1)} GB/s${r.gbpsLo !== null ? ` (q1-q3 ${r.gbpsLo.toFixed(1)}-${r.gbpsHi!.toFixed(1)})` : ''}`,
        }),
        Plot.ruleX(spread, {
          fx: 'touch',
          x: 'variant',
          y1: 'gbpsLo',
          y2: 'gbpsHi',
          fy: multi ? 'source' : undefined,
          stroke: o.fg,
          strokeWidth: 1.5,
          className: 'ls-iqr',
        }),
        Plot.tickY(spread, {
          fx: 'touch',
          x: 'variant',
          y: 'gbpsLo',
          fy: multi ? 'source' : undefined,
          stroke: o.fg,
          inset: 6,
        }),
        Plot.tickY(spread, {
          fx: 'touch',
          x: 'variant',
          y: 'gbpsHi',
          fy: multi ? 'source' : undefined,
          stroke: o.fg,
          inset: 6,
        }),
        Plot.ruleY(ceilings, {
          y: 'gbps',
          fy: multi ? 'source' : undefined,
          stroke: o.fg,
          strokeDasharray: '4 3',
          className: 'ls-copy-ceiling',
        }),
        // the label once per source, in the first facet (a mark without fx would repeat in every facet)
        Plot.text(
          ceilings.map((c) => ({ ...c, touch: data.find((r) => r.source === c.source)?.touch ?? data[0]?.touch })),
          {
            fx: 'touch',
            y: 'gbps',
            fy: multi ? 'source' : undefined,
            text: 'label',
            frameAnchor: 'left',
            textAnchor: 'start',
            dy: -8,
            fill: o.fg,
            className: 'ls-ceiling-label',
          },
        ),
        o.log ? Plot.ruleY([floor]) : Plot.ruleY([0]),
      ],
    }) as SVGSVGElement,
    w(o).aosBandwidth,
  );
}

/** One point of the sector-model ratio for a kernel pair: drawn only where the model applies. */
export interface BoundPoint {
  source: string;
  pair: string;
  touch: number;
  bound: number;
  applies: boolean;
}

/** SoA/AoS speedup against touch_fields per kernel pair, with the sector-model ratio where it applies. The series
 * are named by a legend the panel draws above the chart (speedupLegend), in the colours of this chart. */
export function speedupLegend(speed: Speedup[], multi: boolean): { name: string; colour: string }[] {
  return [...new Set(speed.map((s) => seriesName(s, multi)))].map((name, i) => ({
    name,
    colour: OKABE_ITO[i % OKABE_ITO.length],
  }));
}

export function aosSpeedup(speed: Speedup[], bound: BoundPoint[], o: PlotOptions): SVGSVGElement {
  const multi = o.sources.length > 1;
  const series = (s: { source: string; pair: string }) => seriesName(s, multi);
  const applies = bound.filter((b) => b.applies);
  return finish(
    Plot.plot({
      ...base(o),
      fy: undefined,
      marginRight: 30,
      marginTop: 24,
      height: 260,
      // the axis label on a line of its own under the tick labels (at its default place it meets the last one)
      marginBottom: 44,
      x: {
        label: 'touch_fields',
        labelAnchor: 'center',
        labelOffset: 38,
        type: 'log',
        base: 2,
        ticks: [1, 2, 4, 8],
        tickFormat: 'd',
        inset: 12,
      },
      y: o.log
        ? { label: w(o).speedup, grid: true, type: 'log', ticks: [0.5, 1, 2, 4, 8] }
        : { label: w(o).speedup, grid: true, domain: [0, Math.max(8.5, ...speed.map((s) => s.speedup + 0.5))] },
      color: { range: OKABE_ITO, domain: [...new Set(speed.map(series))] },
      marks: [
        Plot.line(applies, {
          x: 'touch',
          y: 'bound',
          z: (b: BoundPoint) => series(b),
          stroke: o.fg,
          strokeDasharray: '5 4',
          className: 'ls-sector-bound',
        }),
        Plot.dot(applies, { x: 'touch', y: 'bound', stroke: o.fg, r: 2.5, fill: 'none' }),
        Plot.line(speed, { x: 'touch', y: 'speedup', z: series, stroke: series, className: 'ls-speedup-lines' }),
        Plot.dot(speed, {
          x: 'touch',
          y: 'speedup',
          fill: series,
          r: 4,
          className: 'ls-speedup-dots',
          title: (s: Speedup) => `${series(s)} t=${s.touch}: ${s.speedup.toFixed(2)}×`,
        }),
        Plot.ruleY([1], { stroke: o.fg, strokeOpacity: 0.4 }),
      ],
    }) as SVGSVGElement,
    w(o).aosSpeedup,
  );
}

/** Transpose: useful GB/s per variant at each dim, the copy of the same run as a tick per dim. */
export function transposeBandwidth(rows: Row[], o: PlotOptions): SVGSVGElement {
  const data = rows.filter((r) => r.gbps !== null);
  const copy = data.filter((r) => r.variant === 'copy');
  const multi = o.sources.length > 1;
  return finish(
    Plot.plot({
      ...base(o),
      height: 220 * Math.max(1, o.sources.length),
      ...dimFacets,
      ...variantAxis(
        data.map((r) => r.variant),
        new Set(data.map((r) => r.dim)).size,
        o,
      ),
      y: { label: w(o).usefulGbps, grid: true, type: o.log ? 'log' : 'linear' },
      marks: [
        Plot.barY(data, {
          fx: 'dim',
          x: 'variant',
          y1: floorOf(
            data.map((r) => r.gbps!),
            o.log,
          ),
          y2: 'gbps',
          fill: 'variant',
          fy: multi ? 'source' : undefined,
          className: 'ls-bandwidth-bars',
          title: (r: Row) =>
            `${r.variant} ${r.dim}: ${r.gbps!.toFixed(1)} GB/s${r.gbpsLo !== null ? ` (q1-q3 ${r.gbpsLo.toFixed(1)}-${r.gbpsHi!.toFixed(1)})` : ''}`,
        }),
        Plot.ruleX(
          data.filter((r) => r.gbpsLo !== null),
          {
            fx: 'dim',
            x: 'variant',
            y1: 'gbpsLo',
            y2: 'gbpsHi',
            fy: multi ? 'source' : undefined,
            stroke: o.fg,
            strokeWidth: 1.5,
            className: 'ls-iqr',
          },
        ),
        Plot.ruleY(copy, {
          fx: 'dim',
          y: 'gbps',
          fy: multi ? 'source' : undefined,
          stroke: o.fg,
          strokeDasharray: '4 3',
          className: 'ls-copy-ceiling',
        }),
        Plot.ruleY([
          o.log
            ? floorOf(
                data.map((r) => r.gbps!),
                true,
              )
            : 0,
        ]),
      ],
    }) as SVGSVGElement,
    w(o).transposeBandwidth,
  );
}

/** Transpose: fraction of copy per variant and dim. */
export function transposeFraction(rows: Row[], o: PlotOptions): SVGSVGElement {
  const data = rows.filter((r) => r.fractionOfCopy !== null);
  const multi = o.sources.length > 1;
  return finish(
    Plot.plot({
      ...base(o),
      height: 200 * Math.max(1, o.sources.length),
      ...dimFacets,
      ...variantAxis(
        data.map((r) => r.variant),
        new Set(data.map((r) => r.dim)).size,
        o,
      ),
      y: {
        label: w(o).fractionCopy,
        grid: true,
        domain: [0, Math.max(1.05, ...data.map((r) => r.fractionOfCopy! + 0.05))],
      },
      marks: [
        Plot.barY(data, {
          fx: 'dim',
          x: 'variant',
          y: 'fractionOfCopy',
          fill: 'variant',
          fy: multi ? 'source' : undefined,
          className: 'ls-fraction-bars',
          title: (r: Row) => `${r.variant} ${r.dim}: ${r.fractionOfCopy!.toFixed(2)} ${w(o).ofCopy}`,
        }),
        Plot.ruleY([1], { stroke: o.fg, strokeDasharray: '4 3' }),
        Plot.ruleY([0]),
      ],
    }) as SVGSVGElement,
    w(o).transposeFraction,
  );
}

/** Convert: each case's bandwidth as a fraction of a plain copy, ours and the peers', one row per case; 1 (copy
 * speed) dashed. Case names are the axis labels; a long one is shortened, its full name in the dot's title. */
export function convertSuite(points: SuitePoint[], o: PlotOptions & { label: string }): SVGSVGElement {
  const cases = [...new Set(points.map((p) => p.case))];
  const longest = Math.max(...cases.map((c) => c.length));
  const room = Math.floor(Math.min(o.width * 0.42, 300) / CHAR);
  // cut in the middle: the end says the dtype, which tells the suite's three copies of a case apart
  const short = (c: string) => (c.length > room ? `${c.slice(0, room - 6)}…${c.slice(-5)}` : c);
  return finish(
    Plot.plot({
      width: o.width,
      height: 64 + 16 * cases.length,
      marginLeft: Math.min(longest, room) * CHAR + 12,
      marginRight: 16,
      marginTop: 24,
      marginBottom: 44,
      style: { background: 'transparent', color: o.fg, fontSize: '11px' } as Partial<CSSStyleDeclaration>,
      color: { domain: [OURS, ...PEER_SERIES], range: OKABE_ITO },
      x: {
        // on a line of its own under the tick labels (at its default place it meets the last one)
        label: o.label,
        labelAnchor: 'center',
        labelOffset: 38,
        grid: true,
        type: o.log ? 'log' : 'linear',
        domain: o.log ? undefined : [0, Math.max(1.05, ...points.map((p) => p.fraction + 0.05))],
      },
      y: { label: null, domain: cases, tickFormat: short },
      marks: [
        Plot.ruleX([1], { stroke: o.fg, strokeDasharray: '4 3' }),
        Plot.dot(points, {
          x: 'fraction',
          y: 'case',
          fill: 'series',
          r: 4,
          className: 'ls-convert-dots',
          title: (p: SuitePoint) => `${p.case} · ${p.series}: ${p.fraction.toFixed(2)}`,
        }),
      ],
    }) as SVGSVGElement,
    o.label,
  );
}

/** A standalone SVG file of a chart (colours resolved, background filled). */
export function svgFile(svg: SVGSVGElement, bg: string, fg: string): string {
  const c = svg.cloneNode(true) as SVGSVGElement;
  c.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  c.setAttribute('color', fg);
  c.removeAttribute('style');
  const rect = document.createElementNS('http://www.w3.org/2000/svg', 'rect');
  rect.setAttribute('width', '100%');
  rect.setAttribute('height', '100%');
  rect.setAttribute('fill', bg);
  c.insertBefore(rect, c.firstChild);
  return new XMLSerializer().serializeToString(c);
}

/** A PNG (blob) of a chart, drawn at 2x through an <img> of its SVG file. */
export async function pngFile(svg: SVGSVGElement, bg: string, fg: string): Promise<Blob> {
  const text = svgFile(svg, bg, fg);
  const w = Number(svg.getAttribute('width')),
    h = Number(svg.getAttribute('height'));
  const url = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    img.src = url;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = w * 2;
    canvas.height = h * 2;
    const ctx = canvas.getContext('2d')!;
    ctx.scale(2, 2);
    ctx.drawImage(img, 0, 0, w, h);
    return await new Promise<Blob>((ok, bad) =>
      canvas.toBlob((b) => (b ? ok(b) : bad(new Error('canvas.toBlob failed'))), 'image/png'),
    );
  } finally {
    URL.revokeObjectURL(url);
  }
}
