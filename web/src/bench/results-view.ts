// The panel's results: opening results documents (from an agent, a file, a URL, the reference runs), the plots
// with a table under each, the convert plan, and the exports (JSON, CSV, SVG, PNG).
import type { LsBenchPanel } from './panel.js';
import { html, nothing, type TemplateResult } from 'lit';
import { saveFile } from '../core/save-file.js';
import { styleProps } from '../core/style-props.js';
import { PALETTES, resolveTheme } from '../core/theme.js';
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
import { PAIRS, readResultsText, rowsOf, runCeiling, speedups, type ResultsDoc, type Row } from './results.js';
import { PEER_RUNS, REFERENCE_RUNS } from './reference-runs.js';
import { OURS, PEER_SERIES, suitePoints, type PeerCase } from './convert.js';
import { DRAM_BOUND_FRACTION, type Agent, type Dataset, fmt, rowKey } from './types.js';
import { agentMessage } from './agents.js';
import { renderPredictions, renderChecks, renderFigure } from './predictions.js';

export function addDataset(
  panel: LsBenchPanel,
  doc: ResultsDoc,
  from: { agent?: Agent; runId?: string; file?: string; raw?: string },
) {
  const device = doc.devices[0]?.name ?? 'device';
  const source = from.agent
    ? `${from.agent.label} · ${device} · ${doc.meta.run_id.slice(-8)}`
    : `${from.file} · ${device}`;
  const key = from.agent ? `${from.agent.client.base}/${from.runId}` : `file:${from.file}:${doc.meta.run_id}`;
  const rest = panel.datasets.filter((d) => d.key !== key);
  // one document per benchmark and source is shown at first: the newest
  for (const d of rest)
    if (
      d.doc.meta.request.benchmark === doc.meta.request.benchmark &&
      d.agentKey !== undefined &&
      d.agentKey === from.agent?.key
    )
      d.shown = false;
  panel.datasets = [
    ...rest,
    { key, source, doc, raw: from.raw, agentKey: from.agent?.key, runId: from.runId, shown: true },
  ];
}

export async function openFile(panel: LsBenchPanel, file: File) {
  panel.offlineError = '';
  const text = await file.text();
  const r = readResultsText(text, file.name);
  if ('error' in r) panel.offlineError = `${panel.pt('cannotOpen')}: ${r.error}`;
  else addDataset(panel, r.doc, { file: file.name, raw: text });
}

export async function openUrl(panel: LsBenchPanel, e: SubmitEvent) {
  e.preventDefault();
  const url = String(new FormData(e.target as HTMLFormElement).get('resultsUrl') ?? '').trim();
  panel.offlineError = '';
  if (url) await fetchResults(panel, url);
}

/** The H200 runs committed in docs/results/, which the build copies to ./results/ (vite.config.ts). */
export async function openReferenceRuns(panel: LsBenchPanel) {
  panel.offlineError = '';
  for (const name of REFERENCE_RUNS) if (!(await fetchResults(panel, `./results/${name}`))) return;
}

/** Fetches a results document and adds it; false (with offlineError set) when it cannot. */
export async function fetchResults(panel: LsBenchPanel, url: string): Promise<boolean> {
  let text: string;
  try {
    const res = await fetch(new URL(url, location.href), { cache: 'no-store', credentials: 'omit' });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    text = await res.text();
  } catch (err) {
    panel.offlineError = panel.pt('fetchFailed', { url, why: (err as Error).message });
    return false;
  }
  const r = readResultsText(text, url.split('/').pop() || url);
  if ('error' in r) {
    panel.offlineError = `${panel.pt('cannotOpen')}: ${r.error}`;
    return false;
  }
  addDataset(panel, r.doc, { file: url.split('/').pop() || url, raw: text });
  return true;
}

export function onDrop(panel: LsBenchPanel, e: DragEvent) {
  e.preventDefault();
  panel.dragging = false;
  const file = e.dataTransfer?.files[0];
  if (file) void openFile(panel, file);
}

