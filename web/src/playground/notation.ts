// Pasted text in any syntax the engine reads, turned into the notation it evaluates; the mesh axes of the form.
import type { Engine, LsError, LsFormat, LsMesh, LsShape, LsTritonEncoding } from '../core/engine.js';

/** The syntaxes the engine reads (importLayout), with the names the page shows. */
export const FORMATS: Record<LsFormat, string> = {
  axe: 'layoutscope notation',
  cute: 'CuTe (C++)',
  'cute-dsl': 'CuTe DSL',
  triton: 'Triton',
  tirx: 'TIRx',
  jax: 'JAX',
  shardy: 'Shardy',
  hlo: 'XLA HLO',
  dtensor: 'PyTorch DTensor',
};
/** The syntaxes the engine writes (exportLayout). */
export const EXPORT_FORMATS: LsFormat[] = ['cute', 'cute-dsl', 'triton', 'tirx', 'jax', 'dtensor', 'axe'];
/** Triton's named encodings the engine writes (exportTritonEncoding); 'auto': the first that fits, else #ttg.linear. */
export const TRITON_ENCODINGS: LsTritonEncoding[] = ['blocked', 'swizzled_shared', 'nvmma_shared', 'auto'];
/** An entry of the export menu: a syntax, or Triton with one named encoding ("triton:blocked"). */
export type ExportChoice = LsFormat | `triton:${LsTritonEncoding}`;
export const EXPORT_CHOICES: ExportChoice[] = [
  ...EXPORT_FORMATS,
  ...TRITON_ENCODINGS.map((e) => `triton:${e}` as const),
];
/** The Triton encoding an export choice names; null for a plain syntax. */
export function tritonEncoding(choice: ExportChoice): LsTritonEncoding | null {
  return choice.startsWith('triton:') ? (choice.slice('triton:'.length) as LsTritonEncoding) : null;
}

/** A pasted text read into the chapter's notation. */
export interface Notation {
  layout: string;
  /** the syntax it was read as (detected, or the one asked for) */
  format: LsFormat;
  /** the logical shape the import defines the layout on; null for the notation itself (the form's shape rules) */
  shape: number[] | null;
  notes: string[];
}

/** Turns pasted text in any syntax the engine reads into the notation it evaluates: the engine detects the syntax
 * (unless `from` names one) and imports it; shape and mesh supply what the text does not say. An error's column is
 * a column of `text` as given (leading blanks included). */
export function toNotation(
  eng: Engine,
  text: string,
  shape: LsShape,
  mesh: LsMesh | null,
  from: LsFormat | 'auto' = 'auto',
): Notation | LsError {
  const src = text.trim();
  const lead = text.length - text.trimStart().length;
  const format = from === 'auto' ? eng.detectFormat(src) : from;
  if (format === 'axe') return { layout: src, format, shape: null, notes: [] };
  const r = eng.importLayout(format, src, shape, mesh);
  if (!r.ok) return { ...r.error, column: r.error.column > 0 ? r.error.column + lead : 0 };
  return { layout: r.layout, format, shape: r.shape, notes: r.notes };
}

/** "x=2,y=4" as { x: 2, y: 4 } (axis names major first), read by the engine; empty text is no mesh. An error
 * names the column in the text as typed. */
export function parseMesh(eng: Engine, text: string): LsMesh | null | LsError {
  const src = text.trim();
  if (!src) return null;
  const r = eng.parseMesh(src);
  if (r.ok) return r.mesh;
  const lead = text.length - text.trimStart().length;
  return { ...r.error, field: 'mesh', column: r.error.column > 0 ? r.error.column + lead : 0 };
}
