// The panel's run forms: a benchmark's parameters (checked against the catalogue's bounds), the convert form,
// starting a run, following its progress and cancelling it.
import type { LsBenchPanel } from './panel.js';
import { html, nothing, type TemplateResult } from 'lit';
import { styleProps } from '../core/style-props.js';
import { PANEL_TEXT, agentSentence, paramName, type PanelKey } from '../i18n/panel.js';
import { AgentError } from './client.js';
import { convertParams } from './convert.js';
import {
  type ParamSpec,
  type BenchSpec,
  type Agent,
  type RunAccepted,
  type RunRecord,
  CONVERT_INPUTS,
} from './types.js';
import { refreshRuns, agentWords, agentMessage, statusText } from './agents.js';
import { addDataset } from './results-view.js';

/** The form's values as request params, each checked against the catalogue's bounds (as the agent will). */
export function collect(
  panel: LsBenchPanel,
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

export function onFormInput(panel: LsBenchPanel, e: Event) {
  const form = (e.currentTarget as HTMLFormElement) ?? (e.target as HTMLElement).closest('form');
  const spec = panel.selectedAgent?.catalogue.find((b) => b.name === panel.bench);
  if (!form || !spec) return;
  const r = collect(panel, form, spec);
  panel.formError = 'params' in r ? null : r;
}

export async function onRun(panel: LsBenchPanel, e: SubmitEvent) {
  e.preventDefault();
  const agent = panel.selectedAgent;
  const spec = agent?.catalogue.find((b) => b.name === panel.bench);
  if (!agent || !spec) return;
  const form = e.target as HTMLFormElement;
  const r = collect(panel, form, spec);
  if (!('params' in r)) {
    panel.formError = r;
    return;
  }
  panel.formError = null;
  const device = Number((form.elements.namedItem('device') as HTMLSelectElement | null)?.value ?? 0);
  panel.notice = '';
  try {
    const res = await agent.client.json<RunAccepted>('/v1/runs', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ benchmark: panel.bench, params: r.params, device }),
    });
    await follow(panel, agent, res.id, panel.bench);
  } catch (err) {
    const a = err as AgentError;
    if (a.status === 422) panel.formError = { message: `${panel.pt('refused')}: ${a.message}`, field: a.field };
    else if (a.status === 409)
      panel.notice =
        `${panel.pt('agentError')}: ${a.message}` + (a.retryAfter ? panel.pt('retryAfter', { s: a.retryAfter }) : '');
    else panel.notice = `${panel.pt('agentError')}: ${a.message}`;
  }
}

/** Follows a run's progress stream to its end, then loads its result. */
export async function follow(panel: LsBenchPanel, agent: Agent, id: string, bench: string) {
  const abort = new AbortController();
  panel.active = { agentKey: agent.key, bench, id, status: 'queued', progress: 0, message: 'queued', abort };
  try {
    for await (const ev of agent.client.events(id, abort.signal)) {
      const d = ev.data;
      panel.active = {
        ...panel.active!,
        status: d.status,
        progress: Number(d.progress) || 0,
        message: d.message ?? '',
      };
      if (ev.event === 'end') break;
    }
    const record = await agent.client.json<RunRecord>(`/v1/runs/${encodeURIComponent(id)}`);
    panel.active = {
      ...panel.active!,
      status: record.status,
      progress: record.status === 'succeeded' ? 1 : panel.active!.progress,
      message: record.error ?? record.status,
    };
    if (record.result) addDataset(panel, record.result, { agent, runId: id });
  } catch (err) {
    if ((err as Error).name !== 'AbortError') panel.notice = agentMessage(panel, err);
  }
  void refreshRuns(panel, agent);
}

export async function cancel(panel: LsBenchPanel) {
  const run = panel.active;
  const agent = panel.agents.find((a) => a.key === run?.agentKey);
  if (!run || !agent) return;
  try {
    await agent.client.request(`/v1/runs/${encodeURIComponent(run.id)}`, { method: 'DELETE' });
  } catch (err) {
    panel.notice = agentMessage(panel, err);
  }
}

/** The progress of the active run, under the form of its benchmark. */
export function renderProgress(panel: LsBenchPanel, bench: (b: string) => boolean): TemplateResult | typeof nothing {
  const run = panel.active;
  if (!run || !bench(run.bench)) return nothing;
  const pct = Math.round(run.progress * 100);
  const status = statusText(panel, run.status);
  return html`<div class="bar" role="progressbar" aria-label=${panel.pt('progress')} aria-valuemin="0" aria-valuemax="100" aria-valuenow=${pct}>
      <div ${styleProps({ width: `${pct}%` })}></div>
    </div>
    <span class="progress-text" aria-live="polite">${pct}% · ${status}${run.message && run.message !== run.status ? html` · ${agentWords(panel, run.message)}` : ''}</span>
    ${panel.running ? html`<button type="button" class="cancel" @click=${() => cancel(panel)}>${panel.pt('cancel')}</button>` : nothing}`;
}

