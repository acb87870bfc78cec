// Element types of the figures' `dtype` attribute: the engine's dtype names (shared/src/dtype.cpp), asked
// through the module. A lane's access width is the element's, widened to a 4-byte word.
import { must, type Engine } from './engine.js';

/** The engine's name of the element type, as written in an attribute (surrounding spaces dropped). */
export function elementDtype(dtype: string): string {
  return dtype.trim();
}

/** Bytes of one element; an unknown name is the engine's error. */
export function elementBytes(e: Engine, dtype: string): number {
  return must(e.dtypeBytes(elementDtype(dtype))).bytes;
}

/** Bytes one lane moves per access: the element, widened to a 4-byte word (sub-word types are read as a word
 * by the figures' warp accesses). */
export function accessBytes(e: Engine, dtype: string): number {
  return Math.max(4, elementBytes(e, dtype));
}
