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

/** The theme an element should use: its own attribute, else the page's data-theme, else the OS preference. */
export function resolveTheme(attr: string | null | undefined): ThemeName {
  if (attr === 'light' || attr === 'dark') return attr;
  const page = document.documentElement.dataset.theme;
  if (page === 'light' || page === 'dark') return page;
  return window.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}