/** A benchmark's title and description: the agent's words, in Chinese the panel's own where it knows the
 * benchmark. */
export function benchText(panel: LsBenchPanel, b: BenchSpec, what: 'title' | 'desc'): string {
  const key = `bench_${b.name}_${what}` as PanelKey;
  return panel.zh && key in PANEL_TEXT ? panel.pt(key) : what === 'title' ? b.title : b.description;
}

export function renderRun(panel: LsBenchPanel): TemplateResult | typeof nothing {
  const ready = panel.agents.filter((a) => a.state === 'ready');
  if (!ready.length) return nothing;
  const agent = panel.selectedAgent!;
  // convert has its own form (two layouts or a permutation), below
  const catalogue = agent.catalogue.filter((b) => b.name !== 'convert');
  const spec = catalogue.find((b) => b.name === panel.bench) ?? catalogue[0];
  if (!spec) return nothing;
  return html`<fieldset class="run">
    <legend>${panel.pt('runBench')}</legend>
    <form @submit=${(e: SubmitEvent) => onRun(panel, e)} @input=${(e: Event) => onFormInput(panel, e)} @change=${(e: Event) => onFormInput(panel, e)} novalidate>
      <div class="row">
        <label>${panel.pt('agent')}
          <select name="agent" @change=${(e: Event) => (panel.runAgent = Number((e.target as HTMLSelectElement).value))}>
            ${ready.map((a) => html`<option value=${a.key} ?selected=${a === agent}>${a.label}</option>`)}
          </select></label>
        <label>${panel.pt('device')}
          <select name="device">${agent.devices.map((d) => html`<option value=${d.id}>${d.id}: ${d.name}</option>`)}</select></label>
        <span role="group" aria-label=${panel.pt('benchmark')}>
          ${catalogue.map(
            (b) =>
              html`<button type="button" class="bench-${b.name}" aria-pressed=${b.name === spec.name} @click=${() => ((panel.bench = b.name), (panel.formError = null))}>${benchText(panel, b, 'title')}</button>`,
          )}
        </span>
      </div>
      <p class="muted">${benchText(panel, spec, 'desc')}</p>
      <div class="row params">${Object.entries(spec.parameters).map(([name, p]) => renderParam(panel, name, p))}</div>
      ${panel.formError ? html`<p class="error form-error" role="alert">${panel.formError.message}</p>` : nothing}
      <div class="row">
        <button type="submit" class="primary run-button" ?disabled=${panel.running || !!panel.formError}>${panel.pt('runX', { name: spec.name })}</button>
        ${renderProgress(panel, (b) => b !== 'convert')}
      </div>
    </form>
  </fieldset>`;
}

export function renderConvertForm(panel: LsBenchPanel): TemplateResult | typeof nothing {
  const agent = panel.selectedAgent;
  const spec = agent?.catalogue.find((b) => b.name === 'convert');
  if (!agent || !spec) return nothing;
  const mode = panel.convertMode;
  const err = panel.convertError;
  const inv = (f: string) => (err?.field === `params.${f}` ? 'true' : 'false');
  const sampling = Object.entries(spec.parameters).filter(([n]) => !CONVERT_INPUTS.includes(n));
  // the element types the agent accepts, as its catalogue lists them; the form starts at the catalogue's default,
  // else at f32 (the chapter's examples) where the agent offers it
  const dtypes = (spec.parameters.dtype?.enum ?? []).map(String);
  const dtypeDefault = spec.parameters.dtype?.default;
  const dtypeChoice = typeof dtypeDefault === 'string' ? dtypeDefault : dtypes.includes('f32') ? 'f32' : dtypes[0];
  const modes: [typeof mode, PanelKey][] = [
    ['layouts', 'cvLayouts'],
    ['perm', 'cvPerm'],
    ['suite', 'cvSuite'],
  ];
  return html`<fieldset class="convert">
    <legend>${panel.pt('cvTitle')}</legend>
    <p class="muted">${panel.pt('cvNote')}</p>
    <form @submit=${(e: SubmitEvent) => onConvert(panel, e)} @input=${() => (panel.convertError = null)} novalidate>
      <div class="row" role="radiogroup" aria-label=${panel.pt('cvMode')}>
        ${modes.map(
          ([m, k]) =>
            html`<label><input type="radio" name="mode" value=${m} .checked=${mode === m} @change=${() => ((panel.convertMode = m), (panel.convertError = null))} /> ${panel.pt(k)}</label>`,
        )}
      </div>
      ${
        mode === 'layouts'
          ? html`<div class="row"><label class="grow">${panel.pt('cvSrc')} <input name="src" class="grow mono" size="34" spellcheck="false" autocomplete="off" placeholder="S[(64,32):(32,1)]" aria-invalid=${inv('src')} /></label></div>
              <div class="row"><label class="grow">${panel.pt('cvDst')} <input name="dst" class="grow mono" size="34" spellcheck="false" autocomplete="off" placeholder="S[(64,32):(1,64)]" aria-invalid=${inv('dst')} /></label></div>`
          : nothing
      }
      ${
        mode !== 'suite'
          ? html`<div class="row">
              ${mode === 'perm' ? html`<label>${panel.pt('cvShape')} <input name="shape" size="14" inputmode="numeric" placeholder="64, 32" aria-invalid=${inv('shape')} /></label>` : nothing}
              ${mode === 'perm' ? html`<label>${panel.pt('cvPermLabel')} <input name="perm" size="10" inputmode="numeric" placeholder="1, 0" aria-invalid=${inv('perm')} /></label>` : nothing}
              <label>dtype <select name="dtype">${dtypes.map((d) => html`<option ?selected=${d === dtypeChoice}>${d}</option>`)}</select></label>
            </div>`
          : html`<p class="muted">${panel.pt('cvSuiteNote')}</p>`
      }
      <div class="row params">${sampling.map(([name, p]) => renderParam(panel, name, p))}</div>
      ${err ? html`<p class="error convert-error" role="alert">${err.message}</p>` : nothing}
      <div class="row">
        <button type="submit" class="primary convert-button" ?disabled=${panel.running}>${panel.pt('cvRun')}</button>
        ${renderProgress(panel, (b) => b === 'convert')}
      </div>
    </form>
  </fieldset>`;
}

