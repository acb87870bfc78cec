// <ls-bench-panel>: connect to one or more layoutscope-agents, run the B-09 benchmarks and layout conversions
// with live progress, cancel, history a page at a time; view results (from an agent or from a dropped file,
// validated against the schema) as plots with a table under each, and the engine's predicted warp accesses
// (written by the agent into the results) next to Nsight Compute's counters; export JSON, CSV, SVG and PNG.
// English and Chinese (i18n/panel.ts). Tokens come from the URL fragment the agent prints and stay in memory unless
// the user asks.
import { LitElement, html } from 'lit';
import { resolveLang } from '../i18n/strings.js';
import { panelText, type PanelKey } from '../i18n/panel.js';
import { engine, type Engine } from '../core/engine.js';
import { SETTINGS_EVENT } from '../core/figure.js';
import type { AgentAddress } from './client.js';
import type { ResultsDoc, Row } from './results.js';
import type { PeerCase } from './convert.js';
import { type Agent, type Dataset, type ActiveRun, FINAL_RUN_STATUSES } from './types.js';
import { takeFragment, remembered, addAgent, refreshAgent, renderAgents } from './agents.js';
import { renderRun, renderConvertForm } from './run-form.js';
import { addDataset, renderOffline, renderResults } from './results-view.js';
import { panelStyles } from './styles.js';

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

  static override styles = panelStyles;

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
  eng?: Engine;
  nextKey = 1;
  get zh() {
    return resolveLang(this.getAttribute('lang')) === 'zh';
  }
  pt(key: PanelKey, vars: Record<string, string | number> = {}): string {
    return panelText(key, this.zh, vars);
  }
  /** value axes of the plots on a log scale */
  logScale = false;
  plots = new Map<string, SVGSVGElement>();
  rowByKey = new Map<string, Row>();

  override connectedCallback() {
    super.connectedCallback();
    window.addEventListener(SETTINGS_EVENT, this.onSettings);
    this.resize.observe(this);
    engine().then((e) => {
      this.eng = e;
      this.requestUpdate();
    });
    takeFragment(this);
    for (const a of remembered()) addAgent(this, a, true);
  }
  override disconnectedCallback() {
    super.disconnectedCallback();
    window.removeEventListener(SETTINGS_EVENT, this.onSettings);
    this.resize.disconnect();
  }
  /** The plots are drawn for the panel's width: a new width (a rotated phone, a resized window) redraws them. */
  drawnWidth = 0;
  resize = new ResizeObserver(() => {
    if (this.datasets.length && Math.abs(this.width() - this.drawnWidth) >= 24) this.requestUpdate();
  });
  onSettings = () => this.requestUpdate();

  update_(agent: Agent, change: Partial<Agent>) {
    Object.assign(agent, change);
    this.agents = [...this.agents];
  }

  get selectedAgent(): Agent | undefined {
    return (
      this.agents.find((a) => a.key === this.runAgent && a.state === 'ready') ??
      this.agents.find((a) => a.state === 'ready')
    );
  }

  override render() {
    this.drawnWidth = this.width();
    return html`${renderAgents(this)} ${renderRun(this)} ${renderConvertForm(this)} ${renderOffline(this)} ${renderResults(this)}`;
  }

  get running() {
    const run = this.active;
    return !!run && !FINAL_RUN_STATUSES.includes(run.status);
  }

  width() {
    return Math.max(280, Math.min(900, this.clientWidth || 800));
  }

  addAgent(address: AgentAddress, remember: boolean) {
    addAgent(this, address, remember);
  }
  refreshAgent(agent: Agent) {
    return refreshAgent(this, agent);
  }
  addDataset(doc: ResultsDoc, from: { agent?: Agent; runId?: string; file?: string; raw?: string }) {
    addDataset(this, doc, from);
  }
}

customElements.define('ls-bench-panel', LsBenchPanel);
