// <ls-scan>: a Triton dump (.ttgir / .mlir) or a log of CuTe print() output pasted or dropped, read by the
// engine's scanner (scanTtgir in the WASM module): its layout aliases, every op that moves data between layouts
// with its cost, highest first, and the CuTe layouts printed in it. Each op links to the playground's compare
// view with its two layouts, each alias and CuTe layout to the playground with it; each op's two layouts and
// each alias export as one of Triton's named encodings (the engine's exportTritonEncoding, the CLI's
// export --to triton --encoding). The page only lays out what the engine answers, in the page's language (its
// labels, and the engine's words for an op where the view knows them).
import { LitElement, css, html, nothing } from 'lit';
import { loadEngine } from '../core/engine.js';
import { SETTINGS_EVENT } from '../core/settings-event.js';
import type {
  LayoutscopeModule,
  LsResult,
  LsScan,
  LsScanAlias,
  LsScanCuteLayout,
  LsScanOp,
  LsTritonEncoding,
} from '../generated/layoutscope.js';
import { engineText, scanText, type ScanKey } from '../i18n/scan.js';
import { fileButtonText } from '../i18n/file-button.js';
import { resolveLang } from '../i18n/strings.js';

/** The playground's URL state for two layouts on one shape (the keys its element reads under "play."). */
export function compareLink(op: LsScanOp): string | null {
  if (!op.src.axe || !op.dst.axe) return null;
  const p = new URLSearchParams();
  p.set('fig', 'play');
  p.set('play.layout', op.src.axe);
  p.set('play.shape', op.dst.shape.join(','));
  p.set('play.cmp', op.dst.axe);
  return '#' + p.toString();
}

/** The playground's URL state for one layout read by the scan (a CuTe layout of a log, an alias), on its shape. */
export function playLink(c: LsScanCuteLayout | LsScanAlias): string | null {
  if (!c.axe) return null;
  const p = new URLSearchParams();
  p.set('fig', 'play');
  p.set('play.layout', c.axe);
  if (c.shape.length) p.set('play.shape', c.shape.join(','));
  return '#' + p.toString();
}

/** Triton's named encodings offered for export, as the CLI's --encoding names them. */
export const EXPORT_ENCODINGS: readonly LsTritonEncoding[] = ['auto', 'blocked', 'swizzled_shared', 'nvmma_shared'];

/** A layout the scan read, to export: its notation, the shape it was read on, its element width (0: unknown). */
interface Exportable {
  label: string;
  axe: string;
  shape: number[];
  elementBits: number;
  error: string;
}

export class LsScanView extends LitElement {
  static override properties = {
    result: { state: true },
    millis: { state: true },
    failure: { state: true },
  };
  static override styles = css`
    :host {
      display: block;
    }
    textarea {
      width: 100%;
      min-height: 8em;
      font-family: ui-monospace, monospace;
      font-size: 0.85em;
      box-sizing: border-box;
    }
    /* the native file input hidden (it speaks the browser's language), its label drawn as the button */
    label.file {
      position: relative;
      display: inline-flex;
      align-items: center;
      gap: 0.5em;
      flex-wrap: wrap;
      margin-top: 0.4em;
      max-width: 100%;
    }
    /* transparent over the whole label: a tap anywhere on it is a tap on the input itself */
    label.file input {
      position: absolute;
      inset: 0;
      width: 100%;
      height: 100%;
      margin: 0;
      opacity: 0;
      cursor: pointer;
    }
    label.file .choose {
      display: inline-block;
      min-height: 24px;
      box-sizing: border-box;
      padding: 0.2em 0.8em;
      border: 1px solid currentColor;
      border-radius: 4px;
      cursor: pointer;
    }
    label.file:focus-within .choose {
      outline: 2px solid Highlight;
      outline-offset: 2px;
    }
    label.file .chosen {
      overflow-wrap: anywhere;
    }
    /* a table wider than a phone scrolls inside its own box, never the page */
    table {
      display: block;
      max-width: 100%;
      overflow-x: auto;
    }
    /* tap targets of 24 px at least (WCAG 2.5.8), on a phone too: the tables' links and the aliases' summary */
    td a {
      display: inline-block;
      min-height: 24px;
      line-height: 24px;
    }
    summary {
      min-height: 24px;
      line-height: 24px;
    }
    .drop {
      border: 1px dashed currentColor;
      padding: 0.5em;
    }
    .drop.over {
      background: color-mix(in srgb, currentColor 10%, transparent);
    }
    /* a wide table scrolls inside the view, not past the page's edge */
    .wide {
      overflow-x: auto;
      max-width: 100%;
    }
    table {
      border-collapse: collapse;
      font-size: 0.85em;
      margin-top: 0.5em;
    }
    th,
    td {
      padding: 0.15em 0.5em;
      text-align: left;
      vertical-align: top;
    }
    /* Chinese breaks between any two characters: a header, an op's kind and a link keep to one line */
    th,
    td.kind,
    td.link {
      white-space: nowrap;
    }
    td.num {
      text-align: right;
      font-variant-numeric: tabular-nums;
    }
    code {
      font-size: 0.95em;
    }
    .issue {
      color: #b00;
    }
    pre.at {
      margin: 0.2em 0 0;
      font-size: 0.95em;
    }
    details.export summary {
      cursor: pointer;
      white-space: nowrap;
    }
    details.export[open] {
      min-width: 24em;
    }
    details.export code.exported {
      word-break: break-all;
    }
    ul.aliases details.export {
      display: inline-block;
      vertical-align: top;
      margin-left: 0.5em;
    }
    ul.aliases a.play {
      margin-left: 0.5em;
    }
  `;