export function exportJson(panel: LsBenchPanel, d: Dataset) {
  const text = d.raw ?? JSON.stringify(d.doc, null, 1) + '\n';
  saveFile(`${d.doc.meta.run_id}.json`, new Blob([text], { type: 'application/json' }));
}

export async function exportCsv(panel: LsBenchPanel, d: Dataset) {
  const agent = panel.agents.find((a) => a.key === d.agentKey);
  try {
    // the agent's CSV of its run, or the same printer in the engine module for a file (its own text)
    let text: string;
    if (agent && d.runId)
      text = await (await agent.client.request(`/v1/runs/${encodeURIComponent(d.runId)}?format=csv`)).text();
    else {
      const r = panel.eng?.resultsCsv(d.raw ?? JSON.stringify(d.doc));
      if (!r) return;
      if (!r.ok) {
        panel.notice = r.error.message;
        return;
      }
      text = r.csv;
    }
    saveFile(`${d.doc.meta.run_id}.csv`, new Blob([text], { type: 'text/csv' }));
  } catch (err) {
    panel.notice = agentMessage(panel, err);
  }
}

export async function exportPlot(panel: LsBenchPanel, id: string, kind: 'svg' | 'png') {
  const svg = panel.plots.get(id);
  if (!svg) return;
  const p = PALETTES[resolveTheme(null)];
  if (kind === 'svg')
    saveFile(`layoutscope-${id}.svg`, new Blob([svgFile(svg, p.bg, p.fg)], { type: 'image/svg+xml' }));
  else saveFile(`layoutscope-${id}.png`, await pngFile(svg, p.bg, p.fg));
}

export function renderOffline(panel: LsBenchPanel): TemplateResult {
  return html`<fieldset class="offline">
    <legend>${panel.pt('openFile')}</legend>
    <div
      class="drop ${panel.dragging ? 'over' : ''}"
      @dragover=${(e: DragEvent) => (e.preventDefault(), (panel.dragging = true))}
      @dragleave=${() => (panel.dragging = false)}
      @drop=${(e: DragEvent) => onDrop(panel, e)}
    >
      ${panel.pt('drop1')}<code>docs/results/*.json</code>${panel.pt('drop2')}
      <label class="file-pick"
        ><input type="file" class="file" accept=".json,application/json" @change=${(e: Event) => {
          const f = (e.target as HTMLInputElement).files?.[0];
          if (f) void openFile(panel, f);
        }} /><span class="file-button">${panel.pt('chooseFile')}</span></label
      >
    </div>
    <form class="row" @submit=${(e: SubmitEvent) => openUrl(panel, e)}>
      <label class="grow">${panel.pt('orUrl')} <input name="resultsUrl" class="grow" size="40" placeholder="./results/h200-transpose.json" /></label>
      <button type="submit">${panel.pt('open')}</button>
    </form>
    <p class="row">
      <button type="button" class="open-reference" @click=${() => void openReferenceRuns(panel)}>${panel.pt('openRef')}</button>
      <span class="muted">${panel.pt('refNote1')}<code>docs/results/</code>${panel.pt('refNote2')}</span>
    </p>
    ${panel.offlineError ? html`<p class="error offline-error" role="alert">${panel.offlineError}</p>` : nothing}
  </fieldset>`;
}

