// The panel's agents: adding and remembering them, their devices, catalogue and history of runs.
import type { LsBenchPanel } from './panel.js';
import { html, nothing, type TemplateResult } from 'lit';
import { PANEL_TEXT, agentSentence, type PanelKey } from '../i18n/panel.js';
import { readFragment, writeKey } from '../core/state.js';
import { AgentClient, AgentError, parseAgentUrl, type AgentAddress } from './client.js';
import {
  type Catalogue,
  type DevicesAnswer,
  type RunPage,
  type RunRecord,
  type RunSummary,
  type Agent,
  STORE,
  bytes,
} from './types.js';
import { addDataset } from './results-view.js';

/** #token=... (and optionally agent=URL) from the URL the agent printed; removed from the address bar at once,
 * so a shared link or a screenshot of it never carries the token. The page stays at its top (the figures come
 * first); the panel connects where it is. */
export function takeFragment(panel: LsBenchPanel) {
  const f = readFragment();
  const token = f.get('token');
  if (!token) return;
  const agentUrl = f.get('agent') ?? location.origin;
  writeKey('token', null);
  writeKey('agent', null);
  try {
    addAgent(panel, parseAgentUrl(agentUrl, token), false);
  } catch (err) {
    panel.notice = `${panel.pt('badAddress')}: ${(err as Error).message}`;
  }
}

export function remembered(): AgentAddress[] {
  try {
    const v = JSON.parse(localStorage.getItem(STORE) ?? '[]');
    return Array.isArray(v) ? v.filter((a) => typeof a?.base === 'string' && typeof a?.token === 'string') : [];
  } catch {
    return [];
  }
}

export function saveRemembered(panel: LsBenchPanel) {
  const list = panel.agents.filter((a) => a.remember).map((a) => a.client.address);
  if (list.length) localStorage.setItem(STORE, JSON.stringify(list));
  else localStorage.removeItem(STORE);
}

export function addAgent(panel: LsBenchPanel, address: AgentAddress, remember: boolean) {
  const existing = panel.agents.find((a) => a.client.base === address.base);
  if (existing) panel.agents = panel.agents.filter((a) => a !== existing);
  const agent: Agent = {
    key: panel.nextKey++,
    client: new AgentClient(address),
    label: new URL(address.base).host,
    state: 'connecting',
    devices: [],
    catalogue: [],
    runs: [],
    runsNext: null,
    remember,
  };
  panel.agents = [...panel.agents, agent];
  if (panel.runAgent < 0 || !panel.agents.some((a) => a.key === panel.runAgent)) panel.runAgent = agent.key;
  void refreshAgent(panel, agent);
}

export async function refreshAgent(panel: LsBenchPanel, agent: Agent) {
  panel.update_(agent, { state: 'connecting', problem: undefined });
  try {
    const [devices, catalogue, runs] = await Promise.all([
      agent.client.json<DevicesAnswer>('/v1/devices'),
      agent.client.json<Catalogue>('/v1/benchmarks'),
      runPages(panel, agent, panel.runsPageSize),
    ]);
    panel.update_(agent, {
      state: devices.unavailable ? 'not-ready' : 'ready',
      backend: devices.backend,
      devices: devices.devices,
      unavailable: devices.unavailable,
      catalogue: catalogue.benchmarks,
      runs: runs.runs,
      runsNext: runs.next,
    });
  } catch (err) {
    panel.update_(agent, {
      state: 'error',
      problem: err instanceof AgentError ? err : new AgentError('http', String(err)),
    });
  }
}

export function removeAgent(panel: LsBenchPanel, agent: Agent) {
  panel.agents = panel.agents.filter((a) => a !== agent);
  saveRemembered(panel);
}

export function onAdd(panel: LsBenchPanel, e: SubmitEvent) {
  e.preventDefault();
  const form = e.target as HTMLFormElement;
  const data = new FormData(form);
  try {
    const address = parseAgentUrl(String(data.get('url') ?? ''), String(data.get('token') ?? ''));
    panel.notice = '';
    addAgent(panel, address, data.get('remember') === 'on');
    saveRemembered(panel);
    form.reset();
  } catch (err) {
    panel.notice = `${panel.pt('badAddress')}: ${(err as Error).message}`;
  }
}

/** Pages of GET /v1/runs from the first, following `next`, until `want` runs are in (or none is left). */
export async function runPages(panel: LsBenchPanel, agent: Agent, want: number, after: string | null = null) {
  const runs: RunSummary[] = [];
  let next = after;
  do {
    const q = `limit=${panel.runsPageSize}${next ? `&after=${encodeURIComponent(next)}` : ''}`;
    const page = await agent.client.json<RunPage>(`/v1/runs?${q}`);
    runs.push(...page.runs);
    next = page.next;
  } while (next && runs.length < want);
  return { runs, next };
}

/** Reloads the runs already shown (as many pages as they took), so a finished run appears in its place. */
export async function refreshRuns(panel: LsBenchPanel, agent: Agent) {
  try {
    const r = await runPages(panel, agent, Math.max(panel.runsPageSize, agent.runs.length + 1));
    panel.update_(agent, { runs: r.runs, runsNext: r.next });
  } catch (err) {
    panel.notice = agentMessage(panel, err);
  }
}

export async function loadMoreRuns(panel: LsBenchPanel, agent: Agent) {
  if (!agent.runsNext) return;
  try {
    const r = await runPages(panel, agent, 1, agent.runsNext);
    panel.update_(agent, { runs: [...agent.runs, ...r.runs], runsNext: r.next });
  } catch (err) {
    panel.notice = agentMessage(panel, err);
  }
}

/** One of the agent's sentences: in Chinese the panel's translation where it knows the sentence, else the
 * agent's English marked as such (lang="en", and a tooltip saying these are the agent's words). */