export async function onConvert(panel: LsBenchPanel, e: SubmitEvent) {
  e.preventDefault();
  const agent = panel.selectedAgent;
  const spec = agent?.catalogue.find((b) => b.name === 'convert');
  if (!agent || !spec) return;
  const form = e.target as HTMLFormElement;
  const d = new FormData(form);
  const text = (k: string) => String(d.get(k) ?? '');
  // two layouts carry their shape: the engine's drawing shape of the source (rows of its last mode), else of the
  // destination (when the source does not parse, the agent names the source's error)
  const carried = () => {
    for (const k of ['src', 'dst']) {
      const s = panel.eng?.drawingShape(text(k).trim());
      if (s?.ok) return s.shape.join(',');
    }
    return '';
  };
  const r = convertParams(panel.convertMode, {
    src: text('src'),
    dst: text('dst'),
    shape: panel.convertMode === 'layouts' ? carried() : text('shape'),
    perm: text('perm'),
    dtype: text('dtype'),
  });
  if (!('params' in r)) {
    panel.convertError = r;
    return;
  }
  const rest = collect(panel, form, {
    ...spec,
    parameters: Object.fromEntries(Object.entries(spec.parameters).filter(([n]) => !CONVERT_INPUTS.includes(n))),
  });
  if (!('params' in rest)) {
    panel.convertError = rest;
    return;
  }
  panel.convertError = null;
  const device = Number(
    (panel.renderRoot.querySelector('select[name=device]') as HTMLSelectElement | null)?.value ?? 0,
  );
  try {
    const res = await agent.client.json<RunAccepted>('/v1/runs', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ benchmark: 'convert', params: { ...r.params, ...rest.params }, device }),
    });
    await follow(panel, agent, res.id, 'convert');
  } catch (err) {
    const a = err as AgentError;
    panel.convertError = {
      message: a.status === 422 ? `${panel.pt('refused')}: ${a.message}` : agentMessage(panel, err),
      field: a.field ?? '',
    };
  }
}

export function renderParam(panel: LsBenchPanel, name: string, p: ParamSpec): TemplateResult {
  const invalid = panel.formError?.field === `params.${name}`;
  // the agent's name as the request spells it, after the Chinese name in Chinese
  const zhName = paramName(name, panel.zh);
  const label = zhName
    ? html`${zhName} <span class="mono param-name" lang="en">${name}</span>`
    : html`<span class="param-name">${name}</span>`;
  const desc = agentSentence(p.description ?? '', panel.zh).text;
  const title = `${desc}${p.minimum !== undefined ? ` (${p.minimum}–${p.maximum})` : ''}`;
  if (p.enum && p.type.includes('array')) {
    const def = Array.isArray(p.default) ? p.default : [p.default];
    return html`<span role="group" aria-label=${zhName ?? name} title=${title}>${label}:
      ${p.enum.map((v) => html`<label><input type="checkbox" name=${name} value=${v} ?checked=${def.includes(v)} />${v}</label>`)}</span>`;
  }
  if (p.type === 'boolean')
    return html`<label title=${title}><input type="checkbox" name=${name} ?checked=${p.default === true} />${label}</label>`;
  if (p.enum)
    return html`<label title=${title}>${label}
      <select name=${name}>${p.enum.map((v) => html`<option ?selected=${v === p.default}>${v}</option>`)}</select></label>`;
  const def = p.default === null ? '' : Array.isArray(p.default) ? p.default.join(', ') : String(p.default);
  const isList = p.type.includes('array');
  return html`<label title=${title}>${label}
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