export function renderResults(panel: LsBenchPanel): TemplateResult | typeof nothing {
  if (!panel.datasets.length) return nothing;
  const shown = panel.datasets.filter((d) => d.shown);
  const rows = shown.flatMap((d) => rowsOf(d.doc, d.source));
  return html`<section class="results" aria-label=${panel.pt('results')}>
    <h3>${panel.pt('results')}</h3>
    <label class="log-scale"><input type="checkbox" .checked=${panel.logScale} @change=${(e: Event) => (panel.logScale = (e.target as HTMLInputElement).checked)} /> ${panel.pt('logScale')}</label>
    <div class="chips row">
      ${panel.datasets.map(
        (d) => html`<span class="dataset">
          <button type="button" aria-pressed=${d.shown} title=${panel.pt('showHide')} @click=${() => ((d.shown = !d.shown), (panel.datasets = [...panel.datasets]))}>
            ${d.doc.meta.request.benchmark} · ${d.source}</button>
          <button type="button" class="export-json" @click=${() => exportJson(panel, d)}>JSON</button>
          <button type="button" class="export-csv" @click=${() => exportCsv(panel, d)}>CSV</button>
        </span>`,
      )}
    </div>
    ${renderAos(
      panel,
      rows.filter((r) => r.benchmark === 'aos_soa'),
      shown,
    )} ${renderTranspose(
      panel,
      rows.filter((r) => r.benchmark === 'transpose'),
    )}
    ${renderConvert(
      panel,
      rows.filter((r) => r.benchmark === 'convert'),
    )}
    ${renderPredictions(panel, rows)} ${renderFigure(panel)}
  </section>`;
}

export function plotWords(panel: LsBenchPanel): PlotWords {
  return {
    usefulGbps: panel.pt('usefulGbps'),
    speedup: panel.pt('plotSpeedup'),
    fractionCopy: panel.pt('fractionCopy'),
    ofCopy: panel.pt('ofCopy'),
    aosBandwidth: panel.pt('ariaAosBandwidth'),
    aosSpeedup: panel.pt('ariaAosSpeedup'),
    transposeBandwidth: panel.pt('ariaTransposeBandwidth'),
    transposeFraction: panel.pt('ariaTransposeFraction'),
  };
}

export function plotBox(panel: LsBenchPanel, id: string, svg: SVGSVGElement, caption: string): TemplateResult {
  panel.plots.set(id, svg);
  // a chart drawn wider than a narrow panel (bands wide enough for their names) scrolls inside its own box
  return html`<figure class="plot" data-plot=${id}>
    <div class="scroll plot-scroll" tabindex="0" role="group" aria-label=${svg.getAttribute('aria-label') ?? id}>
      ${svg}
    </div>
    <figcaption class="row">
      <span class="muted grow">${caption}</span>
      <button type="button" class="plot-svg" @click=${() => exportPlot(panel, id, 'svg')}>SVG</button>
      <button type="button" class="plot-png" @click=${() => exportPlot(panel, id, 'png')}>PNG</button>
    </figcaption>
  </figure>`;
}

