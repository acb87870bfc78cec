// The panel's predictions: the engine's predicted warp accesses next to Nsight Compute's counters, and the access
// figure of a picked variant with its what-if edit.
import type { LsBenchPanel } from './panel.js';
import { html, nothing, type TemplateResult } from 'lit';
import { PALETTES, resolveTheme } from '../core/theme.js';
import { OKABE_ITO } from './plots.js';
import {
  accessesOf,
  checkMeasured,
  engineWalk,
  instructionChoices,
  lanePicture,
  laneSpans,
  whatIf,
  type Access,
  type Walk,
} from './access.js';
import type { Row } from './results.js';
import { fmt, rowKey } from './types.js';
import { agentWords } from './agents.js';
import { agentSentence } from '../i18n/panel.js';

export function renderPredictions(panel: LsBenchPanel, rows: Row[]): TemplateResult {
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
  panel.rowByKey = new Map(list.map((r) => [rowKey(r), r]));
  if (!list.length) return html``;
  return html`<h3>${panel.pt('predTitle')}</h3>
    <p class="muted">${panel.pt('predNote')}</p>
    <div class="scroll" tabindex="0">
      <table class="predictions">
        <thead><tr><th class="l">${panel.pt('variant')}</th><th class="l">${panel.pt('access32')}</th><th class="l">${panel.pt('layout')}</th><th>${panel.pt('predSectors')}</th><th>${panel.pt('predWavefronts')}</th><th>${panel.pt('measuredGbps')}</th><th>${panel.pt('ncuCounters')}</th><th class="l">${panel.pt('vsNcu')}</th></tr></thead>
        <tbody>
          ${list.map((r, i) => {
            // the source once, as a row above its variants, rather than in every row
            const head =
              i === 0 || list[i - 1].source !== r.source
                ? html`<tr class="source-row"><th class="l" colspan="8" scope="rowgroup">${r.source}</th></tr>`
                : nothing;
            const label =
              r.benchmark === 'aos_soa'
                ? `${r.variant.toUpperCase()}${r.touch !== null ? ` (t=${r.touch})` : ''}`
                : `${r.variant} ${r.dim}`;
            const p = r.state.predicted;
            const acc = accessesOf(r.state);
            if (p.error || !acc.length)
              return html`${head}<tr class="prediction" data-variant=${label} data-source=${r.source}><td class="l">${label}</td><td class="l ${p.error ? 'error' : 'muted'}" colspan="7">${p.error ? `${panel.pt('engineError')}: ${p.error}` : p.note ? agentWords(panel, p.note) : panel.pt('noAccesses')}</td></tr>`;
            const g = acc.filter((a) => a.space === 'global');
            const sh = acc.filter((a) => a.space === 'shared');
            return html`${head}<tr class="prediction" data-variant=${label} data-source=${r.source}>
              <td class="l"><button type="button" class="link open-figure" @click=${() => openAccess(panel, r, 0, true)}>${label}</button></td>
              <td class="l agent-text">${acc.map((a) => html`${agentWords(panel, a.access)}<br />`)}</td>
              <td class="l mono">${[...new Set(acc.map((a) => a.layout))].map((l) => html`${l}<br />`)}</td>
              <td class="sectors">${g.map((a) => a.sectors_per_request).join(' / ')}</td>
              <td class="wavefronts">${sh.length ? sh.map((a) => a.wavefronts).join(' / ') : '–'}</td>
              <td>${fmt(r.gbps, 1)}</td>
              <td class="measured">${
                r.measured
                  ? `${fmt(r.measured.loadSectors, 1)} / ${fmt(r.measured.storeSectors, 1)}${r.measured.sharedLoadWavefronts !== null && sh.length ? ` · ${panel.pt('smem')} ${fmt(r.measured.sharedLoadWavefronts, 2)}` : ''}`
                  : html`<span class="muted" title=${r.measuredNote ?? ''}>${r.measuredNote ? panel.pt('notMeasured') : panel.pt('noProfile')}</span>`
              }</td>
              ${renderChecks(panel, r)}
            </tr>`;
          })}
        </tbody>
      </table>
    </div>`;
}

