// The convert benchmark in the panel: the request a form makes (two layouts, or a shape and a permutation, or
// the permutation suite), and a suite run set beside the peers measured on the H200.
//
//   convertParams('perm', { shape: '64, 32', perm: '1,0', dtype: 'f32' })
//     -> { params: { shape: [64, 32], perm: [1, 0], dtype: 'f32' } }
//   suiteCase('small_transpose_8192x8192_as_512x512_f32') -> 'transpose_8192x8192_f32'
import type { Row } from './results.js';

export type ConvertMode = 'layouts' | 'perm' | 'suite';

/** A form field the request could not be built from: its message and the request's field name. */
export interface FieldError {
  message: string;
  field: string;
}

/** One case of bench/peers/convert_peers.py on the H200: seconds per conversion and for torch's copy_. */
export interface PeerCase {
  case: string;
  shape: number[];
  perm: number[];
  dtype: string;
  bytes: number;
  copy_: number;
  eager: number;
  compile: number;
  cupy: number;
}

function intList(text: string, field: string): number[] | FieldError {
  const parts = text.split(/[\s,]+/).filter(Boolean);
  if (!parts.length) return { message: `${field}: required`, field: `params.${field}` };
  const out: number[] = [];
  for (const p of parts) {
    if (!/^\d+$/.test(p)) return { message: `${field}: "${p}" is not a whole number`, field: `params.${field}` };
    out.push(Number(p));
  }
  return out;
}

/** The request's params from the form's texts, checked as the agent will (agent/bench/request/params.cpp); the layouts
 * themselves are the agent's to parse, and its error names the field and column. */
export function convertParams(
  mode: ConvertMode,
  f: { src?: string; dst?: string; shape?: string; perm?: string; dtype?: string },
): { params: Record<string, unknown> } | FieldError {
  if (mode === 'suite') return { params: { suite: 'permutations' } };
  // two layouts: the shape is theirs (the caller reads it from them); none when neither layout reads
  if (mode === 'layouts' && !f.shape?.trim())
    return {
      message: `src: neither layout reads as the notation, so their shape is unknown (e.g. S[(64,32):(32,1)])`,
      field: 'params.src',
    };
  const shape = intList(f.shape ?? '', 'shape');
  if (!Array.isArray(shape)) return shape;
  if (shape.some((x) => x < 1)) return { message: 'shape: every extent must be at least 1', field: 'params.shape' };
  const dtype = f.dtype ?? 'f32';
  if (mode === 'perm') {
    const perm = intList(f.perm ?? '', 'perm');
    if (!Array.isArray(perm)) return perm;
    if (perm.length !== shape.length)
      return {
        message: `perm: ${perm.length} entries for a shape of rank ${shape.length}`,
        field: 'params.perm',
      };
    const missing = shape.map((_, i) => i).find((i) => !perm.includes(i));
    if (missing !== undefined)
      return {
        message: `perm: not a permutation of 0..${shape.length - 1} (${missing} is missing)`,
        field: 'params.perm',
      };
    return { params: { shape, perm, dtype } };
  }
  for (const k of ['src', 'dst'] as const)
    if (!f[k]?.trim()) return { message: `${k}: required (a layout, e.g. S[(64,32):(32,1)])`, field: `params.${k}` };
  return { params: { src: f.src!.trim(), dst: f.dst!.trim(), shape, dtype } };
}

/** A suite case's name without the CPU backend's reduction: "small_X_as_AxB_dtype" -> "X_dtype". */
export function suiteCase(name: string): string {
  return name.replace(/^small_/, '').replace(/_as_[\dx]+_/, '_');
}

export interface SuitePoint {
  case: string;
  series: string;
  /** the conversion's bandwidth as a fraction of a plain copy of the same bytes (1: copy speed) */
  fraction: number;
}

export const OURS = 'layoutscope';
export const PEER_SERIES = ['torch.compile', 'PyTorch eager', 'CuPy'] as const;

/** Ours (the run's fraction_of_copy) and, for the cases the peers ran, theirs (torch copy_ time over theirs). */
export function suitePoints(rows: Row[], peers: PeerCase[] | null): SuitePoint[] {
  const out: SuitePoint[] = [];
  for (const r of rows) {
    if (r.fractionOfCopy === null) continue;
    const name = suiteCase(r.variant);
    out.push({ case: name, series: OURS, fraction: r.fractionOfCopy });
    const p = peers?.find((x) => x.case === name);
    if (!p) continue;
    const times: [string, number][] = [
      ['torch.compile', p.compile],
      ['PyTorch eager', p.eager],
      ['CuPy', p.cupy],
    ];
    for (const [series, t] of times) if (t > 0 && p.copy_ > 0) out.push({ case: name, series, fraction: p.copy_ / t });
  }
  return out;
}