export function agentWords(panel: LsBenchPanel, text: string): TemplateResult | string {
  const w = agentSentence(text, panel.zh);
  if (w.known) return w.text;
  return html`<span lang="en" class="agent-words" title=${panel.pt('agentWording')}>${w.text}</span>`;
}

/** An agent's error in the page's language: a translated prefix, the agent's own words after it. */
export function agentMessage(panel: LsBenchPanel, err: unknown): string {
  const m = err instanceof Error ? err.message : String(err);
  return `${panel.pt('agentError')}: ${m}`;
}

export async function loadRun(panel: LsBenchPanel, agent: Agent, id: string) {
  try {
    const record = await agent.client.json<RunRecord>(`/v1/runs/${encodeURIComponent(id)}`);
    if (!record.result) panel.notice = panel.pt('noResult', { id, status: statusText(panel, record.status) });
    else addDataset(panel, record.result, { agent, runId: id });
  } catch (err) {
    panel.notice = agentMessage(panel, err);
  }
}

export function renderAgents(panel: LsBenchPanel): TemplateResult {
  return html`<fieldset class="agents">
    <legend>${panel.pt('agents')}</legend>
    ${
      panel.agents.length
        ? panel.agents.map((a) => renderAgent(panel, a))
        : html`<p class="muted">${panel.pt('noAgent1')}<code>layoutscope-agent</code>${panel.pt('noAgent2')}</p>`
    }
    <form class="row add-agent" @submit=${(e: SubmitEvent) => onAdd(panel, e)}>
      <label class="grow">${panel.pt('agentUrl')} <input name="url" class="grow" size="40" placeholder="http://127.0.0.1:8765/#token=…" autocomplete="off" spellcheck="false" /></label>
      <label>${panel.pt('token')} <input name="token" size="12" type="password" autocomplete="off" /></label>
      <label><input type="checkbox" name="remember" /> ${panel.pt('remember')}</label>
      <button type="submit">${panel.pt('addAgent')}</button>
    </form>
    ${panel.notice ? html`<p class="error notice" role="alert">${panel.notice}</p>` : nothing}
  </fieldset>`;
}

export function renderAgent(panel: LsBenchPanel, a: Agent): TemplateResult {
  const badge = panel.pt(
    ({ connecting: 'connecting', ready: 'ready', 'not-ready': 'notReady', error: 'error' } as const)[a.state],
  );
  return html`<div class="agent ${a.state}" data-agent=${a.client.base}>
    <div class="row">
      <strong>${a.label}</strong> <span class="badge state">${badge}</span>
      ${a.backend ? html`<span class="muted">${panel.pt('backend')} ${a.backend}</span>` : nothing}
      <span class="grow"></span>
      <button type="button" @click=${() => refreshAgent(panel, a)}>${panel.pt('refresh')}</button>
      <button type="button" @click=${() => removeAgent(panel, a)}>${panel.pt('remove')}</button>
    </div>
    ${a.problem ? html`<p class="problem" role="alert" data-kind=${a.problem.kind}>${panel.pt('agentError')}: ${a.problem.message}</p>` : nothing}
    ${a.unavailable ? html`<p class="problem" role="alert">${panel.pt('noBackend')}: ${a.unavailable}</p>` : nothing}
    ${
      a.devices.length
        ? html`<ul class="devices">
          ${a.devices.map(
            (d) =>
              html`<li>
                ${panel.pt('deviceN', { n: d.id })}: <strong>${d.name}</strong> (${d.kind}${d.sm_version ? ` sm_${d.sm_version.replace('.', '')}` : ''}, ${d.multiprocessors}
                ${d.kind === 'cpu' ? panel.pt('hwThreads') : 'SMs'}, ${bytes(d.global_memory_bytes)}${
                  d.peak_bandwidth_bytes_per_second
                    ? `, peak ${(d.peak_bandwidth_bytes_per_second / 1e12).toFixed(2)} TB/s`
                    : ''
                })
              </li>`,
          )}
        </ul>`
        : nothing
    }
    ${a.runs.length ? renderHistory(panel, a) : nothing}
  </div>`;
}

/** The agent's runs in its order (oldest first, by run id), a page at a time. */
export function renderHistory(panel: LsBenchPanel, a: Agent): TemplateResult {
  return html`<details class="history">
    <summary>${panel.pt('history', { n: a.runs.length, more: a.runsNext ? '+' : '' })}</summary>
    <div class="scroll" tabindex="0">
      <table>
        <thead><tr><th>${panel.pt('run')}</th><th class="l">${panel.pt('benchmark')}</th><th class="l">${panel.pt('status')}</th><th class="l">${panel.pt('finished')}</th><th></th></tr></thead>
        <tbody>
          ${a.runs.map(
            (r) => html`<tr class="history-run">
              <td class="mono">${r.id}</td><td class="l">${r.benchmark}</td><td class="l">${statusText(panel, r.status)}${r.error ? html` <span class="error">(${panel.pt('agentError')}: ${r.error})</span>` : nothing}</td>
              <td class="l">${r.finished_at ?? '–'}</td>
              <td>${r.status === 'succeeded' ? html`<button type="button" class="load-run" @click=${() => loadRun(panel, a, r.id)}>${panel.pt('load')}</button>` : nothing}</td>
            </tr>`,
          )}
        </tbody>
      </table>
    </div>
    ${a.runsNext ? html`<button type="button" class="load-more" @click=${() => loadMoreRuns(panel, a)}>${panel.pt('loadMore')}</button>` : nothing}
  </details>`;
}

export function statusText(panel: LsBenchPanel, status: string): string {
  const key = `st_${status}` as PanelKey;
  return key in PANEL_TEXT ? panel.pt(key) : status;
}