/** The engine's prediction of each access against ncu's counter of it, when the run was profiled. */
export function renderChecks(panel: LsBenchPanel, r: Row): TemplateResult {
  const checks = r.measured ? checkMeasured(r.state, r.measured) : [];
  const off = checks.filter((c) => c.ok === false);
  return html`<td class="l vs-ncu ${!checks.length ? 'muted' : off.length ? 'warn' : 'ok'}">${
    !checks.length
      ? panel.pt('noCounters')
      : checks.map(
          (c) =>
            html`<span class="check" data-counter=${c.counter}>${counterName(panel, c.counter)} ${c.predicted} ${c.ok === null ? html`· ${panel.pt('noRequests')}` : c.ok ? html`= ${fmt(c.measured, 2)} ✓` : html`≠ ${fmt(c.measured, 2)} (${c.measured! > c.predicted ? '+' : ''}${fmt((100 * (c.measured! - c.predicted)) / c.predicted, 0)}%)`}</span><br />`,
        )
  }</td>`;
}

/** An ncu counter's short name: ld / st (global), smem ld / smem st (shared memory). */
export function counterName(panel: LsBenchPanel, c: string): string {
  return c.replace('smem', panel.pt('smem'));
}

/** The sentence under a figure drawn from an engine walk, per walk. */
const WALK_TEXT = {
  rows: 'engineWalkRows',
  columns: 'engineWalkColumns',
  chunks: 'engineWalkChunks',
  'column-vectors': 'engineWalkColumnVectors',
  bulk: 'engineWalkBulk',
} as const satisfies Record<Walk, string>;

/** Opens an access's figure; from the table (reveal) the page scrolls to it, below the table, and its title takes
 * the focus, so that the click visibly does something and a keyboard user lands on what opened. */
export function openAccess(panel: LsBenchPanel, r: Row, index: number, reveal = false) {
  const a = accessesOf(r.state)[index];
  if (!a) return;
  panel.figure = { key: rowKey(r), index, layout: a.layout, instr: a.instr ?? '' };
  if (!reveal) return;
  void panel.updateComplete.then(() => {
    const title = panel.shadowRoot?.querySelector<HTMLElement>('.figure-host .figure-title');
    if (!title) return;
    title.scrollIntoView({ block: 'center', behavior: 'instant' });
    title.focus({ preventScroll: true });
  });
}

