// The benchmark plots, drawn by Observable Plot as SVG. Plot adds a <style> element to each chart; it is removed
// here (the panel's adopted stylesheet has the same rules), so the page needs no style-src 'unsafe-inline'.
import * as Plot from '@observablehq/plot';
import type { Row } from './results.js';

export const OKABE_ITO = ['#E69F00', '#56B4E9', '#009E73', '#D55E00', '#0072B2', '#CC79A7', '#F0E442', '#999999'];

export interface PlotOptions {
  width: number;
  fg: string;
  /** several sources (agents or files): one facet row each */
  sources: string[];
}

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

function base(o: PlotOptions) {
  const multi = o.sources.length > 1;
  return {
    width: o.width,
    marginLeft: 56,
    marginRight: multi ? 140 : 20,
    style: { background: 'transparent', color: o.fg, fontSize: '11px' } as Partial<CSSStyleDeclaration>,
    fy: multi ? { label: null, domain: o.sources } : undefined,
    color: { range: OKABE_ITO },
  };
}

/** AoS/SoA: useful GB/s per layout at each touch_fields; the copy ceiling (a transpose copy measured on the
 * same device, or the device's peak from its attributes) as a dashed rule. */
export function aosBandwidth(rows: Row[], ceilings: { source: string; gbps: number; label: string }[], o: PlotOptions): SVGSVGElement {
  const data = rows.filter((r) => r.gbps !== null);
  const multi = o.sources.length > 1;
  return finish(
    Plot.plot({
      ...base(o),
      height: 220 * Math.max(1, o.sources.length),
      fx: { label: 'touch_fields' },
      x: { label: null, domain: [...new Set(data.map((r) => r.variant))] },
      y: { label: 'useful GB/s', grid: true },
      marks: [
        Plot.barY(data, { fx: 'touch', x: 'variant', y: 'gbps', fill: 'variant', fy: multi ? 'source' : undefined, className: 'ls-bandwidth-bars', title: (r: Row) => `${r.variant} t=${r.touch}: ${r.gbps!.toFixed(1)} GB/s` }),
        Plot.ruleY(ceilings, { y: 'gbps', fy: multi ? 'source' : undefined, stroke: o.fg, strokeDasharray: '4 3', className: 'ls-copy-ceiling' }),
        Plot.text(ceilings, Plot.selectFirst({ y: 'gbps', fy: multi ? 'source' : undefined, text: 'label', frameAnchor: 'right', dy: -6, fill: o.fg, className: 'ls-ceiling-label' })),
        Plot.ruleY([0]),
      ],
    }) as SVGSVGElement,
    'Useful GB/s per layout and touch_fields',
  );
}

/** SoA/AoS speedup against touch_fields, with the sector-model bound (from the engine's sectors per request). */
export function aosSpeedup(speed: { source: string; touch: number; speedup: number }[], bound: { touch: number; bound: number }[], o: PlotOptions): SVGSVGElement {
  const multi = o.sources.length > 1;
  return finish(
    Plot.plot({
      ...base(o),
      fy: undefined,
      marginRight: multi ? 140 : 20,
      height: 240,
      x: { label: 'touch_fields', type: 'log', base: 2, ticks: [1, 2, 4, 8], tickFormat: 'd' },
      y: { label: 'SoA / AoS speedup', grid: true, domain: [0, Math.max(8.5, ...speed.map((s) => s.speedup + 0.5))] },
      marks: [
        Plot.line(bound, { x: 'touch', y: 'bound', stroke: o.fg, strokeDasharray: '5 4', className: 'ls-sector-bound' }),
        Plot.text(bound.slice(0, 1), { x: 'touch', y: 'bound', text: () => 'sector-model bound', dx: 8, textAnchor: 'start', fill: o.fg }),
        Plot.line(speed, { x: 'touch', y: 'speedup', stroke: 'source', className: 'ls-speedup-lines' }),
        Plot.dot(speed, { x: 'touch', y: 'speedup', fill: 'source', r: 4, className: 'ls-speedup-dots', title: (s: { touch: number; speedup: number }) => `t=${s.touch}: ${s.speedup.toFixed(2)}×` }),
        ...(multi ? [Plot.text(speed, Plot.selectLast({ x: 'touch', y: 'speedup', z: 'source', text: 'source', dx: 6, textAnchor: 'start', fill: 'source' }))] : []),
        Plot.ruleY([1], { stroke: o.fg, strokeOpacity: 0.4 }),
      ],
    }) as SVGSVGElement,
    'SoA over AoS speedup against touch_fields, with the sector-model bound',
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
      fx: { label: 'dim' },
      x: { label: null, domain: [...new Set(data.map((r) => r.variant))], tickRotate: data.some((r) => r.variant.length > 6) ? -20 : 0 },
      y: { label: 'useful GB/s', grid: true },
      marks: [
        Plot.barY(data, { fx: 'dim', x: 'variant', y: 'gbps', fill: 'variant', fy: multi ? 'source' : undefined, className: 'ls-bandwidth-bars', title: (r: Row) => `${r.variant} ${r.dim}: ${r.gbps!.toFixed(1)} GB/s` }),
        Plot.ruleY(copy, { fx: 'dim', y: 'gbps', fy: multi ? 'source' : undefined, stroke: o.fg, strokeDasharray: '4 3', className: 'ls-copy-ceiling' }),
        Plot.ruleY([0]),
      ],
    }) as SVGSVGElement,
    'Transpose: useful GB/s per variant and dim, copy as the ceiling',
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
      fx: { label: 'dim' },
      x: { label: null, domain: [...new Set(data.map((r) => r.variant))], tickRotate: data.some((r) => r.variant.length > 6) ? -20 : 0 },
      y: { label: 'fraction of copy', grid: true, domain: [0, Math.max(1.05, ...data.map((r) => r.fractionOfCopy! + 0.05))] },
      marks: [
        Plot.barY(data, { fx: 'dim', x: 'variant', y: 'fractionOfCopy', fill: 'variant', fy: multi ? 'source' : undefined, className: 'ls-fraction-bars', title: (r: Row) => `${r.variant} ${r.dim}: ${r.fractionOfCopy!.toFixed(2)} of copy` }),
        Plot.ruleY([1], { stroke: o.fg, strokeDasharray: '4 3' }),
        Plot.ruleY([0]),
      ],
    }) as SVGSVGElement,
    'Transpose: fraction of copy per variant and dim',
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
  const w = Number(svg.getAttribute('width')), h = Number(svg.getAttribute('height'));
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
    return await new Promise<Blob>((ok, bad) => canvas.toBlob((b) => (b ? ok(b) : bad(new Error('canvas.toBlob failed'))), 'image/png'));
  } finally {
    URL.revokeObjectURL(url);
  }
}
