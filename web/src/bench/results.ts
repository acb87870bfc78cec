// A results document (schemas/results.schema.json) as flat rows for plots and tables. Only reading: every number
// here is a measurement the agent wrote; the page adds ratios of measurements (SoA/AoS speedup) and nothing else.
import type { components } from '../generated/agent-api.js';
import validate from '../generated/validate-results.js';

/** The results document and its parts, as the results schema says (types generated in the page's build from the
 * OpenAPI description the agent serves, which bundles schemas/results.schema.json: web/scripts/gen-agent-types.mjs). */
type Defs = components['schemas']['Results']['$defs'];
export type ResultsDoc = Omit<components['schemas']['Results'], '$defs'>;
export type State = Defs['state'];
export type Summary = Defs['summary'];
export type Predicted = Defs['predicted'];
/** One warp access of a kernel as the agent declared it (agent/bench/predict.cpp) with the engine's cost: the
 * fields both spaces have, and the global (sectors) or shared (wavefronts) cost, whichever the access has. */
export type PredictedAccess = Defs['accessPrediction'] & Partial<Defs['sectorPrediction'] & Defs['bankPrediction']>;
export type ConvertInput = Defs['convertInput'];
/** The engine's conversion plan, as `layoutscope plan` prints it (codegen/plan_json.hpp). */
export type ConvertPlan = Defs['convertPlan'];

/** Some of the values of U (a compile error names any that is not one of them). */
type Subset<U, T extends U> = T;
/** The benchmarks the panel plots, by the results schema's names. */
export type PlottedBenchmark = Subset<Defs['benchmark']['name'], 'aos_soa' | 'transpose' | 'convert'>;

/** What a profile run measured for one state (ncu): global sectors per request and shared wavefronts. */
export interface Measured {
  loadSectors: number | null;
  storeSectors: number | null;
  sharedLoadWavefronts: number | null;
  sharedStoreWavefronts: number | null;
}

export interface Row {
  /** which loaded document (agent + run, or file) */
  source: string;
  benchmark: PlottedBenchmark;
  /** "aos" / "soa", a transpose variant or a convert case */
  variant: string;
  touch: number | null;
  n: number | null;
  dim: number | null;
  timeS: number | null;
  gbps: number | null;
  /** useful GB/s at the third and first quartile of the time (the spread of the samples), when the run has them */
  gbpsLo: number | null;
  gbpsHi: number | null;
  usefulBytes: number | null;
  fractionOfCopy: number | null;
  verified: boolean;
  skipped: string | null;
  /** counters of a profile run; null when the run was not profiled */
  measured: Measured | null;
  /** why a profiled run has no counters (no ncu, CPU backend), else null */
  measuredNote: string | null;
  state: State;
  /** the named suite a convert run ran ("permutations"), else null */
  suite: string | null;
  device: string;
  backend: string;
}

function summary(state: State, re: RegExp): number | null {
  const s = state.summaries.find((x) => re.test(x.tag));
  return s ? s.value : null;
}

export function rowsOf(doc: ResultsDoc, source: string): Row[] {
  const rows: Row[] = [];
  for (const b of doc.benchmarks) {
    const device = doc.devices.find((d) => d.id === b.devices[0])?.name ?? doc.devices[0]?.name ?? '';
    for (const st of b.states) {
      const av = st.axis_values;
      const bw = summary(st, /\/bw\/global\/bytes_per_second$/);
      const useful = summary(st, /^layoutscope\/useful_bytes$/);
      const q1 = summary(st, /\/time\/(gpu|cpu)\/q1$/);
      const q3 = summary(st, /\/time\/(gpu|cpu)\/q3$/);
      rows.push({
        source,
        benchmark: b.name as Row['benchmark'],
        variant: String(b.name === 'aos_soa' ? av.layout : b.name === 'convert' ? av.case : av.variant),
        touch: av.touch_fields !== undefined ? Number(av.touch_fields) : null,
        n: av.n !== undefined ? Number(av.n) : null,
        dim: av.dim !== undefined ? Number(av.dim) : null,
        timeS: summary(st, /\/time\/(gpu|cpu)\/median$/),
        gbps: bw === null ? null : bw / 1e9,
        gbpsLo: useful !== null && q3 ? useful / q3 / 1e9 : null,
        gbpsHi: useful !== null && q1 ? useful / q1 / 1e9 : null,
        usefulBytes: useful,
        fractionOfCopy: summary(st, /fraction_of_copy$/),
        verified: st.verification.passed,
        skipped: st.is_skipped ? (st.skip_reason ?? 'skipped') : null,
        measured: st.profile?.available
          ? {
              loadSectors: st.profile.global_load_sectors_per_request ?? null,
              storeSectors: st.profile.global_store_sectors_per_request ?? null,
              sharedLoadWavefronts: st.profile.shared_load_wavefronts_per_instruction ?? null,
              sharedStoreWavefronts: st.profile.shared_store_wavefronts_per_instruction ?? null,
            }
          : null,
        measuredNote: st.profile && !st.profile.available ? (st.profile.reason ?? 'not measured') : null,
        state: st,
        suite: b.suite ?? null,
        device,
        backend: b.backend,
      });
    }
  }
  return rows;
}