export function renderFigure(panel: LsBenchPanel): TemplateResult | typeof nothing {
  const f = panel.figure;
  const r = f && panel.rowByKey.get(f.key);
  if (!f || !r) return nothing;
  const all = accessesOf(r.state);
  const recordedAccess: Access | undefined = all[f.index];
  if (!recordedAccess) return nothing;
  // results without per-lane elements: the engine's walk over the run's layout, when it gives the recorded cost
  const walked = panel.eng ? engineWalk(panel.eng, recordedAccess) : null;
  const a: Access = walked?.access ?? recordedAccess;
  const p = PALETTES[resolveTheme(null)];
  const edited = f.layout !== a.layout || f.instr !== (recordedAccess.instr ?? '');
  let body: TemplateResult;
  if (!a.lane_elements || !a.instr || !a.shape) body = html`<p class="muted no-lanes">${panel.pt('noLanes')}</p>`;
  else if (!panel.eng) body = html`<p class="muted">${panel.pt('loadingEngine')}</p>`;
  else {
    // unedited: the results' own numbers; edited: the engine's, asked here
    let cost = '';
    let problem = '';
    if (edited) {
      const c = whatIf(panel.eng, a, f.layout, f.instr);
      if (!c.ok)
        problem = `${c.error.column > 0 ? `${panel.pt('atColumn', { n: c.error.column })}: ` : ''}${c.error.message}`;
      else
        cost =
          a.space === 'global'
            ? panel.pt('costGlobal', {
                lanes: a.lanes,
                bytes: c.total.bytes / Math.max(1, a.lanes),
                n: c.total.sectors / Math.max(1, c.total.requests),
              })
            : panel.pt('costShared', {
                n: c.total.wavefronts,
                ideal: c.total.idealWavefronts,
                conflicts: c.total.conflicts,
              });
    } else
      cost =
        a.space === 'global'
          ? panel.pt('costGlobal', { lanes: a.lanes, bytes: a.bytes_per_lane, n: a.sectors_per_request ?? '–' })
          : panel.pt('costShared', {
              n: a.wavefronts ?? '–',
              ideal: a.ideal_wavefronts ?? '–',
              conflicts: a.conflicts ?? '–',
            });
    const spans = problem ? problem : laneSpans(panel.eng, a, f.layout, f.instr || (a.instr ?? ''));
    body = html`${
      walked
        ? html`<p class="muted engine-walk" data-walk=${walked.walk}>${panel.pt(WALK_TEXT[walked.walk], { layout: a.layout, n: walked.recorded, lanes: a.lanes, bytes: a.bytes_per_lane })}</p>`
        : nothing
    }<p class="cost ${edited ? 'what-if' : 'from-results'}">${edited ? panel.pt('whatIf') : panel.pt('fromResults')}: <strong>${cost || '–'}</strong></p>
      ${
        typeof spans === 'string'
          ? html`<p class="error access-error" role="alert">${spans}</p>`
          : html`<div class="scroll" tabindex="0">${lanePicture(spans, a.space, OKABE_ITO, p.fg, panel.pt('laneFigure', { access: agentSentence(a.access, panel.zh).text }))}</div>`
      }
      <form class="row what-if-form" @submit=${(e: SubmitEvent) => {
        e.preventDefault();
        const d = new FormData(e.target as HTMLFormElement);
        panel.figure = {
          ...f,
          layout: String(d.get('layout') ?? '').trim(),
          instr: String(d.get('instr') ?? f.instr),
        };
      }}>
        <label class="grow">${panel.pt('layout')} <input name="layout" class="grow mono" size="36" .value=${f.layout} spellcheck="false" autocomplete="off" /></label>
        <label>${panel.pt('instruction')} <select name="instr">${instructionChoices(a).map((i) => html`<option ?selected=${i === (f.instr || a.instr)}>${i}</option>`)}</select></label>
        <button type="submit" class="recost">${panel.pt('recost')}</button>
        ${edited ? html`<button type="button" class="reset" @click=${() => (panel.figure = { ...f, layout: a.layout, instr: a.instr ?? '' })}>${panel.pt('reset')}</button>` : nothing}
      </form>`;
  }
  return html`<h3>${panel.pt('accessPattern')}</h3>
    <div class="figure-host">
      <div class="row"><strong class="grow figure-title" tabindex="-1">${r.source} · ${r.variant}${r.dim !== null ? ` ${r.dim}` : ''}</strong><button type="button" @click=${() => (panel.figure = null)}>${panel.pt('close')}</button></div>
      <div class="row access-choice" role="group" aria-label=${panel.pt('accessPattern')}>
        ${all.map((x, i) => html`<button type="button" aria-pressed=${i === f.index} @click=${() => openAccess(panel, r, i)}>${x.instr ?? panel.pt(x.space === 'global' ? 'spaceGlobal' : 'spaceShared')} · <span class="agent-text">${agentWords(panel, x.access.split(':')[0])}</span></button>`)}
      </div>
      <p class="access-text">${agentWords(panel, a.access)} <span class="mono">${a.layout}</span>${a.instr ? html` · <span class="mono">${a.instr}</span>` : nothing}</p>
      ${body}
    </div>`;
}
