// The playground's form: the layouts, shape, syntax and mesh, the exported text, the view's options and the
// validator's findings.
import type { LsPlayground } from './playground.js';
import { html, nothing } from 'lit';
import type { LsError, LsFormat } from '../core/engine.js';
import { renderInputError, type InputError } from '../core/figure.js';
import { FORMATS, EXPORT_FORMATS, EXPORT_CHOICES, type ExportChoice, tritonEncoding } from './notation.js';

/** The error with its caret under the input it is about: the shape field's errors under the shape. */
export function errorView(pg: LsPlayground, err: LsError): InputError {
  const onShape = err.field === 'shape';
  const onMesh = err.field === 'mesh' || pg.errSource === 'mesh';
  const field = onShape ? 'shape' : onMesh ? 'mesh' : pg.errSource;
  return {
    message: err.message,
    field: onShape || onMesh ? field : err.column > 0 ? field : err.field || field,
    text: onShape ? pg.shape : onMesh ? pg.mesh : field === 'compare' ? pg.compare : pg.layout,
    column: err.column,
  };
}

/** What each text was read as, and the layout in the syntax chosen under "export to" (the engine's export). */
export function formatView(pg: LsPlayground) {
  if (!pg.read.length || !pg.eng) return nothing;
  const names = [pg.tr('layout'), pg.tr('compare')];
  // asked once per inputs and syntax, not on every render (a click re-renders the form). Until the user picks a
  // syntax, the first one that can say the layout is shown (CuTe has no spelling for lane axes, JAX none for a
  // swizzle): an export the user did not ask for is no error.
  const shown = pg.exportChosen
    ? pg.exportTo
    : ([pg.exportTo, ...EXPORT_FORMATS].find((f) => exportOf(pg, f).ok) ?? pg.exportTo);
  const ex = exportOf(pg, shown);
  return html`<div class="formats full">
    ${pg.read.map(
      (n, k) =>
        html`<p class="detected" data-format=${n.format}>
          ${names[k]}: ${pg.from === 'auto' ? pg.tr('detected') : pg.tr('readAs')} <strong>${FORMATS[n.format]}</strong>${
            n.format !== 'axe' ? html` → <code class="notation">${n.layout}</code>` : nothing
          }${n.shape ? ` (${n.shape.join('×')})` : ''}${n.notes.map((t) => html`<br /><small>${t}</small>`)}
        </p>`,
    )}
    <label
      >${pg.tr('exportTo')}
      <select
        class="export-to"
        @change=${(e: Event) => {
          pg.exportTo = (e.target as HTMLSelectElement).value as ExportChoice;
          pg.exportChosen = true;
          pg.saveState();
        }}
      >
        ${EXPORT_CHOICES.map((f) => html`<option value=${f} ?selected=${shown === f}>${choiceName(pg, f)}</option>`)}
      </select></label
    >
    ${
      ex.ok
        ? html`<output class="exported mono">${ex.text}</output>`
        : renderInputError({
            message: ex.error.message,
            field: ex.error.field || shown,
            text: ex.error.column > 0 ? pg.read[0].layout : '',
            column: ex.error.column,
          })
    }
  </div>`;
}

