// layoutscope.js: the one module script a docs site loads. It registers every <ls-*> element; each element
// loads the WebAssembly engine (assets/layoutscope-*.wasm, next to this file) on first use.
//
//   <script type="module" src="/layoutscope/layoutscope.js"></script>
//   <ls-fragment layout="S[(8,4,2):(4@laneid,1@laneid,1@reg)]" shape="8,8" selection="L:43"></ls-fragment>
//
// Attributes (docs/embedding.md has the full table): layout, shape, dtype, swizzle, selection, theme
// (light | dark | auto: follows the host page), lang (en | zh), state-key. Needs only
// script-src 'self' 'wasm-unsafe-eval' (no inline script, no inline style, no string eval).
import './figures/tile-layout.js';
import './figures/fragment.js';
import './figures/tmem.js';
import './figures/scale-factors.js';
import './figures/mesh.js';
import './figures/bank-conflicts.js';
import './figures/swizzle-atom.js';
import './playground/playground.js';
import './figures/advisor.js';
import './figures/tcgen05-atom.js';
import './figures/block-scaled.js';

export { LsFigure, SETTINGS_EVENT } from './core/figure.js';
export { engine, loadEngine } from './core/engine.js';

/** Tag names of the elements this module defines. */
export const ELEMENTS = [
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
] as const;
