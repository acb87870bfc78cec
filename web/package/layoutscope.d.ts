// Types of layoutscope-elements: the module that defines the <ls-*> custom elements of the layoutscope page.
//
//   import 'layoutscope-elements';
//   const f = document.createElement('ls-fragment');   // LsFragmentElement
//   f.layout = 'S[(8,4,2):(4@laneid,1@laneid,1@reg)]';
//   f.shape = '8,8';
//   f.selection = 'L:43';
//   document.body.append(f);
//
// Each property mirrors the attribute of the same name (docs/embedding.md has the table); setting one after the
// element is on the page recomputes the figure. A bad value is shown in the figure as an error, never thrown.
// The engine's own types (types/engine.d.ts, types/generated/layoutscope.d.ts) are declarations generated from the
// sources when the package is assembled. React's JSX: react.d.ts (import type {} from 'layoutscope-elements/react').

import type { Engine } from './types/engine.js';
import type { LayoutscopeModule } from './types/generated/layoutscope.js';

export type { Engine, EngineError } from './types/engine.js';
export type * from './types/generated/layoutscope.js';

/** What every <ls-*> element reads. */
export interface LsFigureElement extends HTMLElement {
  /** light | dark | auto (absent: follow the host page) */
  theme?: string;
  /** en | zh (absent: from <html lang>) */
  lang: string;
  /** what is selected: "L:43" (logical element 43), "C:3" / "R:2" (bank figure), "N:21" (lane 21) */
  selection: string | null;
  /** prefix of the figure's keys in the URL fragment (default: the element's id) */
  stateKey: string;
  /** the figure as a standalone SVG document */
  exportSvg(): string;
  /** the figure as a PNG data URL */
  exportPng(): string;
  /** the figure's mapping as JSON text */
  exportJson(): string;
}

export interface LsTileLayoutElement extends LsFigureElement {
  layout: string;
  shape: string;
  /** elements one warp instruction touches: "0,8,16,..." or "start:stop:step" */
  access: string;
  dtype: string;
}
export interface LsFragmentElement extends LsFigureElement {
  layout: string;
  shape: string;
}
export interface LsTmemElement extends LsFigureElement {
  /** acc, or A ... G */
  datapath: string;
  /** the accumulator's columns (N of the MMA; default 256) */
  n: number;
}
export interface LsScaleFactorsElement extends LsFigureElement {
  layout: string;
  shape: string;
}
export interface LsMeshElement extends LsFigureElement {
  /** sharded | replica | offset */
  mode: string;
  /** the mode to reshard to (sharded | replica | offset), or '' for none: draws the engine's plan */
  reshard: string;
  /** measured seconds per plan step, drawn beside the prediction */
  measuredSeconds: number[] | null;
}
export interface LsBankConflictsElement extends LsFigureElement {
  layout: string;
  compare: string;
  swizzle: string;
  shape: string;
  dtype: string;
  /** the element index each lane starts its access at: "0,256,512,..." */
  lanes: string;
}
export interface LsSwizzleAtomElement extends LsFigureElement {
  /** 128B | 64B | 32B | interleave */
  swizzle: string;
  /** the same as swizzle (the page's name for it) */
  mode: string;
  dtype: string;
}
export interface LsPlaygroundElement extends LsFigureElement {
  layout: string;
  shape: string;
  /** a second layout over the same shape, drawn beside the first */
  compare: string;
  dtype: string;
  /** named mesh axes for JAX, DTensor, Shardy and HLO texts: "x=2,y=4" */
  mesh: string;
  /** the syntax of the layout text: auto (detected) | axe | cute | cute-dsl | triton | tirx | jax | shardy | hlo | dtensor */
  from: string;
  /** the physical view's row width: banks (32 words, the default) or a number of elements (attribute row-width) */
  rowWidth: string;
  /** what the colours of the cells mean: col | row | index */
  colour: string;
}
export interface LsAdvisorElement extends LsFigureElement {
  /** "LANES;INSTR": rows | columns | matrices | a thread layout | empty, then an instruction (STS.32, ldmatrix.x4, ...) */
  writer: string;
  reader: string;
  dtype: string;
  /** "rows,cols" */
  tile: string;
}

