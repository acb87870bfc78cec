// The base of every <ls-*> figure: engine loading, one tab stop with arrow/Enter/Esc navigation, a live
// region, state in the URL fragment, export (SVG, PNG, JSON), theme and language. A figure supplies its
// scene (what to draw, computed by the engine), the grid of keyboard targets, and what a selection means.
import { LitElement, css, html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { controlStyles } from './control-styles.js';
import { saveFile } from './save-file.js';
import { styleProps } from './style-props.js';
import { unsafeSVG } from 'lit/directives/unsafe-svg.js';
import { engine, EngineError, type Engine } from './engine.js';
import { resolveLang, t, type Lang, type StringKey } from '../i18n/strings.js';
import { drawScene, hitTest, sceneToPng, sceneToSvg, type Scene } from './scene.js';
import { readState, writeState } from './state.js';
import { PALETTES, resolveTheme, watchHostTheme, type Palette } from './theme.js';
import { SETTINGS_EVENT } from './settings-event.js';
import { shownFirst } from './first-figure.js';

export { SETTINGS_EVENT };

// Figures are computed and drawn one per task: those in (or near) the viewport first, as they come into view, the
// rest one per idle period. A page of eight figures never draws them all in one long task, and the first figure
// is interactive as soon as it alone is drawn.
const pending = new Map<Element, () => void>();
let idleQueued = false;
const observer =
  typeof IntersectionObserver === 'function'
    ? new IntersectionObserver(
        (entries) => {
          for (const e of entries) {
            if (!e.isIntersecting) continue;
            const run = pending.get(e.target);
            if (run) {
              pending.delete(e.target);
              observer!.unobserve(e.target);
              inView.push(run);
            }
          }
          startPump();
        },
        { rootMargin: '300px 0px' },
      )
    : undefined;
// Figures that came into view: one per task, each after the previous one has been painted, so that the first is
// on screen (and clickable) before the next is computed.
const inView: (() => void)[] = [];
let pumping = false;
function pump() {
  const next = inView.shift();
  if (!next) {
    pumping = false;
    return;
  }
  pumping = true;
  next();
  requestAnimationFrame(() => setTimeout(pump, 0));
}
function startPump() {
  if (!pumping && inView.length) {
    pumping = true;
    setTimeout(pump, 0);
  }
}
const idle = (f: () => void) =>
  'requestIdleCallback' in window ? requestIdleCallback(f, { timeout: 2000 }) : setTimeout(f, 50);
function drainIdle() {
  idleQueued = false;
  const first = pending.entries().next();
  if (first.done) return;
  const [el, run] = first.value;
  pending.delete(el);
  observer?.unobserve(el);
  run();
  if (pending.size) {
    idleQueued = true;
    idle(drainIdle);
  }
}
let drewFirst = false;
function schedule(el: Element, work: () => void) {
  // each figure's first computation and render is a named measure in the performance timeline (bench.mjs reads it)
  const run = () => {
    const t0 = performance.now();
    work();
    void (el as LitElement).updateComplete.then(() =>
      performance.measure(`ls-first-render ${el.localName}`, { start: t0, end: performance.now() }),
    );
  };
  if (!observer) return run();
  // The first figure the engine arrives for, when it is on screen (or the figure the page names, first-figure.ts),
  // is drawn in this very task: the observer's first report would come only after the next frame's layout, a frame
  // before anything is interactive.
  const named = shownFirst();
  if (named ? named === el : !drewFirst) {
    drewFirst = true;
    if (named) return run();
    const r = el.getBoundingClientRect();
    if (r.bottom > 0 && r.top < innerHeight && r.right > 0 && r.left < innerWidth) return run();
  }
  pending.set(el, run);
  observer.observe(el);
  if (!idleQueued) {
    idleQueued = true;
    // the figures out of view: after the first paint, one per idle period
    requestAnimationFrame(() => setTimeout(() => idle(drainIdle), 0));
  }
}

export abstract class LsFigure extends LitElement {
  static override properties = {
    theme: { type: String, reflect: true },
    lang: { type: String, reflect: true },
    selection: { type: String },
    stateKey: { type: String, attribute: 'state-key' },
    cursor: { state: true },
    eng: { state: true },
    failure: { state: true },
    inputError: { state: true },
  };

  static override styles = [
    controlStyles,
    css`
    :host {
      max-width: 100%;
    }
    .bar {
      display: flex;
      flex-wrap: wrap;
      gap: 0.4rem 0.8rem;
      align-items: center;
      margin: 0 0 0.5rem;
    }
    .bar .spacer {
      flex: 1;
    }
    .bar > * {
      max-width: 100%;
      min-width: 0;
    }
    .bar > form {
      display: flex;
      flex-wrap: wrap;
      gap: 0.4rem 0.8rem;
      align-items: center;
    }
    label {
      display: inline-flex;
      gap: 0.3rem;
      align-items: center;
    }
    .view {
      overflow: auto;
      max-width: 100%;
      border-radius: 4px;
      outline-offset: 2px;
    }
    .view:focus-visible {
      outline: 3px solid var(--ls-accent, #0062a0);
    }
    .view svg,
    .view canvas {
      display: block;
      max-width: 100%;
      height: auto;
    }
    .view [data-hit] {
      cursor: pointer;
    }
    .details {
      margin-top: 0.5rem;
      min-height: 3.5em;
    }
    .details p {
      margin: 0.2rem 0;
    }
    .error {
      color: var(--ls-error, #b00020);
    }
    .pre {
      white-space: pre;
    }
    .full {
      flex-basis: 100%;
    }
    .sr {
      position: absolute;
      width: 1px;
      height: 1px;
      overflow: hidden;
      clip: rect(0 0 0 0);
      white-space: nowrap;
    }
  `,
  ];

  theme?: string;
  override lang = '';
  selection: string | null = null;
  stateKey = '';
  cursor: [number, number] = [0, 0];
  eng?: Engine;
  protected failure = '';
  /** What is wrong with the inputs (an attribute, the URL fragment, a form), shown in place of the figure. */
  protected inputError?: InputError;
  protected scene?: Scene;

  /** Prefix of this figure's keys in the URL fragment (the state-key attribute overrides it). */
  protected abstract readonly defaultKey: string;
  /** The figure's name for titles and the accessible label. */
  protected abstract title_(): string;
  /** What to draw; called on every render once the engine is loaded. */
  protected abstract buildScene(p: Palette): Scene;
  /** Keyboard targets as rows of hit keys; arrows move between them. */
  protected abstract navGrid(): string[][];
  /** The live-region sentence for the current selection. */
  protected abstract announce(): string;
  /** Text under the figure: the engine's derivation for the selection. */
  protected abstract details(): TemplateResult | typeof nothing;
  /** The mapping table for the JSON export. */
  protected abstract exportData(): unknown;

  /** Figure-specific controls (selectors) shown in the bar. */
  protected controls(): TemplateResult | typeof nothing {
    return nothing;
  }
  /** Extra state (besides the selection) kept in the URL fragment. */
  protected extraState(): Record<string, string | number | null> {
    return {};
  }
  protected applyExtraState(_s: Record<string, string>): void {}
  /** Called once the engine is there, and whenever inputs change: recompute cached engine results. */
  protected recompute(): void {}
  /** Called when the selection changes without the inputs (a click, the keyboard, the URL fragment or the
   * selection attribute): refresh what the figure derives from the selection. Figures whose recompute() depends
   * on the selection call this at its end too. */
  protected selectionChanged(): void {}
  /** Draw on a canvas instead of SVG (large figures, and any scene holding a raster). */
  protected useCanvas(): boolean {
    const items = this.scene?.items ?? [];
    return items.length > 6000 || items.some((it) => it.t === 'image');
  }

  get key(): string {
    return this.stateKey || this.id || this.defaultKey;
  }
  get language(): Lang {
    return resolveLang(this.lang);
  }
  tr(key: StringKey): string {
    return t(this.language, key);
  }
  get palette(): Palette {
    return PALETTES[resolveTheme(this.theme)];
  }

  private onSettings = () => this.requestUpdate();
  private onHash = () => this.loadState();
  private media = window.matchMedia?.('(prefers-color-scheme: dark)');

  override connectedCallback(): void {
    super.connectedCallback();
    window.addEventListener(SETTINGS_EVENT, this.onSettings);
    // a docs site that switches light/dark re-renders every figure (no inline style: CSSOM and re-render only)
    watchHostTheme(() => window.dispatchEvent(new Event(SETTINGS_EVENT)));
    window.addEventListener('hashchange', this.onHash);
    this.media?.addEventListener?.('change', this.onSettings);
    engine().then(
      (e) =>
        schedule(this, () => {
          if (!this.isConnected) return;
          this.eng = e;
          this.loadState();
          this.dispatchEvent(new CustomEvent('ls-ready', { bubbles: true, composed: true }));
        }),
      (err) => {
        this.failure = `The layout engine (WebAssembly) failed to load: ${err}`;
      },
    );
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    window.removeEventListener(SETTINGS_EVENT, this.onSettings);
    window.removeEventListener('hashchange', this.onHash);
    this.media?.removeEventListener?.('change', this.onSettings);
  }

  /** The fragment wins over the selection attribute; with neither, nothing is selected. */
  private loadState() {
    const s = readState(this.key);
    this.applyExtraState(s);
    if (s.sel !== undefined) this.selection = s.sel;
    this.safely(() => this.recompute());
    this.syncCursor();
  }

  /** Runs a recomputation; an error (a bad attribute, a bad layout) becomes the figure's inline message instead
   * of an exception out of an event handler or a promise. */
  protected safely(f: () => void): boolean {
    try {
      f();
      this.inputError = undefined;
      return true;
    } catch (err) {
      this.inputError = inputErrorOf(err, this);
      return false;
    }
  }

  /** Attributes that must be present and non-empty when given (an empty `layout=""` says so). */
  protected requiredAttributes(): string[] {
    return [];
  }

  saveState() {
    writeState(this.key, { ...this.extraState(), sel: this.selection });
  }

  /** Select a hit key (null clears); figures override to react, then call super. */
  select(hit: string | null) {
    this.selection = hit;
    this.syncCursor();
    this.saveState();
  }

  private syncCursor() {
    if (!this.selection) return;
    const at = this.navFind(this.selection);
    if (at) this.cursor = at;
  }

  // Keyboard targets through four questions, answered from navGrid() by default; a figure with a million cells
  // answers them by arithmetic instead of building the grid's strings.
  /** Rows of keyboard targets. */
  protected navRows(): number {
    return this.navGrid().length;
  }
  /** Targets in row r. */
  protected navCols(r: number): number {
    return this.navGrid()[r]?.length ?? 0;
  }
  /** The hit key at (r, c). */
  protected navAt(r: number, c: number): string | null {
    return this.navGrid()[r]?.[c] ?? null;
  }
  /** Where a hit key is in the grid, or null. */
  protected navFind(hit: string): [number, number] | null {
    const grid = this.navGrid();
    for (let r = 0; r < grid.length; ++r) {
      const c = grid[r].indexOf(hit);
      if (c >= 0) return [r, c];
    }
    return null;
  }

  /** The hit key under the keyboard cursor (only while the view has focus). */
  cursorHit(): string | null {
    if (!this.focused) return null;
    const rows = this.navRows();
    if (!rows) return null;
    const r = Math.min(this.cursor[0], rows - 1);
    const cols = this.navCols(r);
    return cols ? this.navAt(r, Math.min(this.cursor[1], cols - 1)) : null;
  }
  protected focused = false;

  private onKey(e: KeyboardEvent) {
    this.focused = true;
    const rows = this.navRows();
    if (!rows) return;
    let [r, c] = this.cursor;
    switch (e.key) {
      case 'ArrowUp':
        r = Math.max(0, r - 1);
        break;
      case 'ArrowDown':
        r = Math.min(rows - 1, r + 1);
        break;
      case 'ArrowLeft':
        c = Math.max(0, c - 1);
        break;
      case 'ArrowRight':
        c = Math.min(this.navCols(r) - 1, c + 1);
        break;
      case 'Home':
        c = 0;
        break;
      case 'End':
        c = this.navCols(r) - 1;
        break;
      case 'Enter':
      case ' ':
        this.select(this.cursorHit());
        e.preventDefault();
        return;
      case 'Escape':
        this.select(null);
        e.preventDefault();
        return;
      default:
        return;
    }
    e.preventDefault();
    c = Math.min(c, this.navCols(r) - 1);
    this.cursor = [r, c];
  }

  /** The hit under the pointer when it went down. A selection is made on pointerup over the same hit:
   * re-rendering between down and up replaces the SVG nodes, after which Chromium sends no click. */
  private downHit: string | null = null;
  private hitOf(e: Event): string | null {
    for (const el of e.composedPath())
      if (el instanceof Element && el.hasAttribute('data-hit')) return el.getAttribute('data-hit');
    return null;
  }
  private onViewDown(e: PointerEvent) {
    this.downHit = this.hitOf(e);
  }
  private onViewUp(e: PointerEvent) {
    const hit = this.hitOf(e);
    if (hit && hit === this.downHit) this.select(hit);
    this.downHit = null;
  }

  protected onViewClick(e: MouseEvent) {
    const path = e.composedPath();
    for (const el of path) {
      if (el instanceof Element && el.hasAttribute('data-hit')) return; // handled on pointerup
      if (el instanceof HTMLCanvasElement && this.scene) {
        const rect = el.getBoundingClientRect();
        const x = ((e.clientX - rect.left) * this.scene.width) / rect.width;
        const y = ((e.clientY - rect.top) * this.scene.height) / rect.height;
        const hit = this.canvasHit(x, y);
        if (hit) this.select(hit);
        return;
      }
    }
  }

  protected canvasHit(x: number, y: number): string | null {
    return (this.scene && hitTest(this.scene, x, y)?.hit) || null;
  }

  // ---- export ----------------------------------------------------------------------------------------

  exportSvg(): string {
    const scene = this.scene ?? this.buildScene(this.palette);
    return sceneToSvg(scene, this.title_());
  }
  exportPng(): string {
    return sceneToPng(this.scene ?? this.buildScene(this.palette));
  }
  exportJson(): string {
    return JSON.stringify(this.exportData(), null, 1);
  }
  private download(ext: string) {
    const svg = ext === 'svg';
    saveFile(
      `layoutscope-${this.key}.${ext}`,
      ext === 'png'
        ? this.exportPng()
        : new Blob([svg ? this.exportSvg() : this.exportJson()], { type: svg ? 'image/svg+xml' : 'application/json' }),
    );
  }

  // ---- render ----------------------------------------------------------------------------------------

  /** Attributes that change what the engine computes: a change after load recomputes (embedding hosts set them). */
  private static readonly INPUTS = [
    'layout',
    'shape',
    'dtype',
    'swizzle',
    'compare',
    'access',
    'mode',
    'datapath',
    'n',
    'writer',
    'reader',
    'tile',
    'reshard',
    'mesh',
    'from',
  ];
  protected override willUpdate(changed: PropertyValues) {
    super.willUpdate(changed);
    if (!this.eng || changed.has('eng')) return; // the engine's arrival runs loadState and recompute itself
    if (LsFigure.INPUTS.some((k) => changed.has(k as keyof LsFigure))) this.safely(() => this.recompute());
    else if (changed.has('selection')) this.safely(() => this.selectionChanged());
  }

  protected override updated(changed: PropertyValues) {
    super.updated(changed);
    const canvas = this.renderRoot.querySelector('canvas.scene') as HTMLCanvasElement | null;
    if (canvas && this.scene) this.paintCanvas(canvas, this.scene);
  }

  protected paintCanvas(canvas: HTMLCanvasElement, scene: Scene) {
    const dpr = Math.min(2, window.devicePixelRatio || 1);
    if (canvas.width !== scene.width * dpr) {
      canvas.width = scene.width * dpr;
      canvas.height = scene.height * dpr;
    }
    const ctx = canvas.getContext('2d')!;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    drawScene(ctx, scene);
  }

  protected renderView(): TemplateResult {
    const scene = this.scene!;
    if (this.useCanvas())
      return html`<canvas class="scene" role="img" aria-label=${this.title_()} ${styleProps({ width: `${scene.width}px` })}></canvas>`;
    return html`${unsafeSVG(sceneToSvg(scene))}`;
  }

  override render() {
    if (this.failure) return html`<p class="error" role="alert">${this.failure}</p>`;
    if (!this.eng) return html`<p>${this.tr('loading')}</p>`;
    const missing = this.requiredAttributes().find((a) => this.hasAttribute(a) && !(this.getAttribute(a) ?? '').trim());
    if (missing)
      return renderInputError({
        message: `the ${missing} attribute is empty; it is required (${this.localName} ${missing}="…")`,
        field: missing,
        text: '',
        column: 0,
      });
    if (this.inputError) return renderInputError(this.inputError);
    const p = this.palette;
    this.style.setProperty('--ls-fg', p.fg);
    try {
      this.scene = this.buildScene(p);
    } catch (err) {
      return renderInputError(inputErrorOf(err, this));
    }
    const live = this.announce();
    return html`
      <div class="bar">
        ${this.controls()}
        <span class="spacer"></span>
        <button type="button" class="export-svg" @click=${() => this.download('svg')}>${this.tr('exportSvg')}</button>
        <button type="button" class="export-png" @click=${() => this.download('png')}>${this.tr('exportPng')}</button>
        <button type="button" class="export-json" @click=${() => this.download('json')}>${this.tr('exportJson')}</button>
      </div>
      <div
        class="view"
        tabindex="0"
        role="application"
        aria-roledescription="interactive figure"
        aria-label=${this.title_()}
        ${styleProps({ background: p.bg })}
        @keydown=${this.onKey}
        @pointerdown=${this.onViewDown}
        @pointerup=${this.onViewUp}
        @click=${this.onViewClick}
        @focus=${(e: FocusEvent) => {
          // the keyboard cursor is drawn only for keyboard focus (a mouse focus must not re-render)
          this.focused = (e.target as Element).matches(':focus-visible');
          if (this.focused) this.requestUpdate();
        }}
        @keyup=${() => {
          if (!this.focused) {
            this.focused = true;
            this.requestUpdate();
          }
        }}
        @blur=${() => {
          this.focused = false;
          this.requestUpdate();
        }}
      >
        ${this.renderView()}
      </div>
      <div class="details">${this.details()}</div>
      <div class="sr live" aria-live="polite" aria-atomic="true">${live}</div>
    `;
  }
}

/** An input problem as the figure shows it: the message, and the text it is about with a caret under the column. */
export interface InputError {
  message: string;
  /** the attribute or field at fault ("layout", "shape", ...), or empty */
  field: string;
  /** the text the column refers to (empty: no caret) */
  text: string;
  column: number;
}

/** An exception from a recomputation as an InputError: an EngineError's column is placed under the attribute the
 * error names ("shape: ..." or the engine's field), else under `layout`. */
export function inputErrorOf(err: unknown, host: Element): InputError {
  if (err instanceof EngineError) {
    const d = err.detail;
    const field = d.field === 'shape' ? 'shape' : d.column > 0 ? 'layout' : d.field;
    const text =
      d.column > 0
        ? (host.getAttribute(field) ?? (host as unknown as Record<string, unknown>)[field]?.toString() ?? '')
        : '';
    return { message: d.message, field, text, column: d.column };
  }
  const message = err instanceof Error ? err.message : String(err);
  const m = /^(\w+): /.exec(message);
  return { message: m ? message.slice(m[0].length) : message, field: m ? m[1] : '', text: '', column: 0 };
}

export function renderInputError(e: InputError): TemplateResult {
  const where = e.field ? html`<strong>${e.field}</strong>: ` : nothing;
  if (!e.text || e.column <= 0) return html`<p class="error input-error" role="alert">${where}${e.message}</p>`;
  return html`<div class="error input-error" role="alert">
    <code class="pre">${e.text}</code><br /><code class="pre">${' '.repeat(e.column - 1)}^</code>
    <p>${where}column ${e.column}: ${e.message}</p>
  </div>`;
}
