// The panel's values: an agent as the panel knows it, its devices and catalogue, a shown results document, a
// running run, and small formatters.
import type { components } from '../generated/agent-api.js';
import { AgentClient, AgentError } from './client.js';
import type { ResultsDoc, Row } from './results.js';

/** The AoS kernel counts as DRAM-bound when it moves at least this fraction of the copy ceiling. */
export const DRAM_BOUND_FRACTION = 0.6;

/** What the agent sends, as its OpenAPI description says (types generated in the build from GET /openapi.json's
 * text: web/scripts/gen-agent-types.mjs). */
type Schemas = components['schemas'];
export type Device = Schemas['Device'];
export type ParamSpec = Schemas['ParameterSpec'];
export type BenchSpec = Schemas['Benchmark'];
export type RunSummary = Schemas['RunSummary'];
/** The answers of GET /v1/devices, GET /v1/benchmarks, GET /v1/runs, POST /v1/runs and GET /v1/runs/{id}. */
export type DevicesAnswer = Schemas['Devices'];
export type Catalogue = Schemas['Catalogue'];
export type RunPage = Schemas['RunPage'];
export type RunAccepted = Schemas['RunAccepted'];
export type RunRecord = Schemas['Run'];
export interface Agent {
  key: number;
  client: AgentClient;
  label: string;
  state: 'connecting' | 'ready' | 'not-ready' | 'error';
  problem?: AgentError;
  backend?: string;
  devices: Device[];
  unavailable?: string;
  catalogue: BenchSpec[];
  runs: RunSummary[];
  /** the cursor of the next page of runs (GET /v1/runs?after=), null when every run is loaded */
  runsNext: string | null;
  remember: boolean;
}
export interface Dataset {
  key: string;
  source: string;
  doc: ResultsDoc;
  /** the file's own text (offline), exported unchanged */
  raw?: string;
  agentKey?: number;
  runId?: string;
  shown: boolean;
}
export interface ActiveRun {
  agentKey: number;
  /** the benchmark it runs: its form shows the progress */
  bench: string;
  id: string;
  status: string;
  progress: number;
  message: string;
  abort: AbortController;
}

export const STORE = 'layoutscope.agents';
/** The convert request's own parameters (its form's inputs) and the statuses of a run that ended, from the
 * description the agent serves (web/scripts/agent-values.mjs). */
export { CONVERT_INPUTS, FINAL_RUN_STATUSES } from '../generated/agent-values.js';
export const fmt = (v: number | null | undefined, d = 2) =>
  v === null || v === undefined || !Number.isFinite(v) ? '–' : v.toFixed(d);
export const bytes = (b: number) =>
  b >= 2 ** 30 ? `${(b / 2 ** 30).toFixed(1)} GiB` : `${(b / 2 ** 20).toFixed(0)} MiB`;
export const rowKey = (r: Row) => `${r.source}|${r.state.name}`;
