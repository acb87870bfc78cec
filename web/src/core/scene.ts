// A figure is drawn as a scene: a flat list of rectangles, text and lines with concrete colours. The same
// scene renders to SVG (small figures), to a canvas (large ones), and serialises to the exported SVG/PNG,
// so what the user exports is exactly what they see.

export interface RectItem {
  t: 'rect';
  x: number;
  y: number;
  w: number;
  h: number;
  fill: string;
  stroke?: string;
  sw?: number;
  /** Hit key for clicks and keyboard selection ("L:43", "P:21:1"). */
  hit?: string;
  /** Accessible name of the cell (also the SVG <title>). */
  title?: string;
  rx?: number;
  dash?: string;
}

export interface TextItem {
  t: 'text';
  x: number;
  y: number;
  s: string;
  size?: number;
  fill: string;
  anchor?: 'start' | 'middle' | 'end';
  weight?: 'normal' | 'bold';
  mono?: boolean;
}

export interface LineItem {
  t: 'line';
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  stroke: string;
  sw?: number;
  dash?: string;
}

/** A raster of pw x ph cells drawn into (x, y, w, h): for views with too many cells to draw one by one
 * (hundreds of thousands); hitAt names the cell under a point. */
export interface ImageItem {
  t: 'image';
  x: number;
  y: number;
  w: number;
  h: number;
  pw: number;
  ph: number;
  /** RGBA, row-major, pw * ph * 4 bytes */
  pixels: Uint8ClampedArray<ArrayBuffer>;
  hitAt?: (col: number, row: number) => string | undefined;
}

export type Item = RectItem | TextItem | LineItem | ImageItem;

export interface Scene {
  width: number;
  height: number;
  background: string;
  items: Item[];
}

const FONT = 'system-ui, "Noto Sans CJK SC", "Noto Sans", sans-serif';
const MONO = 'ui-monospace, "DejaVu Sans Mono", monospace';

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const rasters = new WeakMap<ImageItem, HTMLCanvasElement>();

/** The item's pixels on a canvas of pw x ph (made once per item). */
function rasterOf(it: ImageItem): HTMLCanvasElement {
  let c = rasters.get(it);
  if (!c) {
    c = document.createElement('canvas');
    c.width = it.pw;
    c.height = it.ph;
    c.getContext('2d')!.putImageData(new ImageData(it.pixels, it.pw, it.ph), 0, 0);
    rasters.set(it, c);
  }
  return c;
}

/** "#rrggbb" as [r, g, b]: for filling rasters with the palette's colours. */
export function rgbOf(hex: string): [number, number, number] {
  const v = parseInt(hex.slice(1, 7), 16);
  return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
}

/** A standalone SVG document of the scene (the export, and the page's own SVG markup). */
export function sceneToSvg(scene: Scene, title = ''): string {
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${scene.width}" height="${scene.height}" ` +
      `viewBox="0 0 ${scene.width} ${scene.height}" font-family='${FONT}'>`,
  );
  if (title) out.push(`<title>${esc(title)}</title>`);
  out.push(`<rect width="100%" height="100%" fill="${scene.background}"/>`);
  for (const it of scene.items) {
    if (it.t === 'rect') {
      const stroke = it.stroke ? ` stroke="${it.stroke}" stroke-width="${it.sw ?? 1}"` : '';
      const rx = (it.rx ? ` rx="${it.rx}"` : '') + (it.dash ? ` stroke-dasharray="${it.dash}"` : '');
      const hit = it.hit ? ` data-hit="${esc(it.hit)}"` : ' pointer-events="none"';
      const t = it.title ? `<title>${esc(it.title)}</title>` : '';
      out.push(
        `<rect x="${it.x}" y="${it.y}" width="${it.w}" height="${it.h}" fill="${it.fill}"${stroke}${rx}${hit}>${t}</rect>`,
      );
    } else if (it.t === 'image') {
      out.push(
        `<image x="${it.x}" y="${it.y}" width="${it.w}" height="${it.h}" preserveAspectRatio="none" ` +
          `style="image-rendering:pixelated" href="${rasterOf(it).toDataURL('image/png')}"/>`,
      );
    } else if (it.t === 'text') {
      const font = it.mono ? ` font-family='${MONO}'` : '';
      out.push(
        `<text x="${it.x}" y="${it.y}" font-size="${it.size ?? 11}" fill="${it.fill}" text-anchor="${it.anchor ?? 'start'}"` +
          ` dominant-baseline="central" pointer-events="none"${it.weight === 'bold' ? ' font-weight="bold"' : ''}${font}>${esc(it.s)}</text>`,
      );
    } else {
      const dash = it.dash ? ` stroke-dasharray="${it.dash}"` : '';
      out.push(
        `<line x1="${it.x1}" y1="${it.y1}" x2="${it.x2}" y2="${it.y2}" stroke="${it.stroke}" stroke-width="${it.sw ?? 1}"${dash}/>`,
      );
    }
  }
  out.push('</svg>');
  return out.join('');
}