  result: LsScan | null = null;
  millis = 0;
  failure = '';
  private over = false;
  /** the name of the file last chosen or dropped, shown beside the file button */
  private fileName = '';
  private eng: LayoutscopeModule | null = null;
  /** export boxes the user opened ("op:<index>", "alias:<name>") and the encoding chosen in each */
  private opened = new Set<string>();
  private encodings = new Map<string, LsTritonEncoding>();
  /** the lines of the text last scanned (a CuTe layout's error is drawn under its own line) */
  private lines: string[] = [];

  private get zh() {
    return resolveLang(this.getAttribute('lang')) === 'zh';
  }
  private st(key: ScanKey, vars: Record<string, string | number> = {}) {
    return scanText(key, this.zh, vars);
  }
  /** The engine's own English (a message about text that did not read): kept as written, marked English. */
  private words(text: string) {
    return this.zh ? html`<span lang="en" title=${this.st('engineWords')}>${text}</span>` : text;
  }
  /** An op's kind or note: translated where the view knows the engine's sentence, else the engine's words. */
  private engine(kind: 'kind' | 'note', text: string) {
    if (!text) return nothing;
    return engineText(kind, text, this.zh) ?? this.words(text);
  }
  private onSettings = () => this.requestUpdate();
  override connectedCallback() {
    super.connectedCallback();
    window.addEventListener(SETTINGS_EVENT, this.onSettings);
  }
  override disconnectedCallback() {
    super.disconnectedCallback();
    window.removeEventListener(SETTINGS_EVENT, this.onSettings);
  }

  /** Scans a text; returns the engine's result (also drawn). */
  async scan(text: string): Promise<LsScan | null> {
    const m = await loadEngine();
    this.eng = m;
    const t0 = performance.now();
    const r = m.scanTtgir(text);
    this.lines = text.split('\n');
    this.millis = performance.now() - t0;
    if (!r.ok) {
      this.failure = r.error.message;
      this.result = null;
      return null;
    }
    this.failure = '';
    this.opened.clear();
    this.encodings.clear();
    this.result = r;
    return r;
  }

  /** The engine's export of one layout as a Triton encoding (shape and element width as the dump gives them). */
  private exported(x: Exportable, encoding: LsTritonEncoding): LsResult<{ text: string }> | null {
    if (!this.eng || !x.axe) return null;
    return this.eng.exportTritonEncoding(x.axe, x.shape, encoding, x.elementBits || null);
  }

