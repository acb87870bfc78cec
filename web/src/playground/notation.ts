// Pasted text in any syntax the engine reads, turned into the notation it evaluates; the mesh axes of the form.
import type { Engine, LsError, LsFormat, LsMesh, LsShape } from '../core/engine.js';

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

/** "x=2,y=4" as { x: 2, y: 4 } (axis names major first); empty text is no mesh. An error names the column. */
export function parseMesh(text: string): LsMesh | null | LsError {
  if (!text.trim()) return null;
  const mesh: LsMesh = {};
  let at = 0;
  for (const part of text.split(',')) {
    const col = at + (part.length - part.trimStart().length) + 1;
    at += part.length + 1;
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([0-9]+)\s*$/.exec(part);
    const bad = (message: string) => ({ message, column: col, field: 'mesh', code: 'syntax' });
    if (!m) return bad(`expected "axis=size" (e.g. x=2), got "${part.trim()}"`);
    const n = Number(m[2]);
    if (!Number.isSafeInteger(n) || n < 1) return bad(`the size of axis ${m[1]} must be a positive integer`);
    if (m[1] in mesh) return bad(`axis ${m[1]} is named twice`);
    mesh[m[1]] = n;
  }
  return mesh;
}
