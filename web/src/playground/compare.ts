// Compare mode's statement of the difference between the two layouts: which logical elements move (their
// positions in the engine's two tables differ) and what a warp's accesses cost on each side, side by side.
//
//   S[(32,32):(32,1)] vs S[(32,32):(33,1)], f32: 992 of 1024 elements move (row r shifts by r words);
//   a warp reading a column (lane i in row i, LDS.32) takes 1024 wavefronts (992 conflicts) on the first and
//   32 (none) on the second; a row is 32 wavefronts on both.
//
// Every cost is the engine's (accessCost over the engine's row and column walks); this file only compares the
// positions of the engine's tables and lays the numbers out.
import { html, nothing, type TemplateResult } from 'lit';
import { offMain, type LsAccessCost, type LsResult } from '../core/engine.js';
import type { StringKey } from '../i18n/strings.js';
import type { LsPlayground } from './playground.js';
import { VALIDATE_HERE, type Side } from './model.js';

/** Moved elements listed by number at most (the count is always whole). */
const LISTED = 8;

/** One access asked of the engine on both sides: the walk of the lanes and the instruction kind. */
interface Probe {
  label: StringKey;
  op: 'LDS' | 'LDG';
  lanes: 'rows' | 'columns';
}
const PROBES: Probe[] = [
  { label: 'cmpSharedRows', op: 'LDS', lanes: 'rows' },
  { label: 'cmpSharedCols', op: 'LDS', lanes: 'columns' },
  { label: 'cmpGlobalRows', op: 'LDG', lanes: 'rows' },
  { label: 'cmpGlobalCols', op: 'LDG', lanes: 'columns' },
];

export interface CompareSummary {
  /** the sides this summary is of (a newer figure makes it stale) */
  sides: Side[];
  elements: number;
  /** elements whose positions differ between the two tables */
  moved: number;
  /** the first LISTED moved elements with their positions on each side */
  examples: { x: number; a: string; b: string }[];
  /** per probe: the engine's cost on each side, or why it has none; null while the engine is asked */
  costs: { probe: Probe; instr: string; cells: (LsResult<LsAccessCost> | null)[] }[];
}

/** The positions of element x in a table, as text ("{m: 72}", replicas joined by a space). */
function positionsOf(s: Side, x: number): string {
  const t = s.t,
    k = t.axes.length;
  const out: string[] = [];
  for (let r = 0; r < t.replicas; ++r) {
    const base = (x * t.replicas + r) * k;
    out.push(`{${t.axes.map((a, i) => `${a}: ${t.values[base + i]}`).join(', ')}}`);
  }
  return out.join(' ');
}

/** Whether element x sits at the same positions in both tables (positions compared by axis name). */
function samePlace(a: Side, b: Side, x: number, aligned: boolean): boolean {
  const ta = a.t,
    tb = b.t;
  if (aligned) {
    const n = ta.axes.length * ta.replicas,
      base = x * n;
    for (let i = 0; i < n; ++i) if (ta.values[base + i] !== tb.values[base + i]) return false;
    return true;
  }
  const key = (s: Side) => {
    const t = s.t,
      k = t.axes.length;
    const reps: string[] = [];
    for (let r = 0; r < t.replicas; ++r) {
      const base = (x * t.replicas + r) * k;
      reps.push(
        t.axes
          .map((ax, i) => [ax, t.values[base + i]] as const)
          .sort(([p], [q]) => p.localeCompare(q))
          .map(([ax, v]) => `${ax}=${v}`)
          .join(','),
      );
    }
    return reps.sort().join(' ');
  };
  return key(a) === key(b);
}

/** The summary of two sides; the costs are asked of the engine (in its worker for a large tile) and filled in
 * as they come, with `done` called after each. */
