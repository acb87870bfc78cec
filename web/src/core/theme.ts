// Colours. Categorical colours are Okabe-Ito (distinguishable with the common colour-vision deficiencies);
// text/background pairs keep a contrast ratio above 4.5:1 in both themes.
export type ThemeName = 'light' | 'dark';

export interface Palette {
  name: ThemeName;
  bg: string;
  fg: string;
  muted: string;
  grid: string;
  cell: string;
  /** Selected element: outline and fill. */
  select: string;
  selectFill: string;
  /** Linked (related) elements. */
  related: string;
  conflict: string;
  ok: string;
  /** Categorical colours for tiles, lanes, devices, replicas. */
  cat: string[];
  /** Text colour readable on each categorical colour. */
  catText: string[];
}

const OKABE_ITO = ['#E69F00', '#56B4E9', '#009E73', '#F0E442', '#0072B2', '#D55E00', '#CC79A7', '#999999'];

export const PALETTES: Record<ThemeName, Palette> = {
  light: {
    name: 'light',
    bg: '#ffffff',
    fg: '#1a1a1a',
    muted: '#555555',
    grid: '#b8b8b8',
    cell: '#f2f2f2',
    select: '#000000',
    selectFill: '#1a1a1a',
    related: '#0072B2',
    conflict: '#D55E00',
    ok: '#009E73',
    cat: OKABE_ITO,
    catText: ['#000', '#000', '#000', '#000', '#fff', '#000', '#000', '#000'],
  },
  dark: {
    name: 'dark',
    bg: '#16181c',
    fg: '#eeeeee',
    muted: '#b0b0b0',
    grid: '#4a4d55',
    cell: '#24272d',
    select: '#ffffff',
    selectFill: '#f5f5f5',
    related: '#56B4E9',
    conflict: '#F08A4B',
    ok: '#3fc7a0',
    cat: OKABE_ITO,
    catText: ['#000', '#000', '#000', '#000', '#fff', '#000', '#000', '#000'],
  },
};

/** The theme an element should use: its own attribute (light / dark; "auto" or none follows the host page),
 * else the host page's theme, else the OS preference. */
export function resolveTheme(attr: string | null | undefined): ThemeName {
  if (attr === 'light' || attr === 'dark') return attr;
  return hostTheme() ?? (window.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');
}

/** The host page's theme as docs sites mark it: data-theme (this page, Docusaurus, Furo/Sphinx, PyData),
 * data-md-color-scheme (MkDocs Material: slate is dark), a "dark" class (Tailwind, VitePress), else the
 * luminance of the page background; null when the page says nothing (transparent background). */
export function hostTheme(): ThemeName | null {
  const nodes = [document.documentElement, document.body].filter((n): n is HTMLElement => !!n);
  for (const n of nodes) {
    const t = n.dataset.theme ?? n.dataset.mode;
    if (t === 'light' || t === 'dark') return t;
    const md = n.dataset.mdColorScheme;
    if (md) return md === 'slate' ? 'dark' : 'light';
    if (n.classList.contains('dark') || n.classList.contains('theme-dark')) return 'dark';
    if (n.classList.contains('light') || n.classList.contains('theme-light')) return 'light';
  }
  for (const n of [...nodes].reverse()) {
    const m = /rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?/.exec(getComputedStyle(n).backgroundColor);
    if (!m || (m[4] !== undefined && Number(m[4]) < 0.5)) continue;
    const [r, g, b] = [m[1], m[2], m[3]].map((v) => {
      const c = Number(v) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.2 ? 'dark' : 'light';
  }
  return null;
}

let watching = false;
/** Calls `changed` whenever the host page may have switched theme (attributes of <html>/<body>, the OS). */
export function watchHostTheme(changed: () => void) {
  if (watching) return;
  watching = true;
  const attrs = ['class', 'style', 'data-theme', 'data-mode', 'data-md-color-scheme'];
  const observer = new MutationObserver(changed);
  observer.observe(document.documentElement, { attributes: true, attributeFilter: attrs });
  const body = () => document.body && observer.observe(document.body, { attributes: true, attributeFilter: attrs });
  if (document.body) body();
  else document.addEventListener('DOMContentLoaded', body, { once: true });
  window.matchMedia?.('(prefers-color-scheme: dark)').addEventListener?.('change', changed);
}