/** Draws the scene on a 2D context (scale for device pixels is the caller's). */
export function drawScene(ctx: CanvasRenderingContext2D, scene: Scene, items: Item[] = scene.items, clear = true) {
  if (clear) {
    ctx.fillStyle = scene.background;
    ctx.fillRect(0, 0, scene.width, scene.height);
  }
  for (const it of items) {
    if (it.t === 'rect') {
      if (it.fill !== 'none') {
        ctx.fillStyle = it.fill;
        ctx.fillRect(it.x, it.y, it.w, it.h);
      }
      if (it.stroke) {
        ctx.strokeStyle = it.stroke;
        ctx.lineWidth = it.sw ?? 1;
        ctx.setLineDash(it.dash ? it.dash.split(/[ ,]+/).map(Number) : []);
        ctx.strokeRect(it.x, it.y, it.w, it.h);
        ctx.setLineDash([]);
      }
    } else if (it.t === 'image') {
      const smoothing = ctx.imageSmoothingEnabled;
      ctx.imageSmoothingEnabled = false;
      ctx.drawImage(rasterOf(it), it.x, it.y, it.w, it.h);
      ctx.imageSmoothingEnabled = smoothing;
    } else if (it.t === 'text') {
      ctx.fillStyle = it.fill;
      ctx.font = `${it.weight === 'bold' ? 'bold ' : ''}${it.size ?? 11}px ${it.mono ? MONO : FONT}`;
      ctx.textAlign = it.anchor === 'middle' ? 'center' : it.anchor === 'end' ? 'right' : 'left';
      ctx.textBaseline = 'middle';
      ctx.fillText(it.s, it.x, it.y);
    } else {
      ctx.strokeStyle = it.stroke;
      ctx.lineWidth = it.sw ?? 1;
      ctx.setLineDash(it.dash ? it.dash.split(/[ ,]+/).map(Number) : []);
      ctx.beginPath();
      ctx.moveTo(it.x1, it.y1);
      ctx.lineTo(it.x2, it.y2);
      ctx.stroke();
      ctx.setLineDash([]);
    }
  }
}

/** PNG data URL of the scene, drawn on a canvas at `scale`. */
export function sceneToPng(scene: Scene, scale = 2): string {
  const canvas = document.createElement('canvas');
  canvas.width = Math.ceil(scene.width * scale);
  canvas.height = Math.ceil(scene.height * scale);
  const ctx = canvas.getContext('2d')!;
  ctx.scale(scale, scale);
  drawScene(ctx, scene);
  return canvas.toDataURL('image/png');
}

/** The topmost rect with a hit key under (x, y), scanning back to front. */
export function hitTest(scene: Scene, x: number, y: number): RectItem | undefined {
  for (let i = scene.items.length - 1; i >= 0; --i) {
    const it = scene.items[i];
    if (it.t === 'rect' && it.hit && x >= it.x && x < it.x + it.w && y >= it.y && y < it.y + it.h) return it;
    if (it.t === 'image' && it.hitAt && x >= it.x && x < it.x + it.w && y >= it.y && y < it.y + it.h) {
      const col = Math.floor(((x - it.x) * it.pw) / it.w);
      const row = Math.floor(((y - it.y) * it.ph) / it.h);
      const hit = it.hitAt(col, row);
      if (hit)
        return {
          t: 'rect',
          x: it.x + (col * it.w) / it.pw,
          y: it.y + (row * it.h) / it.ph,
          w: it.w / it.pw,
          h: it.h / it.ph,
          fill: 'none',
          hit,
        };
    }
  }
  return undefined;
}