  /** A closed box "Triton export"; opened, an encoding menu and each layout written in that encoding. */
  private exportBox(key: string, layouts: Exportable[]) {
    const open = this.opened.has(key);
    const encoding = this.encodings.get(key) ?? 'auto';
    return html`<details
      class="export"
      data-key=${key}
      ?open=${open}
      @toggle=${(e: Event) => {
        const now = (e.target as HTMLDetailsElement).open;
        if (now === this.opened.has(key)) return;
        if (now) this.opened.add(key);
        else this.opened.delete(key);
        this.requestUpdate();
      }}
    >
      <summary>${this.st('export')}</summary>
      ${
        open
          ? html`<label
              >${this.st('encoding')}
              <select
                @change=${(e: Event) => {
                  this.encodings.set(key, (e.target as HTMLSelectElement).value as LsTritonEncoding);
                  this.requestUpdate();
                }}
              >
                ${EXPORT_ENCODINGS.map(
                  (name) =>
                    html`<option value=${name} ?selected=${name === encoding}>
                      ${name === 'auto' ? this.st('encodingAuto') : `#ttg.${name}`}
                    </option>`,
                )}
              </select></label
            >
            ${layouts.map((x) => {
              const r = this.exported(x, encoding);
              const label = x.label ? html`<span class="side">${x.label}</span> ` : nothing;
              if (!r)
                return html`<div>${label}<span class="issue">${this.words(x.error || this.st('noShape'))}</span></div>`;
              return r.ok
                ? html`<div>${label}<code class="exported">${r.text}</code></div>`
                : html`<div>${label}<span class="issue">${this.words(r.error.message)}</span></div>`;
            })}`
          : nothing
      }
    </details>`;
  }

  private async onFiles(files: FileList | null | undefined) {
    const file = files?.[0];
    if (!file) return;
    this.fileName = file.name;
    const text = await file.text();
    const area = this.renderRoot.querySelector('textarea');
    if (area) area.value = text;
    await this.scan(text);
  }

  private row(op: LsScanOp, index: number) {
    const link = compareLink(op);
    const side = (label: string, x: LsScanOp['src']): Exportable => ({
      label,
      axe: x.axe,
      shape: x.shape,
      elementBits: x.elementBits,
      error: x.error,
    });
    const shown = (s: LsScanOp['src']) =>
      html`<code>${s.layout || s.type}</code>${s.error ? html`<div class="issue">${this.words(s.error)}</div>` : nothing}`;
    return html`<tr>
      <td class="num">${op.line}</td>
      <td><code>${op.op}</code></td>
      <td class="kind">${this.engine('kind', op.kind)}</td>
      <td>${shown(op.src)} → ${shown(op.dst)}</td>
      <td class="num">${op.sharedBytes || ''}</td>
      <td>${op.instruction}${op.instructions ? ` ×${op.instructions}` : ''}</td>
      <td class="num">${op.wavefronts || op.idealWavefronts ? `${op.wavefronts} (${op.idealWavefronts})` : ''}</td>
      <td class="num">${op.conflicts || ''}</td>
      <td class="link">${link ? html`<a href=${link}>${this.st('compare')}</a>` : nothing}</td>
      <td>
        ${
          op.src.type
            ? this.exportBox(`op:${index}`, [side(this.st('from'), op.src), side(this.st('to'), op.dst)])
            : nothing
        }
      </td>
      <td>${this.engine('note', op.note)}</td>
    </tr>`;
  }

  /** An alias: where it is defined, its text, and (read on the first type that uses it) a link and the export. */
  private aliasItem(a: LsScanAlias) {
    const link = playLink(a);
    const at = a.shape.length ? ` ${a.shape.join('×')}${a.dtype ? ` ${a.dtype}` : ''}` : '';
    return html`<li data-alias=${a.name}>
      <code>#${a.name}</code> ${this.st('aliasAt', { line: a.line, uses: a.uses })}
      <code>${a.text}</code>
      ${link ? html`<a class="play" href=${link}>${this.st('openPlay')}</a><small><code>${at}</code></small>` : nothing}
      ${
        a.shape.length
          ? this.exportBox(`alias:${a.name}`, [
              { label: '', axe: a.axe, shape: a.shape, elementBits: a.elementBits, error: a.error },
            ])
          : html`<small>${this.st('noShape')}</small>`
      }
    </li>`;
  }

  private cuteRow(c: LsScanCuteLayout, issues: LsScan['issues']) {
    const link = playLink(c);
    const source = (this.lines[c.line - 1] ?? '').replace(/\r$/, '');
    // the caret goes under the character the engine's issue names (inside the layout), else the layout's first
    const issue = issues.find((i) => i.line === c.line && i.column >= c.column && i.column < c.column + c.text.length);
    const column = issue ? issue.column : c.column;
    return html`<tr class=${c.error ? 'issue' : ''}>
      <td class="num">${c.line}:${c.column}</td>
      <td><code>${c.text}</code>${c.context ? html` <small>(${c.context})</small>` : nothing}</td>
      <td>
        ${
          c.error
            ? html`<span class="issue">${this.words(c.error)}</span>
                <pre class="at" aria-label=${this.st('atColumn', { n: column })}>${source}\n${' '.repeat(Math.max(0, column - 1))}^</pre>`
            : html`<code class="notation">${c.axe}</code>`
        }
      </td>
      <td class="num">${c.error ? '' : `${c.shape.join('×')} (${c.size})`}</td>
      <td class="link">${link ? html`<a href=${link}>${this.st('openPlay')}</a>` : nothing}</td>
    </tr>`;
  }

  override render() {
    const r = this.result;
    return html`
      <div
        class="view drop ${this.over ? 'over' : ''}"
        @dragover=${(e: DragEvent) => {
          e.preventDefault();
          this.over = true;
          this.requestUpdate();
        }}
        @dragleave=${() => {
          this.over = false;
          this.requestUpdate();
        }}
        @drop=${(e: DragEvent) => {
          e.preventDefault();
          this.over = false;
          void this.onFiles(e.dataTransfer?.files);
        }}
      >
        <label
          >${this.st('input')}
          <textarea
            spellcheck="false"
            @input=${(e: Event) => void this.scan((e.target as HTMLTextAreaElement).value)}
          ></textarea>
        </label>
        <label class="file"
          ><input
            type="file"
            aria-label=${this.st('file')}
            accept=".ttgir,.mlir,.txt"
            @change=${(e: Event) => void this.onFiles((e.target as HTMLInputElement).files)}
          /><span class="choose" aria-hidden="true">${fileButtonText('choose', this.zh)}</span
          ><span class="chosen">${this.fileName || fileButtonText('none', this.zh)}</span></label
        >
      </div>
      ${this.failure ? html`<p class="issue">${this.words(this.failure)}</p>` : nothing}
      ${
        r
          ? html`
            <p class="summary">
              ${this.st('summary', {
                lines: r.lines,
                ms: this.millis.toFixed(1),
                aliases: r.aliases.length,
                ops: r.ops.length,
              })}${r.unknownOps.length ? this.st('summaryUnknown', { n: r.unknownOps.length }) : ''}${
                r.cuteLayouts.length ? this.st('summaryCute', { n: r.cuteLayouts.length }) : ''
              }
            </p>
            ${
              r.cuteLayouts.length
                ? html`<table class="cute">
                  <caption>
                    ${this.st('cuteCaption')}
                  </caption>
                  <thead>
                    <tr>
                      <th>${this.st('lineColumn')}</th>
                      <th>${this.st('asPrinted')}</th>
                      <th>${this.st('notation')}</th>
                      <th>${this.st('shapeSize')}</th>
                      <th></th>
                    </tr>
                  </thead>
                  <tbody>
                    ${r.cuteLayouts.map((c) => this.cuteRow(c, r.issues))}
                  </tbody>
                </table>`
                : nothing
            }
            ${
              r.ops.length || !r.cuteLayouts.length
                ? html`<div class="wide"><table class="ops">
              <thead>
                <tr>
                  <th>${this.st('line')}</th>
                  <th>${this.st('op')}</th>
                  <th>${this.st('moves')}</th>
                  <th>${this.st('layouts')}</th>
                  <th>${this.st('sharedB')}</th>
                  <th>${this.st('instruction')}</th>
                  <th>${this.st('wavefronts')}</th>
                  <th>${this.st('conflicts')}</th>
                  <th></th>
                  <th>${this.st('triton')}</th>
                  <th>${this.st('note')}</th>
                </tr>
              </thead>
              <tbody>
                ${r.ops.map((op, i) => this.row(op, i))}
              </tbody>
            </table></div>`
                : nothing
            }
            <details class="aliases">
              <summary>${this.st('aliases', { n: r.aliases.length })}</summary>
              <ul class="aliases">
                ${r.aliases.map((a) => this.aliasItem(a))}
              </ul>
            </details>
            ${
              r.unknownOps.length || r.issues.length
                ? html`<ul class="issues">
                  ${r.unknownOps.map(
                    (u) => html`<li>
                      ${this.st('unknownOp')} <code>${u.op}</code>
                      ${this.st('unknownAt', { line: u.line, count: u.count })}
                    </li>`,
                  )}
                  ${r.issues.map(
                    (i) => html`<li class="issue">
                      ${this.st('issueAt', { line: i.line, column: i.column })} ${this.words(i.message)}
                    </li>`,
                  )}
                </ul>`
                : nothing
            }
          `
          : nothing
      }
    `;
  }
}

customElements.define('ls-scan', LsScanView);

declare global {
  interface HTMLElementTagNameMap {
    'ls-scan': LsScanView;
  }
}