/** A kernel pair compared by the speedup plot: the scalar kernels (one 4 B load per field) or the vector ones. */
export type Pair = 'scalar' | 'vector';
export const PAIRS: Record<Pair, { aos: string; soa: string; name: string }> = {
  scalar: { aos: 'aos', soa: 'soa', name: 'soa / aos' },
  vector: { aos: 'aos_vec', soa: 'soa_vec', name: 'soa_vec / aos_vec' },
};

export interface Speedup {
  source: string;
  pair: Pair;
  touch: number;
  /** AoS median time / SoA median time (the same useful bytes) */
  speedup: number;
  /** the AoS kernel's useful GB/s */
  aosGbps: number | null;
}

/** SoA/AoS speedup per touch_fields and kernel pair. */
export function speedups(rows: Row[]): Speedup[] {
  const out: Speedup[] = [];
  for (const [pair, k] of Object.entries(PAIRS) as [Pair, (typeof PAIRS)[Pair]][])
    for (const a of rows.filter((r) => r.benchmark === 'aos_soa' && r.variant === k.aos && r.timeS)) {
      const s = rows.find(
        (r) => r.source === a.source && r.variant === k.soa && r.touch === a.touch && r.n === a.n && r.timeS,
      );
      if (s) out.push({ source: a.source, pair, touch: a.touch!, speedup: a.timeS! / s.timeS!, aosGbps: a.gbps });
    }
  return out;
}

/** The best copy a run measured itself (benchmarks[].ceilings: cudaMemcpy, a float4 copy, a scalar copy), GB/s. */
export function runCeiling(doc: ResultsDoc): { gbps: number; name: string } | null {
  let best: { gbps: number; name: string } | null = null;
  for (const b of doc.benchmarks)
    for (const c of b.ceilings ?? []) {
      const bw = c.summaries.find((x) => /\/bw\/global\/bytes_per_second$/.test(x.tag))?.value;
      if (bw && (!best || bw / 1e9 > best.gbps)) best = { gbps: bw / 1e9, name: c.name };
    }
  return best;
}

export interface Validation {
  ok: boolean;
  message: string;
}

/** Validates a parsed document against the results schema (Ajv, compiled at build time). */
export function validateResults(doc: unknown): Validation {
  if (validate(doc)) return { ok: true, message: '' };
  const errs = validate.errors ?? [];
  const lines = errs
    .slice(0, 5)
    .map(
      (e) =>
        `${e.instancePath || '(document)'} ${e.message ?? e.keyword}${e.params && 'allowedValues' in e.params ? ` (${(e.params.allowedValues as unknown[]).join(', ')})` : ''}`,
    );
  return {
    ok: false,
    message: `This file does not match the layoutscope results schema (schemas/results.schema.json, ${errs.length} problem${errs.length === 1 ? '' : 's'}): ${lines.join('; ')}${errs.length > 5 ? '; …' : ''}`,
  };
}

/** Parses and validates the text of a results file: the document, or a message saying what is wrong. */
export function readResultsText(text: string, name: string): { doc: ResultsDoc } | { error: string } {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return { error: `${name} is not JSON: ${(err as Error).message}` };
  }
  // a run record from GET /v1/runs/{id} holds the document under "result"
  if (doc && typeof doc === 'object' && 'result' in doc && 'status' in doc) doc = (doc as { result: unknown }).result;
  const v = validateResults(doc);
  if (!v.ok) return { error: `${name}: ${v.message}` };
  return { doc: doc as ResultsDoc };
}
