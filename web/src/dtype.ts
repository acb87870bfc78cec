// Element types of the figures' `dtype` attribute: the engine's dtype names (shared/src/dtype.cpp, asked through
// the module) plus f32x4, which is not an element type but a 16 B vector access (float4) to fp32 elements.
import { must, type Engine } from './engine.js';

/** The engine's name of the element type (f32x4: f32). */
export function elementDtype(dtype: string): string {
  return dtype === 'f32x4' ? 'f32' : dtype;
}

/** Bytes of one element (f32x4: an fp32 element); an unknown name is the engine's error. */
export function elementBytes(e: Engine, dtype: string): number {
  return must(e.dtypeBytes(elementDtype(dtype))).bytes;
}

/** Bytes one lane moves per access: the element, widened to a 4-byte word (sub-word types are read as a word
 * by the figures' warp accesses), or 16 for f32x4. */
export function accessBytes(e: Engine, dtype: string): number {
  return dtype === 'f32x4' ? 16 : Math.max(4, elementBytes(e, dtype));
}
