// <ls-swizzle-atom>: the swizzle atom of a mode (128B / 64B / 32B / 16 B interleave) for a dtype (f8 / f16 /
// f32): 8 rows x N bytes. Left: logical element positions; right: where the engine's swizzle puts them.
// The same permutation spelled as TIRx ComposeLayout, CuTe Swizzle<B,M,S> and the PTX mode, in bytes and
// in elements (from swizzle_atom).
import { html } from 'lit';
import { must, type LsSwizzleAtom } from '../core/engine.js';
import { LsFigure } from '../core/figure.js';
import type { Item, Scene } from '../core/scene.js';
import type { Palette } from '../core/theme.js';
import { cell, label, legend, small } from './draw.js';

const MODES = ['128B', '64B', '32B', 'interleave'] as const;
const DTYPES = ['f8', 'f16', 'f32'] as const;

export class LsSwizzleAtom_ extends LsFigure {
  static override properties = {
    ...LsFigure.properties,
    mode: { type: String },
    dtype: { type: String },
    swizzle: { type: String },
    hover: { state: true },
  };
  mode: string = '128B';
  /** The embedding attribute: the swizzle mode (128B, 64B, 32B, interleave); same as mode. */
  swizzle = '';
  dtype: string = 'f16';
  hover: number | null = null;
  protected readonly defaultKey = 'atom';
  private atom?: LsSwizzleAtom;
  /** physical offset of each logical element offset, and the inverse */
  private to: number[] = [];
  private from: number[] = [];

  protected title_() {
    return `${this.atom?.mode ?? ''} ${this.dtype} atom`;
  }
  protected override extraState() {
    return { mode: this.mode, dtype: this.dtype };
  }
  protected override applyExtraState(s: Record<string, string>) {
    if (s.mode && (MODES as readonly string[]).includes(s.mode)) this.mode = s.mode;
    if (s.dtype && (DTYPES as readonly string[]).includes(s.dtype)) this.dtype = s.dtype;
  }

  protected override recompute() {
    if (!this.eng) return;
    if (this.swizzle && (MODES as readonly string[]).includes(this.swizzle)) {
      this.mode = this.swizzle;
      this.swizzle = '';
    }
    this.atom = must(this.eng.swizzleAtom(this.mode, this.dtype));
    const n = this.atom.rows * this.atom.elementsPerRow;
    const sw = must(
      this.eng.applySwizzle(
        this.atom.elements,
        Array.from({ length: n }, (_, o) => o),
      ),
    );
    this.to = sw.offsets;
    this.from = sw.inverse;
    // a selection or hover from the previous atom may lie outside this one (f16 128B has 512 elements, f32 32B 64)
    if (this.selection && !(this.offsetOf(this.selection)! < n)) this.selection = null;
    if (this.hover !== null && !(this.hover < n)) this.hover = null;
  }

  /** The element offset of a hit key "E:72", or null. */
  private offsetOf(hit: string | null): number | null {
    const m = hit ? /^E:(\d+)$/.exec(hit) : null;
    return m ? Number(m[1]) : null;
  }

  private set(k: 'mode' | 'dtype', v: string) {
    this[k] = v;
    this.selection = null;
    this.hover = null;
    this.recompute();
    this.saveState();
    this.requestUpdate();
  }

  private focusOffset(): number | null {
    const o = this.hover ?? this.offsetOf(this.selection);
    return o !== null && o < this.to.length ? o : null;
  }

  protected navGrid(): string[][] {
    const a = this.atom;
    if (!a) return [];
    return Array.from({ length: a.rows }, (_, r) =>
      Array.from({ length: a.elementsPerRow }, (_, c) => `E:${r * a.elementsPerRow + c}`),
    );
  }