export interface LsTcgen05AtomElement extends LsFigureElement {
  /** the tcgen05.ld / tcgen05.st shape: 32x32b | 16x64b | 16x128b | 16x256b | 16x32bx2 */
  shape: string;
  /** the repeat .xN: 1, 2, 4 ... 128 */
  num: number;
  /** the TMEM lane of the address */
  lane: number;
  /** ld | st */
  op: string;
}
export interface LsBlockScaledElement extends LsFigureElement {
  /** mxf8f6f4 | mxf4 | mxf4nvf4 */
  kind: string;
  /** K of the A operand in elements (128, 256, 512) */
  k: number;
}

/** Tag names of the elements this module defines. */
export declare const ELEMENTS: readonly [
  'ls-tile-layout',
  'ls-fragment',
  'ls-tmem',
  'ls-scale-factors',
  'ls-mesh',
  'ls-bank-conflicts',
  'ls-swizzle-atom',
  'ls-playground',
  'ls-advisor',
  'ls-tcgen05-atom',
  'ls-block-scaled',
];

/** Dispatched on window when the page's language or theme changes; every figure re-renders on it. */
export declare const SETTINGS_EVENT: 'ls-settings';

/** The base class of every <ls-*> element: `el instanceof LsFigure` tells a layoutscope figure. */
export declare const LsFigure: abstract new () => LsFigureElement;

/** The engine's WebAssembly module, loaded once and shared with the figures (fetches assets/layoutscope-*.wasm). */
export declare function loadEngine(): Promise<LayoutscopeModule>;

/** The loaded engine with the figures' defaults (every layout answer the figures draw comes from it):
 *
 *    const e = await engine();
 *    e.forward('S[(8,4,2):(4@laneid,1@laneid,1@reg)]', [8, 8], 43);   // { ok: true, positions: [...], ... }
 */
export declare function engine(): Promise<Engine>;

/** The attributes of each element as they are written in HTML or JSX (all strings, as attributes are). */
export interface LsElementAttributes {
  'ls-tile-layout': LsCommonAttributes & { layout?: string; shape?: string; access?: string; dtype?: string };
  'ls-fragment': LsCommonAttributes & { layout?: string; shape?: string };
  'ls-tmem': LsCommonAttributes & { datapath?: string; n?: string | number };
  'ls-scale-factors': LsCommonAttributes & { layout?: string; shape?: string };
  'ls-mesh': LsCommonAttributes & {
    mode?: 'sharded' | 'replica' | 'offset';
    reshard?: '' | 'sharded' | 'replica' | 'offset';
  };
  'ls-bank-conflicts': LsCommonAttributes & {
    layout?: string;
    compare?: string;
    swizzle?: string;
    shape?: string;
    dtype?: string;
    lanes?: string;
  };
  'ls-swizzle-atom': LsCommonAttributes & { swizzle?: string; mode?: string; dtype?: string };
  'ls-playground': LsCommonAttributes & {
    layout?: string;
    shape?: string;
    compare?: string;
    dtype?: string;
    mesh?: string;
    from?: string;
    'row-width'?: string;
    colour?: 'col' | 'row' | 'index';
  };
  'ls-advisor': LsCommonAttributes & { writer?: string; reader?: string; dtype?: string; tile?: string };
  'ls-tcgen05-atom': LsCommonAttributes & {
    shape?: '32x32b' | '16x64b' | '16x128b' | '16x256b' | '16x32bx2';
    num?: string | number;
    lane?: string | number;
    op?: 'ld' | 'st';
  };
  'ls-block-scaled': LsCommonAttributes & { kind?: 'mxf8f6f4' | 'mxf4' | 'mxf4nvf4'; k?: string | number };
}
/** What every element reads. */
export interface LsCommonAttributes {
  theme?: 'light' | 'dark' | 'auto';
  lang?: 'en' | 'zh';
  selection?: string;
  'state-key'?: string;
  id?: string;
  class?: string;
  style?: string;
  slot?: string;
}

declare global {
  interface HTMLElementTagNameMap {
    'ls-tile-layout': LsTileLayoutElement;
    'ls-fragment': LsFragmentElement;
    'ls-tmem': LsTmemElement;
    'ls-scale-factors': LsScaleFactorsElement;
    'ls-mesh': LsMeshElement;
    'ls-bank-conflicts': LsBankConflictsElement;
    'ls-swizzle-atom': LsSwizzleAtomElement;
    'ls-playground': LsPlaygroundElement;
    'ls-advisor': LsAdvisorElement;
    'ls-tcgen05-atom': LsTcgen05AtomElement;
    'ls-block-scaled': LsBlockScaledElement;
  }
}