export function renderControls(pg: LsPlayground) {
  const err = pg.err;
  const checked = pg.sides.every((s) => s.findings !== null);
  const findings = pg.sides.flatMap((s, k) =>
    (s.findings ?? []).map((f) => ({ ...f, where: `${k ? 'compare ' : ''}${f.where}` })),
  );
  const memory = pg.sides.some((s) => s.arr.width > 0 && s.arr.down[0] === 'm');
  return html`<form class="inputs" @submit=${pg.apply}>
      <label>${pg.tr('layout')} <input name="layout" size="44" spellcheck="false" .value=${pg.layout} /></label>
      <label>${pg.tr('shape')} <input name="shape" size="8" spellcheck="false" placeholder=${pg.shape.trim() ? '' : String(pg.shapeNow ?? '')} .value=${pg.shape} /></label>
      <label>${pg.tr('compare')} <input name="compare" size="30" spellcheck="false" placeholder=${pg.tr('compareHint')} .value=${pg.compare} /></label>
      <label
        >${pg.tr('format')}
        <select name="from">
          <option value="auto" ?selected=${pg.from === 'auto'}>${pg.tr('autoDetect')}</option>
          ${(Object.keys(FORMATS) as LsFormat[]).map((f) => html`<option value=${f} ?selected=${pg.from === f}>${FORMATS[f]}</option>`)}
        </select></label
      >
      <label>${pg.tr('meshAxes')} <input name="mesh" size="10" spellcheck="false" placeholder="x=2,y=4" .value=${pg.mesh} /></label>
      <button type="submit">${pg.tr('apply')}</button>
    </form>
    ${err ? nothing : formatView(pg)}
    <label
      >${pg.tr('dtype')}
      <select class="dtype" @change=${(e: Event) => pg.setOption('dtype', (e.target as HTMLSelectElement).value)}>
        ${pg.eng!.dtypeNames().map((d) => html`<option value=${d} ?selected=${pg.dtype === d}>${d}</option>`)}
      </select></label
    >
    ${
      memory
        ? html`<label
          >${pg.tr('rowWidth')}
          <select class="row-width" @change=${(e: Event) => pg.setOption('rowWidth', (e.target as HTMLSelectElement).value)}>
            <option value="banks" ?selected=${pg.rowWidth === 'banks'}>${pg.tr('banksWidth')}</option>
            <option value="tile" ?selected=${pg.rowWidth === 'tile'}>${pg.tr('tileWidth')} (${pg.cols})</option>
          </select></label
        >`
        : nothing
    }
    <label
      >${pg.tr('colourBy')}
      <select class="colour" @change=${(e: Event) => pg.setOption('colour', (e.target as HTMLSelectElement).value)}>
        <option value="col" ?selected=${pg.colour === 'col'}>${pg.tr('byCol')}</option>
        <option value="row" ?selected=${pg.colour === 'row'}>${pg.tr('byRow')}</option>
        <option value="index" ?selected=${pg.colour === 'index'}>${pg.tr('byIndex')}</option>
      </select></label
    >
    <div class="findings full">
      ${
        err
          ? renderInputError(errorView(pg, err))
          : pg.progress
            ? html`<p class="progress" role="status">
                ${pg.progress.what}
                <progress max="1" value=${pg.progress.done}>${Math.round(pg.progress.done * 100)}%</progress>
              </p>`
            : !checked
              ? html`<p class="checking">${pg.tr('checking')}</p>`
              : findings.length
                ? html`<ul>${findings.map((f) => html`<li><strong>${f.severity}</strong> ${f.code}: ${f.message}${f.where ? ` [${f.where}]` : ''}</li>`)}</ul>`
                : html`<p>${pg.tr('noFindings')}</p>`
      }
    </div>`;
}

/** The menu's name of an export choice: the syntax, or Triton's encoding as Triton spells it. */
function choiceName(pg: LsPlayground, choice: ExportChoice): string {
  const encoding = tritonEncoding(choice);
  if (!encoding) return FORMATS[choice as LsFormat];
  return encoding === 'auto' ? `${FORMATS.triton}: ${pg.tr('tritonNamedAuto')}` : `${FORMATS.triton} #ttg.${encoding}`;
}

/** The element width Triton's nvmma_shared is asked for: the playground's dtype, when it is one it takes. */
function elementBits(pg: LsPlayground): number | null {
  const bits = pg.elemBytes * 8;
  return [8, 16, 32, 64].includes(bits) ? bits : null;
}

/** The engine's export of the first layout to one syntax (or Triton encoding), cached per inputs. */
function exportOf(pg: LsPlayground, to: ExportChoice) {
  const encoding = tritonEncoding(to);
  const bits = encoding ? elementBits(pg) : null;
  const key = JSON.stringify([to, pg.read[0].layout, pg.shapeNow, pg.meshNow, bits]);
  let r = pg.exported.get(key);
  if (!r) {
    if (pg.exported.size > 32) pg.exported.clear();
    r = encoding
      ? pg.eng!.exportTritonEncoding(pg.read[0].layout, pg.shapeNow, encoding, bits)
      : pg.eng!.exportLayout(to as LsFormat, pg.read[0].layout, pg.shapeNow, pg.meshNow);
    pg.exported.set(key, r);
  }
  return r;
}
