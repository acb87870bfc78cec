// Element types of the figures' `dtype` attribute. The engine's dtype names (shared/src/dtype.cpp) plus
// f32x4, which is not an element type but a 16 B vector access (float4) to fp32 elements.

const ELEMENT_BYTES: Record<string, number> = { f8: 1, e4m3: 1, e5m2: 1, f16: 2, bf16: 2, f32: 4, tf32: 4, f32x4: 4, f64: 8 };

/** Bytes of one element; an unknown name counts as fp32. */
export function elementBytes(dtype: string): number {
  return ELEMENT_BYTES[dtype] ?? 4;
}

/** Bytes one lane moves per access: the element, widened to a 4-byte word (sub-word types are read as a word
 * by the figures' warp accesses), or 16 for f32x4. */
export function accessBytes(dtype: string): number {
  return dtype === 'f32x4' ? 16 : Math.max(4, elementBytes(dtype));
}
