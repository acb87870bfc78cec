// <ls-bench-panel>: connect to one or more layoutscope-agents, run the B-09 benchmarks and layout conversions
// with live progress, cancel, history a page at a time; view results (from an agent or from a dropped file,
// validated against the schema) as plots with a table under each, and the engine's predicted warp accesses
// (written by the agent into the results) next to Nsight Compute's counters; export JSON, CSV, SVG and PNG.
// English and Chinese (text.ts). Tokens come from the URL fragment the agent prints and stay in memory unless
// the user asks.
import { LitElement, css, html, nothing, type TemplateResult } from 'lit';
import { controlStyles } from '../control-styles.js';
import { saveFile } from '../save-file.js';
import { styleProps } from '../style-props.js';
import { resolveLang } from '../i18n.js';
import { PANEL_TEXT, agentSentence, panelText, type PanelKey } from './text.js';
import { engine, type Engine } from '../engine.js';
import { SETTINGS_EVENT } from '../figure.js';
import { readFragment, writeKey } from '../state.js';
import { PALETTES, resolveTheme } from '../theme.js';
import { AgentClient, AgentError, parseAgentUrl, type AgentAddress } from './client.js';
import {
  OKABE_ITO,
  aosBandwidth,
  aosSpeedup,
  convertSuite,
  pngFile,
  speedupLegend,
  svgFile,
  transposeBandwidth,
  transposeFraction,
  type BoundPoint,
  type PlotWords,
} from './plots.js';

/** The AoS kernel counts as DRAM-bound when it moves at least this fraction of the copy ceiling. */
const DRAM_BOUND_FRACTION = 0.6;
import {
  accessesOf,
  checkMeasured,
  instructionChoices,
  lanePicture,
  laneSpans,
  whatIf,
  type Access,
} from './access.js';
import {
  PAIRS,
  readResultsText,
  rowsOf,
  rowsToCsv,
  runCeiling,
  speedups,
  type ResultsDoc,
  type Row,
} from './results.js';
import { PEER_RUNS, REFERENCE_RUNS } from './reference-runs.js';
import { OURS, PEER_SERIES, convertParams, suitePoints, type PeerCase } from './convert.js';

interface Device {
  id: number;
  name: string;
  kind: string;
  multiprocessors: number;
  global_memory_bytes: number;
  peak_bandwidth_bytes_per_second: number | null;
  sm_version: string | null;
}
interface ParamSpec {
  type: string;
  default: unknown;
  minimum?: number;
  maximum?: number;
  enum?: (string | number)[];
  maxItems?: number;
  description?: string;
}
interface BenchSpec {
  name: string;
  title: string;
  description: string;
  parameters: Record<string, ParamSpec>;
}
interface RunSummary {
  id: string;
  benchmark: string;
  device: number;
  status: string;
  created_at: string;
  finished_at: string | null;
  error: string | null;
}
interface Agent {
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
interface Dataset {
  key: string;
  source: string;
  doc: ResultsDoc;
  /** the file's own text (offline), exported unchanged */
  raw?: string;
  agentKey?: number;
  runId?: string;
  shown: boolean;
}
interface ActiveRun {
  agentKey: number;
  /** the benchmark it runs: its form shows the progress */
  bench: string;
  id: string;
  status: string;
  progress: number;
  message: string;
  abort: AbortController;
}

const STORE = 'layoutscope.agents';
/** The convert request's own parameters (its form's inputs); the rest of its catalogue entry is sampling. */
const CONVERT_INPUTS = ['src', 'dst', 'shape', 'perm', 'dtype', 'suite'];
const fmt = (v: number | null | undefined, d = 2) =>
  v === null || v === undefined || !Number.isFinite(v) ? '–' : v.toFixed(d);
const bytes = (b: number) => (b >= 2 ** 30 ? `${(b / 2 ** 30).toFixed(1)} GiB` : `${(b / 2 ** 20).toFixed(0)} MiB`);

export class LsBenchPanel extends LitElement {
  static override properties = {
    logScale: { state: true },
    agents: { state: true },
    datasets: { state: true },
    active: { state: true },
    notice: { state: true },
    offlineError: { state: true },
    formError: { state: true },
    figure: { state: true },
    bench: { state: true },
    runAgent: { state: true },
    dragging: { state: true },
    convertMode: { state: true },
    convertError: { state: true },
    planKey: { state: true },
    peers: { state: true },
    runsPageSize: { type: Number, attribute: 'runs-page-size' },
  };

  static override styles = [
    controlStyles,
    css`
    fieldset {
      border: 1px solid var(--ls-border, #888);
      border-radius: 6px;
      margin: 0 0 1rem;
      padding: 0.5rem 0.8rem 0.8rem;
    }
    legend {
      font-weight: 600;
      padding: 0 0.3rem;
    }
    input[aria-invalid='true'] {
      border-color: var(--ls-error, #b00020);
      outline: 1px solid var(--ls-error, #b00020);
    }
    button.primary {
      background: var(--ls-accent, #0062a0);
      border-color: var(--ls-accent, #0062a0);
      color: #fff;
    }
    button:disabled {
      opacity: 0.55;
    }
    .row {
      display: flex;
      flex-wrap: wrap;
      gap: 0.4rem 0.8rem;
      align-items: center;
      margin: 0.3rem 0;
    }
    .grow {
      flex: 1 1 22rem;
    }
    .agent {
      border-left: 4px solid var(--ls-border, #888);
      padding: 0.3rem 0.6rem;
      margin: 0.5rem 0;
    }
    .agent.ready {
      border-color: #009e73;
    }
    .agent.error,
    .agent.not-ready {
      border-color: var(--ls-error, #b00020);
    }
    .badge {
      font-size: 0.85em;
      font-weight: 600;
      border-radius: 9px;
      padding: 0 0.5rem;
      border: 1px solid currentColor;
    }
    .error,
    .problem {
      color: var(--ls-error, #b00020);
    }
    .legend {
      display: flex;
      flex-wrap: wrap;
      gap: 0.2rem 1rem;
      list-style: none;
      padding: 0;
      margin: 0.5rem 0 0;
      font-size: 0.85rem;
    }
    .legend .swatch {
      display: inline-block;
      width: 0.9rem;
      height: 0.9rem;
      border-radius: 50%;
      margin-right: 0.3rem;
      vertical-align: -0.1rem;
    }
    .legend .swatch.dashed {
      border-radius: 0;
      height: 0;
      border-top: 2px dashed currentColor;
      vertical-align: 0.25rem;
    }
    .muted {
      color: var(--ls-muted, #555);
    }
    .bar {
      height: 14px;
      border: 1px solid var(--ls-border, #888);
      border-radius: 7px;
      overflow: hidden;
      flex: 1 1 16rem;
      max-width: 28rem;
    }
    .bar > div {
      height: 100%;
      background: var(--ls-accent, #0062a0);
      transition: width 0.15s;
    }
    table {
      border-collapse: collapse;
      margin: 0.4rem 0 1rem;
      font-size: 0.9em;
    }
    th,
    td {
      border-bottom: 1px solid var(--ls-border, #bbb);
      padding: 0.15rem 0.5rem;
      text-align: right;
      vertical-align: top;
    }
    th:first-child,
    td:first-child,
    td.l,
    th.l {
      text-align: left;
    }
    .scroll {
      overflow-x: auto;
      max-width: 100%;
    }
    .plot svg {
      display: block;
      max-width: 100%;
      height: auto;
    }
    .plot .plot-scroll > svg {
      max-width: none;
    }
    .plot text,
    .plot tspan {
      white-space: pre;
    }
    .drop {
      border: 2px dashed var(--ls-border, #888);
      border-radius: 6px;
      padding: 0.8rem;
      text-align: center;
    }
    .drop.over {
      border-color: var(--ls-accent, #0062a0);
    }
    .chips button[aria-pressed='true'],
    .access-choice button[aria-pressed='true'] {
      border-color: var(--ls-accent, #0062a0);
    }
    h3 {
      margin: 1.2rem 0 0.3rem;
      font-size: 1.05rem;
    }
    .warn {
      color: #8a5a00;
    }
    .vs-ncu .check {
      white-space: nowrap;
    }
    .ok {
      color: #007a5a;
    }
    button.link[aria-pressed='true'] {
      font-weight: 700;
      background: none;
      color: var(--ls-accent, #0062a0);
    }
    button.link {
      border: none;
      padding: 0;
      text-decoration: underline;
      color: var(--ls-accent, #0062a0);
      cursor: pointer;
    }
    ol.plan {
      display: flex;
      flex-wrap: wrap;
      align-items: stretch;
      gap: 0.4rem;
      list-style: none;
      padding: 0;
      margin: 0.3rem 0 1rem;
    }
    ol.plan > li:not(.arrow) {
      display: flex;
      flex-direction: column;
      gap: 0.2rem;
      flex: 1 1 14rem;
      border: 1px solid var(--ls-border, #888);
      border-radius: 6px;
      padding: 0.4rem 0.6rem;
      overflow-wrap: anywhere;
    }
    ol.plan > li.arrow {
      align-self: center;
      font-size: 1.3rem;
    }
    h4 {
      margin: 0.8rem 0 0.2rem;
      font-size: 0.95rem;
    }
    .figure-host {
      border: 1px solid var(--ls-border, #888);
      border-radius: 6px;
      padding: 0.5rem;
    }
  `,
  ];