export function renderAos(panel: LsBenchPanel, rows: Row[], shown: Dataset[]): TemplateResult | typeof nothing {
  if (!rows.length) return nothing;
  const p = PALETTES[resolveTheme(null)];
  const sources = [...new Set(rows.map((r) => r.source))];
  const o = { width: panel.width(), fg: p.fg, sources, log: panel.logScale, words: plotWords(panel) };
  // ceiling: the run's own copies (benchmarks[].ceilings), else a copy measured on the same device (a loaded
  // transpose), else the device's peak from its attributes
  const ceilings = sources.flatMap((s) => {
    const r = rows.find((x) => x.source === s)!;
    const own = runCeiling(shown.find((d) => d.source === s)!.doc);
    if (own)
      return [{ source: s, gbps: own.gbps, label: `${own.name} (${panel.pt('thisRun')}) ${own.gbps.toFixed(0)} GB/s` }];
    const copy = panel.datasets
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
      ? [{ source: s, gbps: peak / 1e9, label: `${panel.pt('peakAttr')} ${(peak / 1e9).toFixed(0)} GB/s` }]
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
  return html`<h3>${panel.pt('aosTitle')}</h3>
    ${plotBox(panel, 'aos-bandwidth', aosBandwidth(rows, ceilings, o), `${ceilings.length ? panel.pt('capCeiling') : panel.pt('capNoCeiling')} ${panel.pt('capWhiskers')}`)}
    <div class="scroll" tabindex="0">
      <table class="aos-table">
        <thead><tr><th class="l">${panel.pt('source')}</th><th>touch_fields</th><th class="l">${panel.pt('layout')}</th><th>n</th><th>${panel.pt('medianMs')}</th><th>${panel.pt('usefulGbps')}</th><th>${panel.pt('verified')}</th></tr></thead>
        <tbody>
          ${sorted.map(
            (r) =>
              html`<tr><td>${r.source}</td><td>${r.touch}</td><td class="l">${r.variant}</td><td>${r.n}</td><td>${fmt(r.timeS === null ? null : r.timeS * 1e3, 4)}</td><td>${fmt(r.gbps, 1)}</td><td class=${r.verified ? 'ok' : 'error'}>${r.skipped ?? (r.verified ? panel.pt('yes') : panel.pt('no'))}</td></tr>`,
          )}
        </tbody>
      </table>
    </div>
    <ul class="legend speedup-legend" aria-label=${panel.pt('series')}>
      ${speedupLegend(speed, sources.length > 1).map((l) => html`<li><span class="swatch" ${styleProps({ background: l.colour })}></span>${l.name}</li>`)}
      <li><span class="swatch dashed"></span>${panel.pt('modelRatio')}</li>
    </ul>
    ${plotBox(
      panel,
      'aos-speedup',
      aosSpeedup(speed, bound, o),
      panel.pt('capRatio', { f: DRAM_BOUND_FRACTION * 100 }) + ratioMissing(panel, bound),
    )}
    <div class="scroll" tabindex="0">
      <table class="speedup-table">
        <thead><tr><th class="l">${panel.pt('source')}</th><th>touch_fields</th><th>${panel.pt('measuredRatio')}</th><th>${panel.pt('modelRatio')}</th><th class="l">${panel.pt('kernels')}</th><th class="l">${panel.pt('applies')}</th></tr></thead>
        <tbody>
          ${speed.map((s, i) => html`<tr data-pair=${s.pair}><td>${s.source}</td><td>${s.touch}</td><td>${fmt(s.speedup)}</td><td>${fmt(bound[i].bound)}</td><td class="l">${PAIRS[s.pair].name}</td><td class="l applies">${bound[i].applies ? panel.pt('yes') : panel.pt('notApplies')}</td></tr>`)}
        </tbody>
      </table>
    </div>`;
}

export function renderTranspose(panel: LsBenchPanel, rows: Row[]): TemplateResult | typeof nothing {
  if (!rows.length) return nothing;
  const p = PALETTES[resolveTheme(null)];
  const sources = [...new Set(rows.map((r) => r.source))];
  const o = { width: panel.width(), fg: p.fg, sources, log: panel.logScale, words: plotWords(panel) };
  const order = ['copy', 'naive', 'tiled', 'pad'];
  const sorted = [...rows].sort(
    (a, b) =>
      a.source.localeCompare(b.source) || a.dim! - b.dim! || order.indexOf(a.variant) - order.indexOf(b.variant),
  );
  return html`<h3>${panel.pt('transposeTitle')}</h3>
    ${plotBox(panel, 'transpose-bandwidth', transposeBandwidth(rows, o), panel.pt('capTransposeCopy'))}
    ${plotBox(panel, 'transpose-fraction', transposeFraction(rows, o), panel.pt('capFraction'))}
    <div class="scroll" tabindex="0">
      <table class="transpose-table">
        <thead><tr><th class="l">${panel.pt('source')}</th><th>dim</th><th class="l">${panel.pt('variant')}</th><th>${panel.pt('medianMs')}</th><th>${panel.pt('usefulGbps')}</th><th>${panel.pt('fractionCopy')}</th><th>${panel.pt('verified')}</th></tr></thead>
        <tbody>
          ${sorted.map(
            (r) =>
              html`<tr><td>${r.source}</td><td>${r.dim}</td><td class="l">${r.variant}</td><td>${fmt(r.timeS === null ? null : r.timeS * 1e3, 4)}</td><td>${fmt(r.gbps, 1)}</td><td>${fmt(r.fractionOfCopy)}</td><td class=${r.verified ? 'ok' : 'error'}>${r.skipped ?? (r.verified ? panel.pt('yes') : panel.pt('no'))}</td></tr>`,
          )}
        </tbody>
      </table>
    </div>`;
}

export function renderConvert(panel: LsBenchPanel, rows: Row[]): TemplateResult | typeof nothing {
  if (!rows.length) return nothing;
  const p = PALETTES[resolveTheme(null)];
  const chosen = rows.find((r) => rowKey(r) === panel.planKey) ?? rows[0];
  const suite = rows.filter((r) => r.suite === 'permutations');
  if (suite.length && panel.peers === null) void fetchPeers(panel);
  const points = suitePoints(suite, panel.peers);
  const sources = [...new Set(rows.map((r) => r.source))];
  return html`<h3>${panel.pt('cvResults')}</h3>
    <div class="scroll" tabindex="0">
      <table class="convert-table">
        <thead><tr><th class="l">${panel.pt('source')}</th><th class="l">${panel.pt('cvCase')}</th><th class="l">${panel.pt('cvPlan')}</th><th>${panel.pt('cvSectors')}</th><th>${panel.pt('cvWavefronts')}</th><th>${panel.pt('medianMs')}</th><th>${panel.pt('usefulGbps')}</th><th>${panel.pt('fractionCopy')}</th><th>${panel.pt('verified')}</th><th class="l">${panel.pt('vsNcu')}</th></tr></thead>
        <tbody>
          ${rows.map((r) => {
            const plan = r.state.plan;
            const pr = plan?.predicted_per_warp_instruction;
            return html`<tr class="convert-case" data-case=${r.variant}>
              <td>${r.source}</td>
              <td class="l"><button type="button" class="link open-plan" aria-pressed=${r === chosen} @click=${() => (panel.planKey = rowKey(r))}>${r.variant}</button></td>
              <td class="l plan-kind" data-kind=${plan?.kind ?? ''}>${plan ? `${panel.pt(plan.kind === 'tiled' ? 'kindTiled' : 'kindVector')} · ${plan.vector_bytes} B${plan.tile ? ` · ${plan.tile.tile_a}×${plan.tile.tile_b}` : ''}` : '–'}</td>
              <td class="cv-sectors">${pr ? `${pr.global_read.sectors} / ${pr.global_write.sectors}` : '–'}</td>
              <td class="cv-wavefronts">${pr?.smem_write && pr.smem_read ? `${pr.smem_write.wavefronts} / ${pr.smem_read.wavefronts}` : '–'}</td>
              <td>${fmt(r.timeS === null ? null : r.timeS * 1e3, 4)}</td><td>${fmt(r.gbps, 1)}</td><td>${fmt(r.fractionOfCopy)}</td>
              <td class=${r.verified ? 'ok' : 'error'}>${r.skipped ?? (r.verified ? panel.pt('yes') : panel.pt('no'))}</td>
              ${renderChecks(panel, r)}
            </tr>`;
          })}
        </tbody>
      </table>
    </div>
    ${renderPlan(panel, chosen)}
    ${
      points.length
        ? html`<ul class="legend convert-legend" aria-label=${panel.pt('series')}>
              ${[OURS, ...PEER_SERIES]
                .filter((s) => points.some((x) => x.series === s))
                .map(
                  (s, i) =>
                    html`<li><span class="swatch" ${styleProps({ background: OKABE_ITO[i] })}></span>${s === OURS ? panel.pt('cvOurs') : s}</li>`,
                )}
              <li><span class="swatch dashed"></span>${panel.pt('cvCopy')}</li>
            </ul>
            ${plotBox(
              panel,
              'convert-suite',
              convertSuite(points, {
                width: panel.width(),
                fg: p.fg,
                sources,
                log: panel.logScale,
                label: panel.pt('fractionCopy'),
              }),
              panel.pt('cvSuiteCaption', {
                device: chosen.device,
                peers: panel.peers ? panel.pt('cvPeersLoaded') : panel.pt('cvPeersMissing'),
              }),
            )}`
        : nothing
    }`;
}

/** The plan as source -> staging tile -> destination, each with the engine's numbers per warp instruction. */
export function renderPlan(panel: LsBenchPanel, r: Row): TemplateResult | typeof nothing {
  const plan = r.state.plan;
  const input = r.state.input;
  if (!plan || !input) return nothing;
  const pr = plan.predicted_per_warp_instruction;
  const t = plan.tile;
  const [before, after] = panel.pt('cvPlanOf', { name: '\u0000' }).split('\u0000');
  return html`<h4 class="plan-title">${before}<code>${r.variant}</code>${after}</h4>
    <ol class="plan" aria-label=${panel.pt('cvPlanOf', { name: r.variant })}>
      <li class="plan-src"><strong>${panel.pt('cvSource')}</strong><code>${input.src}</code>
        <span>${panel.pt('cvLoad', { n: pr.global_read.sectors, b: pr.global_read.bytes_per_lane })}</span></li>
      <li class="arrow" aria-hidden="true">→</li>
      <li class="plan-tile"><strong>${t ? panel.pt('cvTile') : panel.pt('cvRegisters')}</strong>
        ${
          t && pr.smem_write && pr.smem_read
            ? html`<span>${panel.pt('cvTileShape', { a: t.tile_a, b: t.tile_b, unit: plan.unit_bytes, row: t.row_bytes, bytes: t.staging_bytes })}</span>
                <span>${panel.pt('cvSwizzle', { s: t.staging_swizzle })}</span>
                <span class="plan-block">${panel.pt('cvBlock', { blk: t.register_block.replace('x', '×') })}</span>
                <span class="plan-smem">${panel.pt('cvSmem', { w: pr.smem_write.wavefronts, wi: pr.smem_write.ideal_wavefronts, sb: pr.smem_write.bytes_per_lane, r: pr.smem_read.wavefronts, ri: pr.smem_read.ideal_wavefronts, lb: pr.smem_read.bytes_per_lane })}</span>`
            : html`<span>${panel.pt('cvVector', { v: plan.vector_bytes, c: plan.common_vector })}</span>`
        }
        <span>${panel.pt('cvGrid', { t: plan.threads, b: plan.blocks })}</span></li>
      <li class="arrow" aria-hidden="true">→</li>
      <li class="plan-dst"><strong>${panel.pt('cvDestination')}</strong><code>${input.dst}</code>
        <span>${panel.pt('cvStore', { n: pr.global_write.sectors, b: pr.global_write.bytes_per_lane })}</span></li>
    </ol>`;
}

export async function fetchPeers(panel: LsBenchPanel) {
  panel.peers = [];
  try {
    const res = await fetch(new URL(`./results/${PEER_RUNS[0]}`, location.href), { credentials: 'omit' });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const doc = (await res.json()) as { cases?: PeerCase[] };
    panel.peers = Array.isArray(doc.cases) ? doc.cases : [];
  } catch {
    // the page without its results folder (a bare build): the plot shows ours alone and says so
    panel.peers = [];
  }
}

/** The cases of this run where the sector ratio is not drawn (the AoS kernel is not DRAM-bound), named from the
 * data: "aos at 4, 8 fields in <source>"; empty when it is drawn everywhere. */
function ratioMissing(panel: LsBenchPanel, bound: BoundPoint[]): string {
  const groups = new Map<string, { kernel: string; source: string; touch: number[] }>();
  for (const b of bound.filter((x) => Number.isFinite(x.bound) && !x.applies)) {
    const k = `${b.source}|${b.pair}`;
    const g = groups.get(k) ?? { kernel: PAIRS[b.pair as keyof typeof PAIRS].aos, source: b.source, touch: [] };
    g.touch.push(b.touch);
    groups.set(k, g);
  }
  if (!groups.size) return '';
  const missing = [...groups.values()]
    .map((g) => panel.pt('fieldsIn', { kernel: g.kernel, touch: g.touch.join(', '), source: g.source }))
    .join('; ');
  return panel.pt('capRatioMissing', { missing });
}