  protected buildScene(p: Palette): Scene {
    const items: Item[] = [];
    const a = this.atom!;
    const epr = a.elementsPerRow;
    const chunk = Math.max(1, 16 / a.dtypeBytes); // elements per 16 B granule
    const cw = Math.max(4, Math.min(34, Math.floor(520 / epr)));
    const ch = 26,
      oy = 48,
      ox = 40;
    const px = ox + epr * cw + 50;
    const f = this.focusOffset();
    const cur = this.cursorHit();
    label(items, p, ox, 14, this.tr('before'));
    label(items, p, px, 14, this.tr('after'));
    small(items, p, ox, 32, `${a.rows} × ${a.rowBytes} B = ${a.rows} × ${epr} ${a.dtype}`, 'start');
    const side = (x0: number, physical: boolean) => {
      for (let r = 0; r < a.rows; ++r) {
        small(items, p, x0 - 8, oy + r * ch + ch / 2, String(r), 'end');
        for (let c = 0; c < epr; ++c) {
          const slot = r * epr + c;
          const o = physical ? this.from[slot] : slot; // logical element drawn here
          const lc = o % epr;
          cell(items, p, x0 + c * cw, oy + r * ch, cw, ch, p.cat[Math.floor(lc / chunk) % 8], {
            hit: `E:${o}`,
            title: physical
              ? `slot (${r}, ${c}) holds (${Math.floor(o / epr)}, ${lc})`
              : `(${r}, ${c}) ${this.tr('remapped')} (${Math.floor(this.to[o] / epr)}, ${this.to[o] % epr})`,
            label: cw >= 16 ? String(lc) : undefined,
            labelSize: 10,
            selected: f === o,
            cursor: !physical && cur === `E:${o}`,
          });
        }
      }
    };
    side(ox, false);
    side(px, true);
    const ly = legend(items, p, ox, oy + a.rows * ch + 24, [
      { fill: p.cat[0], text: this.tr('lgAtomChunk') },
      { text: this.tr('lgAtomNumbers') },
      { stroke: p.select, text: this.tr('lgSelected') },
    ]);
    return { width: px + epr * cw + 20, height: ly, background: p.bg, items };
  }

  private remapText(): string {
    const o = this.focusOffset();
    const a = this.atom;
    if (o === null || !a) return '';
    const epr = a.elementsPerRow;
    return `(${Math.floor(o / epr)}, ${o % epr}) ${this.tr('remapped')} (${Math.floor(this.to[o] / epr)}, ${this.to[o] % epr}); offset ${o} → ${this.to[o]}`;
  }

  protected announce(): string {
    return this.focusOffset() === null ? this.tr('noSelection') : this.remapText();
  }

  protected details() {
    const a = this.atom!;
    const sp = (s: {
      bits: number;
      base: number;
      shift: number;
    }) => html`CuTe <code>Swizzle&lt;${s.bits},${s.base},${s.shift}&gt;</code>, TIRx
      <code>ComposeLayout(per_element=${s.base}, swizzle_len=${s.bits}, atom_len=${s.shift}, …)</code>`;
    return html`<p class="remap mono">${this.remapText() || this.tr('noSelection')}</p>
      <p>PTX: <code class="ptx">${a.mode}</code> · ${a.rows} × ${a.rowBytes} B</p>
      <p>${this.tr('inBytes')}: ${sp(a.bytes)}</p>
      <p>${this.tr('inElements')} (${a.dtype}): ${sp(a.elements)}</p>`;
  }

  protected exportData() {
    return { mode: this.atom?.mode, dtype: this.dtype, atom: this.atom, physicalOffsetOfElement: this.to };
  }

  private onMove(e: PointerEvent) {
    const el = (e.composedPath()[0] as Element | undefined)?.closest?.('[data-hit]');
    const v = el ? Number(el.getAttribute('data-hit')!.split(':')[1]) : null;
    if (v !== this.hover) this.hover = v;
  }

  protected override renderView() {
    return html`<div @pointermove=${this.onMove} @pointerleave=${() => (this.hover = null)}>${super.renderView()}</div>`;
  }

  protected override controls() {
    return html`<label>${this.tr('atomMode')}
        <select class="mode" @change=${(e: Event) => this.set('mode', (e.target as HTMLSelectElement).value)}>
          ${MODES.map((m) => html`<option value=${m} ?selected=${this.mode === m}>${m === 'interleave' ? '16B interleave' : `SWIZZLE_${m}`}</option>`)}
        </select></label
      >
      <label>${this.tr('dtype')}
        <select class="dtype" @change=${(e: Event) => this.set('dtype', (e.target as HTMLSelectElement).value)}>
          ${DTYPES.map((d) => html`<option value=${d} ?selected=${this.dtype === d}>${d}</option>`)}
        </select></label
      >`;
  }
}

customElements.define('ls-swizzle-atom', LsSwizzleAtom_);