  agents: Agent[] = [];
  datasets: Dataset[] = [];
  active: ActiveRun | null = null;
  notice = '';
  offlineError = '';
  formError: { message: string; field: string } | null = null;
  /** the access drawn under the predictions table: its state (source + state name), which access, and the
   * layout and instruction of a what-if edit (the access's own when unedited) */
  figure: { key: string; index: number; layout: string; instr: string } | null = null;
  bench = 'aos_soa';
  runAgent = -1;
  dragging = false;
  /** the convert form: two layouts, a shape and a permutation, or the permutation suite */
  convertMode: 'layouts' | 'perm' | 'suite' = 'layouts';
  convertError: { message: string; field: string } | null = null;
  /** the convert state whose plan is drawn (source + state name) */
  planKey = '';
  /** the peers' H200 times for the conversion suite, once fetched */
  peers: PeerCase[] | null = null;
  /** runs per page of an agent's history (GET /v1/runs?limit=) */
  runsPageSize = 20;
  private eng?: Engine;
  private nextKey = 1;
  private get zh() {
    return resolveLang(this.getAttribute('lang')) === 'zh';
  }
  private pt(key: PanelKey, vars: Record<string, string | number> = {}): string {
    return panelText(key, this.zh, vars);
  }
  /** value axes of the plots on a log scale */
  logScale = false;
  private plots = new Map<string, SVGSVGElement>();
  private rowByKey = new Map<string, Row>();

  override connectedCallback() {
    super.connectedCallback();
    window.addEventListener(SETTINGS_EVENT, this.onSettings);
    this.resize.observe(this);
    engine().then((e) => {
      this.eng = e;
      this.requestUpdate();
    });
    this.takeFragment();
    for (const a of this.remembered()) this.addAgent(a, true);
  }
  override disconnectedCallback() {
    super.disconnectedCallback();
    window.removeEventListener(SETTINGS_EVENT, this.onSettings);
    this.resize.disconnect();
  }
  /** The plots are drawn for the panel's width: a new width (a rotated phone, a resized window) redraws them. */
  private drawnWidth = 0;
  private resize = new ResizeObserver(() => {
    if (this.datasets.length && Math.abs(this.width() - this.drawnWidth) >= 24) this.requestUpdate();
  });
  private onSettings = () => this.requestUpdate();

  // ---- agents ------------------------------------------------------------------------------------------

  /** #token=... (and optionally agent=URL) from the URL the agent printed; removed from the address bar at once,
   * so a shared link or a screenshot of it never carries the token. The page stays at its top (the figures come
   * first); the panel connects where it is. */
  private takeFragment() {
    const f = readFragment();
    const token = f.get('token');
    if (!token) return;
    const agentUrl = f.get('agent') ?? location.origin;
    writeKey('token', null);
    writeKey('agent', null);
    try {
      this.addAgent(parseAgentUrl(agentUrl, token), false);
    } catch (err) {
      this.notice = `${this.pt('badAddress')}: ${(err as Error).message}`;
    }
  }

  private remembered(): AgentAddress[] {
    try {
      const v = JSON.parse(localStorage.getItem(STORE) ?? '[]');
      return Array.isArray(v) ? v.filter((a) => typeof a?.base === 'string' && typeof a?.token === 'string') : [];
    } catch {
      return [];
    }
  }
  private saveRemembered() {
    const list = this.agents.filter((a) => a.remember).map((a) => a.client.address);
    if (list.length) localStorage.setItem(STORE, JSON.stringify(list));
    else localStorage.removeItem(STORE);
  }

  addAgent(address: AgentAddress, remember: boolean) {
    const existing = this.agents.find((a) => a.client.base === address.base);
    if (existing) this.agents = this.agents.filter((a) => a !== existing);
    const agent: Agent = {
      key: this.nextKey++,
      client: new AgentClient(address),
      label: new URL(address.base).host,
      state: 'connecting',
      devices: [],
      catalogue: [],
      runs: [],
      runsNext: null,
      remember,
    };
    this.agents = [...this.agents, agent];
    if (this.runAgent < 0 || !this.agents.some((a) => a.key === this.runAgent)) this.runAgent = agent.key;
    void this.refreshAgent(agent);
  }

  private update_(agent: Agent, change: Partial<Agent>) {
    Object.assign(agent, change);
    this.agents = [...this.agents];
  }

  async refreshAgent(agent: Agent) {
    this.update_(agent, { state: 'connecting', problem: undefined });
    try {
      const [devices, catalogue, runs] = await Promise.all([
        agent.client.json<{ backend: string; devices: Device[]; unavailable?: string }>('/v1/devices'),
        agent.client.json<{ benchmarks: BenchSpec[] }>('/v1/benchmarks'),
        this.runPages(agent, this.runsPageSize),
      ]);
      this.update_(agent, {
        state: devices.unavailable ? 'not-ready' : 'ready',
        backend: devices.backend,
        devices: devices.devices,
        unavailable: devices.unavailable,
        catalogue: catalogue.benchmarks,
        runs: runs.runs,
        runsNext: runs.next,
      });
    } catch (err) {
      this.update_(agent, {
        state: 'error',
        problem: err instanceof AgentError ? err : new AgentError('http', String(err)),
      });
    }
  }

  private removeAgent(agent: Agent) {
    this.agents = this.agents.filter((a) => a !== agent);
    this.saveRemembered();
  }

  private onAdd(e: SubmitEvent) {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const data = new FormData(form);
    try {
      const address = parseAgentUrl(String(data.get('url') ?? ''), String(data.get('token') ?? ''));
      this.notice = '';
      this.addAgent(address, data.get('remember') === 'on');
      this.saveRemembered();
      form.reset();
    } catch (err) {
      this.notice = `${this.pt('badAddress')}: ${(err as Error).message}`;
    }
  }

  // ---- runs --------------------------------------------------------------------------------------------

  private get selectedAgent(): Agent | undefined {
    return (
      this.agents.find((a) => a.key === this.runAgent && a.state === 'ready') ??
      this.agents.find((a) => a.state === 'ready')
    );
  }

  /** The form's values as request params, each checked against the catalogue's bounds (as the agent will). */
  private collect(
    form: HTMLFormElement,
    spec: BenchSpec,
  ): { params: Record<string, unknown> } | { message: string; field: string } {
    const params: Record<string, unknown> = {};
    for (const [name, p] of Object.entries(spec.parameters)) {
      const field = `params.${name}`;
      if (p.enum && (p.type.startsWith('array') || p.type.includes('array'))) {
        const picked = [...form.querySelectorAll<HTMLInputElement>(`input[name="${name}"]:checked`)].map((i) =>
          typeof p.enum![0] === 'number' ? Number(i.value) : i.value,
        );
        if (!picked.length) return { message: `${name}: pick at least one`, field };
        params[name] = picked;
        continue;
      }
      const input = form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement | null;
      if (p.type === 'boolean') {
        params[name] = (input as HTMLInputElement | null)?.checked ?? Boolean(p.default);
        continue;
      }
      const raw = input?.value.trim() ?? '';
      if (p.enum) {
        params[name] = raw;
        continue;
      }
      if (raw === '') {
        if (p.default === null) continue; // optional (seed, repetitions)
        return { message: `${name}: required`, field };
      }
      if (p.type === 'number') {
        const x = Number(raw);
        if (!/^\d*\.?\d+(e-?\d+)?$/i.test(raw) || !Number.isFinite(x))
          return { message: `${name}: "${raw}" is not a number`, field };
        if (p.minimum !== undefined && x < p.minimum)
          return { message: `${name}: ${x} is below the minimum ${p.minimum}`, field };
        if (p.maximum !== undefined && x > p.maximum)
          return { message: `${name}: ${x} is above the maximum ${p.maximum}`, field };
        params[name] = x;
        continue;
      }
      const list = p.type.includes('array') ? raw.split(/[\s,]+/).filter(Boolean) : [raw];
      const values: number[] = [];
      for (const v of list) {
        if (!/^\d+$/.test(v)) return { message: `${name}: "${v}" is not a whole number`, field };
        const x = Number(v);
        if (p.minimum !== undefined && x < p.minimum)
          return { message: `${name}: ${x} is below the minimum ${p.minimum}`, field };
        if (p.maximum !== undefined && x > p.maximum)
          return { message: `${name}: ${x} is above the maximum ${p.maximum}`, field };
        if (values.includes(x)) return { message: `${name}: ${x} is given twice`, field };
        values.push(x);
      }
      if (p.maxItems !== undefined && values.length > p.maxItems)
        return { message: `${name}: at most ${p.maxItems} values`, field };
      params[name] = p.type.includes('array') ? values : values[0];
    }
    return { params };
  }