export function summarize(pg: LsPlayground, sides: Side[], done: () => void): CompareSummary {
  const [a, b] = sides;
  const aligned =
    a.t.replicas === b.t.replicas && a.t.axes.length === b.t.axes.length && a.t.axes.every((x, i) => x === b.t.axes[i]);
  let moved = 0;
  const examples: CompareSummary['examples'] = [];
  for (let x = 0; x < a.t.elements; ++x) {
    if (samePlace(a, b, x, aligned)) continue;
    ++moved;
    if (examples.length < LISTED) examples.push({ x, a: positionsOf(a, x), b: positionsOf(b, x) });
  }
  const eng = pg.eng!;
  const bytes = eng.laneAccessBytes(pg.elemBytes);
  const summary: CompareSummary = {
    sides,
    elements: a.t.elements,
    moved,
    examples,
    costs: PROBES.map((probe) => ({ probe, instr: `${probe.op}.${bytes * 8}`, cells: sides.map(() => null) })),
  };
  const shape = pg.shapeNow;
  for (const row of summary.costs)
    sides.forEach((s, k) => {
      const put = (r: LsResult<LsAccessCost>) => {
        row.cells[k] = r;
        done();
      };
      if (s.t.elements > VALIDATE_HERE)
        void offMain(eng, 'accessCost', s.layout, shape, pg.dtype, row.instr, row.probe.lanes, null).then(put);
      else put(eng.accessCost(s.layout, shape, pg.dtype, row.instr, row.probe.lanes));
    });
  return summary;
}

function costCell(pg: LsPlayground, probe: Probe, r: LsResult<LsAccessCost> | null): TemplateResult {
  if (!r) return html`<td class="pending">…</td>`;
  if (!r.ok) return html`<td class="no-cost" title=${r.error.message}>${pg.tr('cmpNoCost')}</td>`;
  const c = r.total;
  if (probe.op === 'LDS')
    return html`<td class="cost" data-wavefronts=${c.wavefronts} data-conflicts=${c.conflicts}>
      ${c.wavefronts} ${pg.tr('wavefronts')} (${c.conflicts} ${pg.tr('cmpConflicts')})
    </td>`;
  return html`<td class="cost" data-sectors=${c.sectors} data-requests=${c.requests}>
    ${c.sectors} ${pg.tr('cmpSectors')} (${c.requests} ${pg.tr('cmpRequests')})
  </td>`;
}

/** The summary as the figure's details show it under the views. */
export function renderSummary(pg: LsPlayground, s: CompareSummary | undefined): TemplateResult | typeof nothing {
  if (!s || s.sides !== pg.sides || s.sides.length < 2) return nothing;
  const fill = (key: StringKey, v: Record<string, string | number>) =>
    Object.entries(v).reduce((text, [k, n]) => text.replace(`{${k}}`, String(n)), pg.tr(key));
  // a side the engine cannot cost at all (no @m axis, or a tile its walks cannot cover): its reason, once
  const why = s.sides.map((side, k) => {
    const errs = s.costs.map((row) => row.cells[k]);
    const first = errs[0];
    return errs.every((c) => c && !c.ok) && first && !first.ok
      ? { layout: side.layout, message: first.error.message }
      : null;
  });
  return html`<section class="compare-summary" aria-label=${pg.tr('cmpTitle')}>
    <h4>${pg.tr('cmpTitle')}</h4>
    <p class="moved" data-moved=${s.moved} data-elements=${s.elements}>
      ${
        s.moved
          ? fill('cmpMoved', { n: s.moved, of: s.elements, k: s.elements - s.moved })
          : fill('cmpNoneMoved', { of: s.elements })
      }
    </p>
    ${
      s.examples.length
        ? html`<ul class="moved-list mono">
          ${s.examples.map((e) => html`<li data-x=${e.x}>x = ${e.x}: ${e.a} → ${e.b}</li>`)}
          ${s.moved > s.examples.length ? html`<li>… ${fill('cmpMore', { n: s.moved - s.examples.length })}</li>` : nothing}
        </ul>`
        : nothing
    }
    <table class="compare-costs">
      <caption>
        ${fill('cmpCostCaption', { dtype: pg.dtype })}
      </caption>
      <thead>
        <tr>
          <th scope="col">${pg.tr('cmpAccess')}</th>
          <th scope="col" class="mono">${s.sides[0].layout}</th>
          <th scope="col" class="mono">${s.sides[1].layout}</th>
        </tr>
      </thead>
      <tbody>
        ${s.costs.map(
          (row) => html`<tr data-probe=${`${row.probe.op}-${row.probe.lanes}`}>
            <th scope="row">${pg.tr(row.probe.label)} <span class="mono">${row.instr}</span></th>
            ${row.cells.map((c) => costCell(pg, row.probe, c))}
          </tr>`,
        )}
      </tbody>
    </table>
    ${why.map((w) => (w ? html`<p class="no-cost-why"><span class="mono">${w.layout}</span>: ${w.message}</p>` : nothing))}
  </section>`;
}