  private onFormInput(e: Event) {
    const form = (e.currentTarget as HTMLFormElement) ?? (e.target as HTMLElement).closest('form');
    const spec = this.selectedAgent?.catalogue.find((b) => b.name === this.bench);
    if (!form || !spec) return;
    const r = this.collect(form, spec);
    this.formError = 'params' in r ? null : r;
  }

  private async onRun(e: SubmitEvent) {
    e.preventDefault();
    const agent = this.selectedAgent;
    const spec = agent?.catalogue.find((b) => b.name === this.bench);
    if (!agent || !spec) return;
    const form = e.target as HTMLFormElement;
    const r = this.collect(form, spec);
    if (!('params' in r)) {
      this.formError = r;
      return;
    }
    this.formError = null;
    const device = Number((form.elements.namedItem('device') as HTMLSelectElement | null)?.value ?? 0);
    this.notice = '';
    try {
      const res = await agent.client.json<{ id: string }>('/v1/runs', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ benchmark: this.bench, params: r.params, device }),
      });
      await this.follow(agent, res.id, this.bench);
    } catch (err) {
      const a = err as AgentError;
      if (a.status === 422) this.formError = { message: `${this.pt('refused')}: ${a.message}`, field: a.field };
      else if (a.status === 409)
        this.notice =
          `${this.pt('agentError')}: ${a.message}` + (a.retryAfter ? this.pt('retryAfter', { s: a.retryAfter }) : '');
      else this.notice = `${this.pt('agentError')}: ${a.message}`;
    }
  }

  /** Follows a run's progress stream to its end, then loads its result. */
  private async follow(agent: Agent, id: string, bench: string) {
    const abort = new AbortController();
    this.active = { agentKey: agent.key, bench, id, status: 'queued', progress: 0, message: 'queued', abort };
    try {
      for await (const ev of agent.client.events(id, abort.signal)) {
        const d = ev.data;
        this.active = {
          ...this.active!,
          status: d.status,
          progress: Number(d.progress) || 0,
          message: d.message ?? '',
        };
        if (ev.event === 'end') break;
      }
      const record = await agent.client.json<{ status: string; error: string | null; result: ResultsDoc | null }>(
        `/v1/runs/${encodeURIComponent(id)}`,
      );
      this.active = {
        ...this.active!,
        status: record.status,
        progress: record.status === 'succeeded' ? 1 : this.active!.progress,
        message: record.error ?? record.status,
      };
      if (record.result) this.addDataset(record.result, { agent, runId: id });
    } catch (err) {
      if ((err as Error).name !== 'AbortError') this.notice = this.agentMessage(err);
    }
    void this.refreshRuns(agent);
  }

  private async cancel() {
    const run = this.active;
    const agent = this.agents.find((a) => a.key === run?.agentKey);
    if (!run || !agent) return;
    try {
      await agent.client.request(`/v1/runs/${encodeURIComponent(run.id)}`, { method: 'DELETE' });
    } catch (err) {
      this.notice = this.agentMessage(err);
    }
  }

  /** Pages of GET /v1/runs from the first, following `next`, until `want` runs are in (or none is left). */
  private async runPages(agent: Agent, want: number, after: string | null = null) {
    const runs: RunSummary[] = [];
    let next = after;
    do {
      const q = `limit=${this.runsPageSize}${next ? `&after=${encodeURIComponent(next)}` : ''}`;
      const page = await agent.client.json<{ runs: RunSummary[]; next: string | null }>(`/v1/runs?${q}`);
      runs.push(...page.runs);
      next = page.next;
    } while (next && runs.length < want);
    return { runs, next };
  }

  /** Reloads the runs already shown (as many pages as they took), so a finished run appears in its place. */
  private async refreshRuns(agent: Agent) {
    try {
      const r = await this.runPages(agent, Math.max(this.runsPageSize, agent.runs.length + 1));
      this.update_(agent, { runs: r.runs, runsNext: r.next });
    } catch (err) {
      this.notice = this.agentMessage(err);
    }
  }

  private async loadMoreRuns(agent: Agent) {
    if (!agent.runsNext) return;
    try {
      const r = await this.runPages(agent, 1, agent.runsNext);
      this.update_(agent, { runs: [...agent.runs, ...r.runs], runsNext: r.next });
    } catch (err) {
      this.notice = this.agentMessage(err);
    }
  }

  /** One of the agent's sentences: in Chinese the panel's translation where it knows the sentence, else the
   * agent's English marked as such (lang="en", and a tooltip saying these are the agent's words). */
  private agentWords(text: string): TemplateResult | string {
    const w = agentSentence(text, this.zh);
    if (w.known) return w.text;
    return html`<span lang="en" class="agent-words" title=${this.pt('agentWording')}>${w.text}</span>`;
  }

  /** An agent's error in the page's language: a translated prefix, the agent's own words after it. */
  private agentMessage(err: unknown): string {
    const m = err instanceof Error ? err.message : String(err);
    return `${this.pt('agentError')}: ${m}`;
  }

  private async loadRun(agent: Agent, id: string) {
    try {
      const record = await agent.client.json<{ result: ResultsDoc | null; status: string }>(
        `/v1/runs/${encodeURIComponent(id)}`,
      );
      if (!record.result) this.notice = this.pt('noResult', { id, status: this.statusText(record.status) });
      else this.addDataset(record.result, { agent, runId: id });
    } catch (err) {
      this.notice = this.agentMessage(err);
    }
  }

  // ---- datasets ----------------------------------------------------------------------------------------

  addDataset(doc: ResultsDoc, from: { agent?: Agent; runId?: string; file?: string; raw?: string }) {
    const device = doc.devices[0]?.name ?? 'device';
    const source = from.agent
      ? `${from.agent.label} · ${device} · ${doc.meta.run_id.slice(-8)}`
      : `${from.file} · ${device}`;
    const key = from.agent ? `${from.agent.client.base}/${from.runId}` : `file:${from.file}:${doc.meta.run_id}`;
    const rest = this.datasets.filter((d) => d.key !== key);
    // one document per benchmark and source is shown at first: the newest
    for (const d of rest)
      if (
        d.doc.meta.request.benchmark === doc.meta.request.benchmark &&
        d.agentKey !== undefined &&
        d.agentKey === from.agent?.key
      )
        d.shown = false;
    this.datasets = [
      ...rest,
      { key, source, doc, raw: from.raw, agentKey: from.agent?.key, runId: from.runId, shown: true },
    ];
  }

  private async openFile(file: File) {
    this.offlineError = '';
    const text = await file.text();
    const r = readResultsText(text, file.name);
    if ('error' in r) this.offlineError = `${this.pt('cannotOpen')}: ${r.error}`;
    else this.addDataset(r.doc, { file: file.name, raw: text });
  }

  private async openUrl(e: SubmitEvent) {
    e.preventDefault();
    const url = String(new FormData(e.target as HTMLFormElement).get('resultsUrl') ?? '').trim();
    this.offlineError = '';
    if (url) await this.fetchResults(url);
  }

  /** The H200 runs committed in docs/results/, which the build copies to ./results/ (vite.config.ts). */
  private async openReferenceRuns() {
    this.offlineError = '';
    for (const name of REFERENCE_RUNS) if (!(await this.fetchResults(`./results/${name}`))) return;
  }

  /** Fetches a results document and adds it; false (with offlineError set) when it cannot. */
  private async fetchResults(url: string): Promise<boolean> {
    let text: string;
    try {
      const res = await fetch(new URL(url, location.href), { cache: 'no-store', credentials: 'omit' });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      text = await res.text();
    } catch (err) {
      this.offlineError = this.pt('fetchFailed', { url, why: (err as Error).message });
      return false;
    }
    const r = readResultsText(text, url.split('/').pop() || url);
    if ('error' in r) {
      this.offlineError = `${this.pt('cannotOpen')}: ${r.error}`;
      return false;
    }
    this.addDataset(r.doc, { file: url.split('/').pop() || url, raw: text });
    return true;
  }

  private onDrop(e: DragEvent) {
    e.preventDefault();
    this.dragging = false;
    const file = e.dataTransfer?.files[0];
    if (file) void this.openFile(file);
  }

  private exportJson(d: Dataset) {
    const text = d.raw ?? JSON.stringify(d.doc, null, 1) + '\n';
    saveFile(`${d.doc.meta.run_id}.json`, new Blob([text], { type: 'application/json' }));
  }

  private async exportCsv(d: Dataset) {
    const agent = this.agents.find((a) => a.key === d.agentKey);
    try {
      const text =
        agent && d.runId
          ? await (await agent.client.request(`/v1/runs/${encodeURIComponent(d.runId)}?format=csv`)).text()
          : rowsToCsv(rowsOf(d.doc, d.source));
      saveFile(`${d.doc.meta.run_id}.csv`, new Blob([text], { type: 'text/csv' }));
    } catch (err) {
      this.notice = this.agentMessage(err);
    }
  }

  private async exportPlot(id: string, kind: 'svg' | 'png') {
    const svg = this.plots.get(id);
    if (!svg) return;
    const p = PALETTES[resolveTheme(null)];
    if (kind === 'svg')
      saveFile(`layoutscope-${id}.svg`, new Blob([svgFile(svg, p.bg, p.fg)], { type: 'image/svg+xml' }));
    else saveFile(`layoutscope-${id}.png`, await pngFile(svg, p.bg, p.fg));
  }

  // ---- render ------------------------------------------------------------------------------------------

  override render() {
    this.drawnWidth = this.width();
    return html`${this.renderAgents()} ${this.renderRun()} ${this.renderConvertForm()} ${this.renderOffline()} ${this.renderResults()}`;
  }

  private renderAgents(): TemplateResult {
    return html`<fieldset class="agents">
      <legend>${this.pt('agents')}</legend>
      ${
        this.agents.length
          ? this.agents.map((a) => this.renderAgent(a))
          : html`<p class="muted">${this.pt('noAgent1')}<code>layoutscope-agent</code>${this.pt('noAgent2')}</p>`
      }
      <form class="row add-agent" @submit=${this.onAdd}>
        <label class="grow">${this.pt('agentUrl')} <input name="url" class="grow" size="40" placeholder="http://127.0.0.1:8765/#token=…" autocomplete="off" spellcheck="false" /></label>
        <label>${this.pt('token')} <input name="token" size="12" type="password" autocomplete="off" /></label>
        <label><input type="checkbox" name="remember" /> ${this.pt('remember')}</label>
        <button type="submit">${this.pt('addAgent')}</button>
      </form>
      ${this.notice ? html`<p class="error notice" role="alert">${this.notice}</p>` : nothing}
    </fieldset>`;
  }

  private renderAgent(a: Agent): TemplateResult {
    const badge = this.pt(
      ({ connecting: 'connecting', ready: 'ready', 'not-ready': 'notReady', error: 'error' } as const)[a.state],
    );
    return html`<div class="agent ${a.state}" data-agent=${a.client.base}>
      <div class="row">
        <strong>${a.label}</strong> <span class="badge state">${badge}</span>
        ${a.backend ? html`<span class="muted">${this.pt('backend')} ${a.backend}</span>` : nothing}
        <span class="grow"></span>
        <button type="button" @click=${() => this.refreshAgent(a)}>${this.pt('refresh')}</button>
        <button type="button" @click=${() => this.removeAgent(a)}>${this.pt('remove')}</button>
      </div>
      ${a.problem ? html`<p class="problem" role="alert" data-kind=${a.problem.kind}>${this.pt('agentError')}: ${a.problem.message}</p>` : nothing}
      ${a.unavailable ? html`<p class="problem" role="alert">${this.pt('noBackend')}: ${a.unavailable}</p>` : nothing}
      ${
        a.devices.length
          ? html`<ul class="devices">
            ${a.devices.map(
              (d) =>
                html`<li>
                  ${this.pt('deviceN', { n: d.id })}: <strong>${d.name}</strong> (${d.kind}${d.sm_version ? ` sm_${d.sm_version.replace('.', '')}` : ''}, ${d.multiprocessors}
                  ${d.kind === 'cpu' ? this.pt('hwThreads') : 'SMs'}, ${bytes(d.global_memory_bytes)}${
                    d.peak_bandwidth_bytes_per_second
                      ? `, peak ${(d.peak_bandwidth_bytes_per_second / 1e12).toFixed(2)} TB/s`
                      : ''
                  })
                </li>`,
            )}
          </ul>`
          : nothing
      }
      ${a.runs.length ? this.renderHistory(a) : nothing}
    </div>`;
  }

  /** The agent's runs in its order (oldest first, by run id), a page at a time. */
  private renderHistory(a: Agent): TemplateResult {
    return html`<details class="history">
      <summary>${this.pt('history', { n: a.runs.length, more: a.runsNext ? '+' : '' })}</summary>
      <div class="scroll" tabindex="0">
        <table>
          <thead><tr><th>${this.pt('run')}</th><th class="l">${this.pt('benchmark')}</th><th class="l">${this.pt('status')}</th><th class="l">${this.pt('finished')}</th><th></th></tr></thead>
          <tbody>
            ${a.runs.map(
              (r) => html`<tr class="history-run">
                <td class="mono">${r.id}</td><td class="l">${r.benchmark}</td><td class="l">${this.statusText(r.status)}${r.error ? html` <span class="error">(${this.pt('agentError')}: ${r.error})</span>` : nothing}</td>
                <td class="l">${r.finished_at ?? '–'}</td>
                <td>${r.status === 'succeeded' ? html`<button type="button" class="load-run" @click=${() => this.loadRun(a, r.id)}>${this.pt('load')}</button>` : nothing}</td>
              </tr>`,
            )}
          </tbody>
        </table>
      </div>
      ${a.runsNext ? html`<button type="button" class="load-more" @click=${() => this.loadMoreRuns(a)}>${this.pt('loadMore')}</button>` : nothing}
    </details>`;
  }

  private statusText(status: string): string {
    const key = `st_${status}` as PanelKey;
    return key in PANEL_TEXT ? this.pt(key) : status;
  }

  private get running() {
    const run = this.active;
    return !!run && !['succeeded', 'failed', 'cancelled', 'interrupted'].includes(run.status);
  }

  /** The progress of the active run, under the form of its benchmark. */
  private renderProgress(bench: (b: string) => boolean): TemplateResult | typeof nothing {
    const run = this.active;
    if (!run || !bench(run.bench)) return nothing;
    const pct = Math.round(run.progress * 100);
    const status = this.statusText(run.status);
    return html`<div class="bar" role="progressbar" aria-label=${this.pt('progress')} aria-valuemin="0" aria-valuemax="100" aria-valuenow=${pct}>
        <div ${styleProps({ width: `${pct}%` })}></div>
      </div>
      <span class="progress-text" aria-live="polite">${pct}% · ${status}${run.message && run.message !== run.status ? html` · ${this.agentWords(run.message)}` : ''}</span>
      ${this.running ? html`<button type="button" class="cancel" @click=${this.cancel}>${this.pt('cancel')}</button>` : nothing}`;
  }

  /** A benchmark's title and description: the agent's words, in Chinese the panel's own where it knows the
   * benchmark. */
  private benchText(b: BenchSpec, what: 'title' | 'desc'): string {
    const key = `bench_${b.name}_${what}` as PanelKey;
    return this.zh && key in PANEL_TEXT ? this.pt(key) : what === 'title' ? b.title : b.description;
  }

  private renderRun(): TemplateResult | typeof nothing {
    const ready = this.agents.filter((a) => a.state === 'ready');
    if (!ready.length) return nothing;
    const agent = this.selectedAgent!;
    // convert has its own form (two layouts or a permutation), below
    const catalogue = agent.catalogue.filter((b) => b.name !== 'convert');
    const spec = catalogue.find((b) => b.name === this.bench) ?? catalogue[0];
    if (!spec) return nothing;
    return html`<fieldset class="run">
      <legend>${this.pt('runBench')}</legend>
      <form @submit=${this.onRun} @input=${this.onFormInput} @change=${this.onFormInput} novalidate>
        <div class="row">
          <label>${this.pt('agent')}
            <select name="agent" @change=${(e: Event) => (this.runAgent = Number((e.target as HTMLSelectElement).value))}>
              ${ready.map((a) => html`<option value=${a.key} ?selected=${a === agent}>${a.label}</option>`)}
            </select></label>
          <label>${this.pt('device')}
            <select name="device">${agent.devices.map((d) => html`<option value=${d.id}>${d.id}: ${d.name}</option>`)}</select></label>
          <span role="group" aria-label=${this.pt('benchmark')}>
            ${catalogue.map(
              (b) =>
                html`<button type="button" class="bench-${b.name}" aria-pressed=${b.name === spec.name} @click=${() => ((this.bench = b.name), (this.formError = null))}>${this.benchText(b, 'title')}</button>`,
            )}
          </span>
        </div>
        <p class="muted">${this.benchText(spec, 'desc')}</p>
        <div class="row params">${Object.entries(spec.parameters).map(([name, p]) => this.renderParam(name, p))}</div>
        ${this.formError ? html`<p class="error form-error" role="alert">${this.formError.message}</p>` : nothing}
        <div class="row">
          <button type="submit" class="primary run-button" ?disabled=${this.running || !!this.formError}>${this.pt('runX', { name: spec.name })}</button>
          ${this.renderProgress((b) => b !== 'convert')}
        </div>
      </form>
    </fieldset>`;
  }

  private renderConvertForm(): TemplateResult | typeof nothing {
    const agent = this.selectedAgent;
    const spec = agent?.catalogue.find((b) => b.name === 'convert');
    if (!agent || !spec) return nothing;
    const mode = this.convertMode;
    const err = this.convertError;
    const inv = (f: string) => (err?.field === `params.${f}` ? 'true' : 'false');
    const sampling = Object.entries(spec.parameters).filter(([n]) => !CONVERT_INPUTS.includes(n));
    const modes: [typeof mode, PanelKey][] = [
      ['layouts', 'cvLayouts'],
      ['perm', 'cvPerm'],
      ['suite', 'cvSuite'],
    ];
    return html`<fieldset class="convert">
      <legend>${this.pt('cvTitle')}</legend>
      <p class="muted">${this.pt('cvNote')}</p>
      <form @submit=${this.onConvert} @input=${() => (this.convertError = null)} novalidate>
        <div class="row" role="radiogroup" aria-label=${this.pt('cvMode')}>
          ${modes.map(
            ([m, k]) =>
              html`<label><input type="radio" name="mode" value=${m} .checked=${mode === m} @change=${() => ((this.convertMode = m), (this.convertError = null))} /> ${this.pt(k)}</label>`,
          )}
        </div>
        ${
          mode === 'layouts'
            ? html`<div class="row"><label class="grow">${this.pt('cvSrc')} <input name="src" class="grow mono" size="34" spellcheck="false" autocomplete="off" placeholder="S[(64,32):(32,1)]" aria-invalid=${inv('src')} /></label></div>
                <div class="row"><label class="grow">${this.pt('cvDst')} <input name="dst" class="grow mono" size="34" spellcheck="false" autocomplete="off" placeholder="S[(64,32):(1,64)]" aria-invalid=${inv('dst')} /></label></div>`
            : nothing
        }
        ${
          mode !== 'suite'
            ? html`<div class="row">
                <label>${this.pt('cvShape')} <input name="shape" size="14" inputmode="numeric" placeholder="64, 32" aria-invalid=${inv('shape')} /></label>
                ${mode === 'perm' ? html`<label>${this.pt('cvPermLabel')} <input name="perm" size="10" inputmode="numeric" placeholder="1, 0" aria-invalid=${inv('perm')} /></label>` : nothing}
                <label>dtype <select name="dtype">${['f32', 'bf16', 'f16', 'f8', 'u8', 'f64'].map((d) => html`<option>${d}</option>`)}</select></label>
              </div>`
            : html`<p class="muted">${this.pt('cvSuiteNote')}</p>`
        }
        <div class="row params">${sampling.map(([name, p]) => this.renderParam(name, p))}</div>
        ${err ? html`<p class="error convert-error" role="alert">${err.message}</p>` : nothing}
        <div class="row">
          <button type="submit" class="primary convert-button" ?disabled=${this.running}>${this.pt('cvRun')}</button>
          ${this.renderProgress((b) => b === 'convert')}
        </div>
      </form>
    </fieldset>`;
  }

  private async onConvert(e: SubmitEvent) {
    e.preventDefault();
    const agent = this.selectedAgent;
    const spec = agent?.catalogue.find((b) => b.name === 'convert');
    if (!agent || !spec) return;
    const form = e.target as HTMLFormElement;
    const d = new FormData(form);
    const text = (k: string) => String(d.get(k) ?? '');
    const r = convertParams(this.convertMode, {
      src: text('src'),
      dst: text('dst'),
      shape: text('shape'),
      perm: text('perm'),
      dtype: text('dtype'),
    });
    if (!('params' in r)) {
      this.convertError = r;
      return;
    }
    const rest = this.collect(form, {
      ...spec,
      parameters: Object.fromEntries(Object.entries(spec.parameters).filter(([n]) => !CONVERT_INPUTS.includes(n))),
    });
    if (!('params' in rest)) {
      this.convertError = rest;
      return;
    }
    this.convertError = null;
    const device = Number(
      (this.renderRoot.querySelector('select[name=device]') as HTMLSelectElement | null)?.value ?? 0,
    );
    try {
      const res = await agent.client.json<{ id: string }>('/v1/runs', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ benchmark: 'convert', params: { ...r.params, ...rest.params }, device }),
      });
      await this.follow(agent, res.id, 'convert');
    } catch (err) {
      const a = err as AgentError;
      this.convertError = {
        message: a.status === 422 ? `${this.pt('refused')}: ${a.message}` : this.agentMessage(err),
        field: a.field ?? '',
      };
    }
  }

  private renderParam(name: string, p: ParamSpec): TemplateResult {
    const invalid = this.formError?.field === `params.${name}`;
    const desc = agentSentence(p.description ?? '', this.zh).text;
    const title = `${desc}${p.minimum !== undefined ? ` (${p.minimum}–${p.maximum})` : ''}`;
    if (p.enum && p.type.includes('array')) {
      const def = Array.isArray(p.default) ? p.default : [p.default];
      return html`<span role="group" aria-label=${name} title=${title}>${name}:
        ${p.enum.map((v) => html`<label><input type="checkbox" name=${name} value=${v} ?checked=${def.includes(v)} />${v}</label>`)}</span>`;
    }
    if (p.type === 'boolean')
      return html`<label title=${title}><input type="checkbox" name=${name} ?checked=${p.default === true} />${name}</label>`;
    if (p.enum)
      return html`<label title=${title}>${name}
        <select name=${name}>${p.enum.map((v) => html`<option ?selected=${v === p.default}>${v}</option>`)}</select></label>`;
    const def = p.default === null ? '' : Array.isArray(p.default) ? p.default.join(', ') : String(p.default);
    const isList = p.type.includes('array');
    return html`<label title=${title}>${name}
      <input
        name=${name}
        .value=${def}
        size=${isList ? 14 : name === 'n' ? 11 : 6}
        inputmode=${p.type === 'number' ? 'decimal' : 'numeric'}
        placeholder=${p.default === null ? 'random' : ''}
        aria-invalid=${invalid ? 'true' : 'false'}
        data-min=${p.minimum ?? ''}
        data-max=${p.maximum ?? ''}
    /></label>`;
  }

  private renderOffline(): TemplateResult {
    return html`<fieldset class="offline">
      <legend>${this.pt('openFile')}</legend>
      <div
        class="drop ${this.dragging ? 'over' : ''}"
        @dragover=${(e: DragEvent) => (e.preventDefault(), (this.dragging = true))}
        @dragleave=${() => (this.dragging = false)}
        @drop=${this.onDrop}
      >
        ${this.pt('drop1')}<code>docs/results/*.json</code>${this.pt('drop2')}
        <label>${this.pt('chooseFile')} <input type="file" class="file" accept=".json,application/json" @change=${(
          e: Event,
        ) => {
          const f = (e.target as HTMLInputElement).files?.[0];
          if (f) void this.openFile(f);
        }} /></label>
      </div>
      <form class="row" @submit=${this.openUrl}>
        <label class="grow">${this.pt('orUrl')} <input name="resultsUrl" class="grow" size="40" placeholder="./results/h200-transpose.json" /></label>
        <button type="submit">${this.pt('open')}</button>
      </form>
      <p class="row">
        <button type="button" class="open-reference" @click=${() => void this.openReferenceRuns()}>${this.pt('openRef')}</button>
        <span class="muted">${this.pt('refNote1')}<code>docs/results/</code>${this.pt('refNote2')}</span>
      </p>
      ${this.offlineError ? html`<p class="error offline-error" role="alert">${this.offlineError}</p>` : nothing}
    </fieldset>`;
  }

  private renderResults(): TemplateResult | typeof nothing {
    if (!this.datasets.length) return nothing;
    const shown = this.datasets.filter((d) => d.shown);
    const rows = shown.flatMap((d) => rowsOf(d.doc, d.source));
    return html`<section class="results" aria-label=${this.pt('results')}>
      <h3>${this.pt('results')}</h3>
      <label class="log-scale"><input type="checkbox" .checked=${this.logScale} @change=${(e: Event) => (this.logScale = (e.target as HTMLInputElement).checked)} /> ${this.pt('logScale')}</label>
      <div class="chips row">
        ${this.datasets.map(
          (d) => html`<span class="dataset">
            <button type="button" aria-pressed=${d.shown} title=${this.pt('showHide')} @click=${() => ((d.shown = !d.shown), (this.datasets = [...this.datasets]))}>
              ${d.doc.meta.request.benchmark} · ${d.source}</button>
            <button type="button" class="export-json" @click=${() => this.exportJson(d)}>JSON</button>
            <button type="button" class="export-csv" @click=${() => this.exportCsv(d)}>CSV</button>
          </span>`,
        )}
      </div>
      ${this.renderAos(
        rows.filter((r) => r.benchmark === 'aos_soa'),
        shown,
      )} ${this.renderTranspose(rows.filter((r) => r.benchmark === 'transpose'))}
      ${this.renderConvert(rows.filter((r) => r.benchmark === 'convert'))}
      ${this.renderPredictions(rows)} ${this.renderFigure()}
    </section>`;
  }

  private plotWords(): PlotWords {
    return {
      usefulGbps: this.pt('usefulGbps'),
      speedup: this.pt('plotSpeedup'),
      fractionCopy: this.pt('fractionCopy'),
      ofCopy: this.pt('ofCopy'),
      aosBandwidth: this.pt('ariaAosBandwidth'),
      aosSpeedup: this.pt('ariaAosSpeedup'),
      transposeBandwidth: this.pt('ariaTransposeBandwidth'),
      transposeFraction: this.pt('ariaTransposeFraction'),
    };
  }

  private plotBox(id: string, svg: SVGSVGElement, caption: string): TemplateResult {
    this.plots.set(id, svg);
    // a chart drawn wider than a narrow panel (bands wide enough for their names) scrolls inside its own box
    return html`<figure class="plot" data-plot=${id}>
      <div class="scroll plot-scroll" tabindex="0" role="group" aria-label=${svg.getAttribute('aria-label') ?? id}>
        ${svg}
      </div>
      <figcaption class="row">
        <span class="muted grow">${caption}</span>
        <button type="button" class="plot-svg" @click=${() => this.exportPlot(id, 'svg')}>SVG</button>
        <button type="button" class="plot-png" @click=${() => this.exportPlot(id, 'png')}>PNG</button>
      </figcaption>
    </figure>`;
  }

  private width() {
    return Math.max(280, Math.min(900, this.clientWidth || 800));
  }

  private renderAos(rows: Row[], shown: Dataset[]): TemplateResult | typeof nothing {
    if (!rows.length) return nothing;
    const p = PALETTES[resolveTheme(null)];
    const sources = [...new Set(rows.map((r) => r.source))];
    const o = { width: this.width(), fg: p.fg, sources, log: this.logScale, words: this.plotWords() };
    // ceiling: the run's own copies (benchmarks[].ceilings), else a copy measured on the same device (a loaded
    // transpose), else the device's peak from its attributes
    const ceilings = sources.flatMap((s) => {
      const r = rows.find((x) => x.source === s)!;
      const own = runCeiling(shown.find((d) => d.source === s)!.doc);
      if (own)
        return [
          { source: s, gbps: own.gbps, label: `${own.name} (${this.pt('thisRun')}) ${own.gbps.toFixed(0)} GB/s` },
        ];
      const copy = this.datasets
        .flatMap((d) => rowsOf(d.doc, d.source))
        .filter(
          (x) =>
            x.benchmark === 'transpose' &&
            x.variant === 'copy' &&
            x.device === r.device &&
            x.backend === r.backend &&
            x.gbps,
        )
        .sort((a, b) => b.dim! - a.dim!)[0];
      if (copy) return [{ source: s, gbps: copy.gbps!, label: `copy ${copy.dim}² ${copy.gbps!.toFixed(0)} GB/s` }];
      const peak = shown.find((d) => d.source === s)?.doc.devices[0]?.peak_bandwidth_bytes_per_second;
      return peak
        ? [{ source: s, gbps: peak / 1e9, label: `${this.pt('peakAttr')} ${(peak / 1e9).toFixed(0)} GB/s` }]
        : [];
    });
    const speed = speedups(rows);
    // The sector model's ratio 8/t is the speedup when both kernels are limited by DRAM bandwidth. The AoS kernel
    // moves ratio x its useful bytes, so it is DRAM-bound where ratio x its useful GB/s reaches most of the copy
    // ceiling; elsewhere (scalar AoS at 4 and 8 fields) its load instructions limit it and the ratio is no bound.
    const ratio = (sp: (typeof speed)[number]) =>
      rows
        .find((r) => r.source === sp.source && r.variant === PAIRS[sp.pair].soa && r.touch === sp.touch)
        ?.state.summaries.find((x) => x.tag === 'layoutscope/dram_sector_bound_speedup')?.value ?? NaN;
    const bound: BoundPoint[] = speed.map((sp) => {
      const b = ratio(sp);
      const ceiling = ceilings.find((c) => c.source === sp.source)?.gbps;
      const applies =
        Number.isFinite(b) &&
        (ceiling === undefined || (sp.aosGbps !== null && sp.aosGbps * b >= DRAM_BOUND_FRACTION * ceiling));
      return { source: sp.source, pair: sp.pair, touch: sp.touch, bound: b, applies };
    });
    const sorted = [...rows].sort(
      (a, b) => a.source.localeCompare(b.source) || a.touch! - b.touch! || a.variant.localeCompare(b.variant),
    );
    return html`<h3>${this.pt('aosTitle')}</h3>
      ${this.plotBox('aos-bandwidth', aosBandwidth(rows, ceilings, o), `${ceilings.length ? this.pt('capCeiling') : this.pt('capNoCeiling')} ${this.pt('capWhiskers')}`)}
      <div class="scroll" tabindex="0">
        <table class="aos-table">
          <thead><tr><th class="l">${this.pt('source')}</th><th>touch_fields</th><th class="l">${this.pt('layout')}</th><th>n</th><th>${this.pt('medianMs')}</th><th>${this.pt('usefulGbps')}</th><th>${this.pt('verified')}</th></tr></thead>
          <tbody>
            ${sorted.map(
              (r) =>
                html`<tr><td>${r.source}</td><td>${r.touch}</td><td class="l">${r.variant}</td><td>${r.n}</td><td>${fmt(r.timeS === null ? null : r.timeS * 1e3, 4)}</td><td>${fmt(r.gbps, 1)}</td><td class=${r.verified ? 'ok' : 'error'}>${r.skipped ?? (r.verified ? this.pt('yes') : this.pt('no'))}</td></tr>`,
            )}
          </tbody>
        </table>
      </div>
      <ul class="legend speedup-legend" aria-label=${this.pt('series')}>
        ${speedupLegend(speed, sources.length > 1).map((l) => html`<li><span class="swatch" ${styleProps({ background: l.colour })}></span>${l.name}</li>`)}
        <li><span class="swatch dashed"></span>${this.pt('modelRatio')}</li>
      </ul>
      ${this.plotBox(
        'aos-speedup',
        aosSpeedup(speed, bound, o),
        this.pt('capRatio').replace('{f}', String(DRAM_BOUND_FRACTION * 100)),
      )}
      <div class="scroll" tabindex="0">
        <table class="speedup-table">
          <thead><tr><th class="l">${this.pt('source')}</th><th>touch_fields</th><th>${this.pt('measuredRatio')}</th><th>${this.pt('modelRatio')}</th><th class="l">${this.pt('kernels')}</th><th class="l">${this.pt('applies')}</th></tr></thead>
          <tbody>
            ${speed.map((s, i) => html`<tr data-pair=${s.pair}><td>${s.source}</td><td>${s.touch}</td><td>${fmt(s.speedup)}</td><td>${fmt(bound[i].bound)}</td><td class="l">${PAIRS[s.pair].name}</td><td class="l applies">${bound[i].applies ? this.pt('yes') : this.pt('notApplies')}</td></tr>`)}
          </tbody>
        </table>
      </div>`;
  }

  private renderTranspose(rows: Row[]): TemplateResult | typeof nothing {
    if (!rows.length) return nothing;
    const p = PALETTES[resolveTheme(null)];
    const sources = [...new Set(rows.map((r) => r.source))];
    const o = { width: this.width(), fg: p.fg, sources, log: this.logScale, words: this.plotWords() };
    const order = ['copy', 'naive', 'tiled', 'pad'];
    const sorted = [...rows].sort(
      (a, b) =>
        a.source.localeCompare(b.source) || a.dim! - b.dim! || order.indexOf(a.variant) - order.indexOf(b.variant),
    );
    return html`<h3>${this.pt('transposeTitle')}</h3>
      ${this.plotBox('transpose-bandwidth', transposeBandwidth(rows, o), this.pt('capTransposeCopy'))}
      ${this.plotBox('transpose-fraction', transposeFraction(rows, o), this.pt('capFraction'))}
      <div class="scroll" tabindex="0">
        <table class="transpose-table">
          <thead><tr><th class="l">${this.pt('source')}</th><th>dim</th><th class="l">${this.pt('variant')}</th><th>${this.pt('medianMs')}</th><th>${this.pt('usefulGbps')}</th><th>${this.pt('fractionCopy')}</th><th>${this.pt('verified')}</th></tr></thead>
          <tbody>
            ${sorted.map(
              (r) =>
                html`<tr><td>${r.source}</td><td>${r.dim}</td><td class="l">${r.variant}</td><td>${fmt(r.timeS === null ? null : r.timeS * 1e3, 4)}</td><td>${fmt(r.gbps, 1)}</td><td>${fmt(r.fractionOfCopy)}</td><td class=${r.verified ? 'ok' : 'error'}>${r.skipped ?? (r.verified ? this.pt('yes') : this.pt('no'))}</td></tr>`,
            )}
          </tbody>
        </table>
      </div>`;
  }

  private renderConvert(rows: Row[]): TemplateResult | typeof nothing {
    if (!rows.length) return nothing;
    const p = PALETTES[resolveTheme(null)];
    const chosen = rows.find((r) => rowKey(r) === this.planKey) ?? rows[0];
    const suite = rows.filter((r) => r.suite === 'permutations');
    if (suite.length && this.peers === null) void this.fetchPeers();
    const points = suitePoints(suite, this.peers);
    const sources = [...new Set(rows.map((r) => r.source))];
    return html`<h3>${this.pt('cvResults')}</h3>
      <div class="scroll" tabindex="0">
        <table class="convert-table">
          <thead><tr><th class="l">${this.pt('source')}</th><th class="l">${this.pt('cvCase')}</th><th class="l">${this.pt('cvPlan')}</th><th>${this.pt('cvSectors')}</th><th>${this.pt('cvWavefronts')}</th><th>${this.pt('medianMs')}</th><th>${this.pt('usefulGbps')}</th><th>${this.pt('fractionCopy')}</th><th>${this.pt('verified')}</th><th class="l">${this.pt('vsNcu')}</th></tr></thead>
          <tbody>
            ${rows.map((r) => {
              const plan = r.state.plan;
              const pr = plan?.predicted_per_warp_instruction;
              return html`<tr class="convert-case" data-case=${r.variant}>
                <td>${r.source}</td>
                <td class="l"><button type="button" class="link open-plan" aria-pressed=${r === chosen} @click=${() => (this.planKey = rowKey(r))}>${r.variant}</button></td>
                <td class="l plan-kind" data-kind=${plan?.kind ?? ''}>${plan ? `${this.pt(plan.kind === 'tiled' ? 'kindTiled' : 'kindVector')} · ${plan.vector_bytes} B${plan.tile ? ` · ${plan.tile.tile_a}×${plan.tile.tile_b}` : ''}` : '–'}</td>
                <td class="cv-sectors">${pr ? `${pr.global_read.sectors} / ${pr.global_write.sectors}` : '–'}</td>
                <td class="cv-wavefronts">${pr?.smem_write && pr.smem_read ? `${pr.smem_write.wavefronts} / ${pr.smem_read.wavefronts}` : '–'}</td>
                <td>${fmt(r.timeS === null ? null : r.timeS * 1e3, 4)}</td><td>${fmt(r.gbps, 1)}</td><td>${fmt(r.fractionOfCopy)}</td>
                <td class=${r.verified ? 'ok' : 'error'}>${r.skipped ?? (r.verified ? this.pt('yes') : this.pt('no'))}</td>
                ${this.renderChecks(r)}
              </tr>`;
            })}
          </tbody>
        </table>
      </div>
      ${this.renderPlan(chosen)}
      ${
        points.length
          ? html`<ul class="legend convert-legend" aria-label=${this.pt('series')}>
                ${[OURS, ...PEER_SERIES]
                  .filter((s) => points.some((x) => x.series === s))
                  .map(
                    (s, i) =>
                      html`<li><span class="swatch" ${styleProps({ background: OKABE_ITO[i] })}></span>${s === OURS ? this.pt('cvOurs') : s}</li>`,
                  )}
                <li><span class="swatch dashed"></span>${this.pt('cvCopy')}</li>
              </ul>
              ${this.plotBox(
                'convert-suite',
                convertSuite(points, {
                  width: this.width(),
                  fg: p.fg,
                  sources,
                  log: this.logScale,
                  label: this.pt('fractionCopy'),
                }),
                this.pt('cvSuiteCaption', {
                  device: chosen.device,
                  peers: this.peers ? this.pt('cvPeersLoaded') : this.pt('cvPeersMissing'),
                }),
              )}`
          : nothing
      }`;
  }

  /** The plan as source -> staging tile -> destination, each with the engine's numbers per warp instruction. */
  private renderPlan(r: Row): TemplateResult | typeof nothing {
    const plan = r.state.plan;
    const input = r.state.input;
    if (!plan || !input) return nothing;
    const pr = plan.predicted_per_warp_instruction;
    const t = plan.tile;
    const [before, after] = this.pt('cvPlanOf', { name: '\u0000' }).split('\u0000');
    return html`<h4 class="plan-title">${before}<code>${r.variant}</code>${after}</h4>
      <ol class="plan" aria-label=${this.pt('cvPlanOf', { name: r.variant })}>
        <li class="plan-src"><strong>${this.pt('cvSource')}</strong><code>${input.src}</code>
          <span>${this.pt('cvLoad', { n: pr.global_read.sectors, b: pr.global_read.bytes_per_lane })}</span></li>
        <li class="arrow" aria-hidden="true">→</li>
        <li class="plan-tile"><strong>${t ? this.pt('cvTile') : this.pt('cvRegisters')}</strong>
          ${
            t && pr.smem_write && pr.smem_read
              ? html`<span>${this.pt('cvTileShape', { a: t.tile_a, b: t.tile_b, unit: plan.unit_bytes, row: t.row_bytes, bytes: t.staging_bytes })}</span>
                  <span>${this.pt('cvSwizzle', { s: t.staging_swizzle })}</span>
                  <span class="plan-block">${this.pt('cvBlock', { blk: t.register_block.replace('x', '×') })}</span>
                  <span class="plan-smem">${this.pt('cvSmem', { w: pr.smem_write.wavefronts, wi: pr.smem_write.ideal_wavefronts, sb: pr.smem_write.bytes_per_lane, r: pr.smem_read.wavefronts, ri: pr.smem_read.ideal_wavefronts, lb: pr.smem_read.bytes_per_lane })}</span>`
              : html`<span>${this.pt('cvVector', { v: plan.vector_bytes, c: plan.common_vector })}</span>`
          }
          <span>${this.pt('cvGrid', { t: plan.threads, b: plan.blocks })}</span></li>
        <li class="arrow" aria-hidden="true">→</li>
        <li class="plan-dst"><strong>${this.pt('cvDestination')}</strong><code>${input.dst}</code>
          <span>${this.pt('cvStore', { n: pr.global_write.sectors, b: pr.global_write.bytes_per_lane })}</span></li>
      </ol>`;
  }

  private async fetchPeers() {
    this.peers = [];
    try {
      const res = await fetch(new URL(`./results/${PEER_RUNS[0]}`, location.href), { credentials: 'omit' });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const doc = (await res.json()) as { cases?: PeerCase[] };
      this.peers = Array.isArray(doc.cases) ? doc.cases : [];
    } catch {
      // the page without its results folder (a bare build): the plot shows ours alone and says so
      this.peers = [];
    }
  }

  private renderPredictions(rows: Row[]): TemplateResult {
    const seen = new Set<string>();
    const list = rows.filter((r) => {
      const k = `${r.source}/${r.benchmark}/${r.variant}/${r.touch ?? ''}/${r.dim ?? ''}`;
      if (
        r.benchmark === 'convert' ||
        seen.has(k) ||
        (r.benchmark === 'aos_soa' &&
          r.touch !== 1 &&
          rows.some((x) => x.source === r.source && x.variant === r.variant && x.touch === 1))
      )
        return false;
      seen.add(k);
      return true;
    });
    this.rowByKey = new Map(list.map((r) => [rowKey(r), r]));
    if (!list.length) return html``;
    return html`<h3>${this.pt('predTitle')}</h3>
      <p class="muted">${this.pt('predNote')}</p>
      <div class="scroll" tabindex="0">
        <table class="predictions">
          <thead><tr><th class="l">${this.pt('source')}</th><th class="l">${this.pt('variant')}</th><th class="l">${this.pt('access32')}</th><th class="l">${this.pt('layout')}</th><th>${this.pt('predSectors')}</th><th>${this.pt('predWavefronts')}</th><th>${this.pt('measuredGbps')}</th><th>${this.pt('ncuCounters')}</th><th class="l">${this.pt('vsNcu')}</th></tr></thead>
          <tbody>
            ${list.map((r) => {
              const label =
                r.benchmark === 'aos_soa'
                  ? `${r.variant.toUpperCase()}${r.touch !== null ? ` (t=${r.touch})` : ''}`
                  : `${r.variant} ${r.dim}`;
              const p = r.state.predicted;
              const acc = accessesOf(r.state);
              if (p.error || !acc.length)
                return html`<tr class="prediction" data-variant=${label}><td>${r.source}</td><td class="l">${label}</td><td class="l ${p.error ? 'error' : 'muted'}" colspan="7">${p.error ? `${this.pt('engineError')}: ${p.error}` : p.note ? this.agentWords(p.note) : this.pt('noAccesses')}</td></tr>`;
              const g = acc.filter((a) => a.space === 'global');
              const sh = acc.filter((a) => a.space === 'shared');
              return html`<tr class="prediction" data-variant=${label}>
                <td>${r.source}</td>
                <td class="l"><button type="button" class="link open-figure" @click=${() => this.openAccess(r, 0)}>${label}</button></td>
                <td class="l agent-text">${acc.map((a) => html`${this.agentWords(a.access)}<br />`)}</td>
                <td class="l mono">${[...new Set(acc.map((a) => a.layout))].map((l) => html`${l}<br />`)}</td>
                <td class="sectors">${g.map((a) => a.sectors_per_request).join(' / ')}</td>
                <td class="wavefronts">${sh.length ? sh.map((a) => a.wavefronts).join(' / ') : '–'}</td>
                <td>${fmt(r.gbps, 1)}</td>
                <td class="measured">${
                  r.measured
                    ? `${fmt(r.measured.loadSectors, 1)} / ${fmt(r.measured.storeSectors, 1)}${r.measured.sharedLoadWavefronts !== null && sh.length ? ` · ${this.pt('smem')} ${fmt(r.measured.sharedLoadWavefronts, 2)}` : ''}`
                    : html`<span class="muted" title=${r.measuredNote ?? ''}>${r.measuredNote ? this.pt('notMeasured') : this.pt('noProfile')}</span>`
                }</td>
                ${this.renderChecks(r)}
              </tr>`;
            })}
          </tbody>
        </table>
      </div>`;
  }

  /** The engine's prediction of each access against ncu's counter of it, when the run was profiled. */
  private renderChecks(r: Row): TemplateResult {
    const checks = r.measured ? checkMeasured(r.state, r.measured) : [];
    const off = checks.filter((c) => c.ok === false);
    return html`<td class="l vs-ncu ${!checks.length ? 'muted' : off.length ? 'warn' : 'ok'}">${
      !checks.length
        ? this.pt('noCounters')
        : checks.map(
            (c) =>
              html`<span class="check" data-counter=${c.counter}>${this.counterName(c.counter)} ${c.predicted} ${c.ok === null ? html`· ${this.pt('noRequests')}` : c.ok ? html`= ${fmt(c.measured, 2)} ✓` : html`≠ ${fmt(c.measured, 2)} (${c.measured! > c.predicted ? '+' : ''}${fmt((100 * (c.measured! - c.predicted)) / c.predicted, 0)}%)`}</span><br />`,
          )
    }</td>`;
  }

  /** An ncu counter's short name: ld / st (global), smem ld / smem st (shared memory). */
  private counterName(c: string): string {
    return c.replace('smem', this.pt('smem'));
  }

  private openAccess(r: Row, index: number) {
    const a = accessesOf(r.state)[index];
    if (!a) return;
    this.figure = { key: rowKey(r), index, layout: a.layout, instr: a.instr ?? '' };
  }

  private renderFigure(): TemplateResult | typeof nothing {
    const f = this.figure;
    const r = f && this.rowByKey.get(f.key);
    if (!f || !r) return nothing;
    const all = accessesOf(r.state);
    const a: Access | undefined = all[f.index];
    if (!a) return nothing;
    const p = PALETTES[resolveTheme(null)];
    const edited = f.layout !== a.layout || f.instr !== (a.instr ?? '');
    let body: TemplateResult;
    if (!a.lane_elements || !a.instr || !a.shape) body = html`<p class="muted no-lanes">${this.pt('noLanes')}</p>`;
    else if (!this.eng) body = html`<p class="muted">${this.pt('loadingEngine')}</p>`;
    else {
      // unedited: the results' own numbers; edited: the engine's, asked here
      let cost = '';
      let problem = '';
      if (edited) {
        const c = whatIf(this.eng, a, f.layout, f.instr);
        if (!c.ok)
          problem = `${c.error.column > 0 ? `${this.pt('atColumn', { n: c.error.column })}: ` : ''}${c.error.message}`;
        else
          cost =
            a.space === 'global'
              ? this.pt('costGlobal', {
                  lanes: a.lanes,
                  bytes: c.total.bytes / Math.max(1, a.lanes),
                  n: c.total.sectors / Math.max(1, c.total.requests),
                })
              : this.pt('costShared', {
                  n: c.total.wavefronts,
                  ideal: c.total.idealWavefronts,
                  conflicts: c.total.conflicts,
                });
      } else
        cost =
          a.space === 'global'
            ? this.pt('costGlobal', { lanes: a.lanes, bytes: a.bytes_per_lane, n: a.sectors_per_request ?? '–' })
            : this.pt('costShared', {
                n: a.wavefronts ?? '–',
                ideal: a.ideal_wavefronts ?? '–',
                conflicts: a.conflicts ?? '–',
              });
      const spans = problem ? problem : laneSpans(this.eng, a, f.layout, f.instr);
      body = html`<p class="cost ${edited ? 'what-if' : 'from-results'}">${edited ? this.pt('whatIf') : this.pt('fromResults')}: <strong>${cost || '–'}</strong></p>
        ${
          typeof spans === 'string'
            ? html`<p class="error access-error" role="alert">${spans}</p>`
            : html`<div class="scroll" tabindex="0">${lanePicture(spans, a.space, OKABE_ITO, p.fg, this.pt('laneFigure', { access: a.access }))}</div>`
        }
        <form class="row what-if-form" @submit=${(e: SubmitEvent) => {
          e.preventDefault();
          const d = new FormData(e.target as HTMLFormElement);
          this.figure = {
            ...f,
            layout: String(d.get('layout') ?? '').trim(),
            instr: String(d.get('instr') ?? f.instr),
          };
        }}>
          <label class="grow">${this.pt('layout')} <input name="layout" class="grow mono" size="36" .value=${f.layout} spellcheck="false" autocomplete="off" /></label>
          <label>${this.pt('instruction')} <select name="instr">${instructionChoices(a).map((i) => html`<option ?selected=${i === f.instr}>${i}</option>`)}</select></label>
          <button type="submit" class="recost">${this.pt('recost')}</button>
          ${edited ? html`<button type="button" class="reset" @click=${() => (this.figure = { ...f, layout: a.layout, instr: a.instr ?? '' })}>${this.pt('reset')}</button>` : nothing}
        </form>`;
    }
    return html`<h3>${this.pt('accessPattern')}</h3>
      <div class="figure-host">
        <div class="row"><strong class="grow figure-title">${r.source} · ${r.variant}${r.dim !== null ? ` ${r.dim}` : ''}</strong><button type="button" @click=${() => (this.figure = null)}>${this.pt('close')}</button></div>
        <div class="row access-choice" role="group" aria-label=${this.pt('accessPattern')}>
          ${all.map((x, i) => html`<button type="button" aria-pressed=${i === f.index} @click=${() => this.openAccess(r, i)}>${x.instr ?? this.pt(x.space === 'global' ? 'spaceGlobal' : 'spaceShared')} · <span class="agent-text">${this.agentWords(x.access.split(':')[0])}</span></button>`)}
        </div>
        <p class="access-text">${this.agentWords(a.access)} <span class="mono">${a.layout}</span>${a.instr ? html` · <span class="mono">${a.instr}</span>` : nothing}</p>
        ${body}
      </div>`;
  }
}

const rowKey = (r: Row) => `${r.source}|${r.state.name}`;

customElements.define('ls-bench-panel', LsBenchPanel);
