// <ls-mesh>: a 2x2 GPU mesh in three modes (fully sharded, shard + replica, shard + offset). Each device
// shows its local memory (@m, 8 per row); a cell -> the devices holding it and its local offset.
import { html } from 'lit';
import { must, position, type LsMapping, type LsTable } from '../engine.js';
import { LsFigure } from '../figure.js';
import type { Item, Scene } from '../scene.js';
import type { Palette } from '../theme.js';
import { cell, label, legend, small } from './draw.js';
import { mappingOf, selectedElements } from './selection.js';

const BASE = 'S[(2,4,8):(1@gpuid_y,8@m,1@m)]';
export const MESH_MODES = {
  sharded: 'S[(2,4,2,4):(1@gpuid_y,4@m,1@gpuid_x,1@m)]',
  replica: `${BASE} + R[2:1@gpuid_x]`,
  offset: `${BASE} + O[1@gpuid_x]`,
} as const;
type MeshMode = keyof typeof MESH_MODES;

export class LsMesh extends LsFigure {
  static override properties = { ...LsFigure.properties, mode: { type: String } };
  mode: MeshMode = 'replica';
  shape = '2,4,8';
  protected readonly defaultKey = 'mesh';
  private t?: LsTable;
  private ax = { x: 0, y: 0, m: 0 };
  private hl = new Set<number>();
  private mapping?: LsMapping;

  get layout() {
    return MESH_MODES[this.mode] ?? MESH_MODES.replica;
  }
  protected title_() {
    return `${this.tr('mesh')}: ${this.layout}`;
  }
  protected override extraState() {
    return { mode: this.mode };
  }
  protected override applyExtraState(s: Record<string, string>) {
    if (s.mode && s.mode in MESH_MODES) this.mode = s.mode as MeshMode;
  }

  protected override recompute() {
    if (!this.eng) return;
    this.t = must(this.eng.table(this.layout, this.shape));
    const a = this.t.axes;
    this.ax = { x: a.indexOf('gpuid_x'), y: a.indexOf('gpuid_y'), m: a.indexOf('m') };
    this.selectionChanged();
  }

  protected override selectionChanged() {
    this.hl.clear();
    this.mapping = undefined;
    if (!this.selection || !this.eng) return;
    this.hl = selectedElements(this.eng, this.layout, this.shape, this.selection, ([x, y, m]) => ({
      gpuid_x: x,
      gpuid_y: y,
      m,
    }));
    if (this.hl.size === 1) this.mapping = mappingOf(this.eng, this.layout, this.shape, [...this.hl][0]);
  }

  private setMode(m: MeshMode) {
    this.mode = m;
    this.recompute();
    this.saveState();
    this.requestUpdate();
  }

  private val(pos: number[], i: number) {
    return i >= 0 ? pos[i] : 0;
  }

  protected navGrid(): string[][] {
    // logical (y, row, col): rows of 8 columns, the two y-blocks side by side
    return Array.from({ length: 4 }, (_, row) => {
      const out: string[] = [];
      for (let y = 0; y < 2; ++y) for (let col = 0; col < 8; ++col) out.push(`L:${y * 32 + row * 8 + col}`);
      return out;
    });
  }

  protected buildScene(p: Palette): Scene {
    const items: Item[] = [];
    const t = this.t!;
    const cur = this.cursorHit();
    const cs = 24,
      ox = 30,
      oy = 52;
    label(items, p, ox, 14, this.tr('logicalTensor'));
    for (let y = 0; y < 2; ++y) small(items, p, ox + y * (8 * cs + 20) + 4 * cs, oy - 12, `y = ${y}`);
    for (let x = 0; x < t.elements; ++x) {
      const y = Math.floor(x / 32),
        row = Math.floor(x / 8) % 4,
        col = x % 8;
      const pos = position(t, x, 0);
      cell(
        items,
        p,
        ox + y * (8 * cs + 20) + col * cs,
        oy + row * cs,
        cs,
        cs,
        p.cat[(this.val(pos, this.ax.y) * 2 + this.val(pos, this.ax.x)) % 8],
        {
          hit: `L:${x}`,
          title: `(${y}, ${row}, ${col})`,
          label: String(x),
          labelSize: 10,
          selected: this.hl.has(x),
          cursor: cur === `L:${x}`,
        },
      );
    }
    // devices
    const dx = ox,
      dy = oy + 4 * cs + 56,
      dc = 22;
    label(items, p, dx, dy - 26, this.tr('mesh'));
    const maxM = t.max[this.ax.m];
    const rows = Math.ceil((maxM + 1) / 8);
    const dw = 8 * dc + 24,
      dh = rows * dc + 30;
    const held = new Map<string, number[]>();
    for (let x = 0; x < t.elements; ++x)
      for (let r = 0; r < t.replicas; ++r) {
        const pos = position(t, x, r);
        const key = `${this.val(pos, this.ax.x)}:${this.val(pos, this.ax.y)}:${pos[this.ax.m]}`;
        held.set(key, [...(held.get(key) ?? []), x]);
      }
    for (let gy = 0; gy < 2; ++gy)
      for (let gx = 0; gx < 2; ++gx) {
        const bx = dx + gx * (dw + 24),
          by = dy + gy * (dh + 16);
        const holds = [...this.hl].some((x) =>
          [...held.entries()].some(([k, v]) => k.startsWith(`${gx}:${gy}:`) && v.includes(x)),
        );
        items.push({
          t: 'rect',
          x: bx,
          y: by,
          w: dw,
          h: dh,
          fill: p.bg,
          stroke: holds ? p.select : p.grid,
          sw: holds ? 3 : 1,
          rx: 6,
        });
        small(items, p, bx + 10, by + 13, `GPU (gpuid_x=${gx}, gpuid_y=${gy})`, 'start');
        for (let m = 0; m <= maxM; ++m) {
          const xs = held.get(`${gx}:${gy}:${m}`);
          const X = bx + 12 + (m % 8) * dc,
            Y = by + 24 + Math.floor(m / 8) * dc;
          const x0 = xs?.[0];
          // the element's colour, as in the logical view (the device of its first replica): a replica has the colour
          // of the element it copies, whichever device holds it
          const home = x0 === undefined ? [] : position(t, x0, 0);
          cell(
            items,
            p,
            X,
            Y,
            dc,
            dc,
            x0 === undefined ? p.cell : p.cat[(this.val(home, this.ax.y) * 2 + this.val(home, this.ax.x)) % 8],
            {
              hit: `D:${gx}:${gy}:${m}`,
              title: `${this.tr('device')} (${gx}, ${gy}) m=${m}${x0 !== undefined ? `: x=${x0}` : ''}`,
              label: x0 === undefined ? '' : String(x0),
              labelSize: 9,
              selected: x0 !== undefined && xs!.some((x) => this.hl.has(x)),
            },
          );
        }
      }
    const ly = legend(items, p, ox, dy + 2 * (dh + 16) + 14, [
      { fill: p.cat[0], text: this.tr('lgMeshColour') },
      { text: this.tr('lgMeshNumbers') },
      { stroke: p.select, text: this.tr('lgMeshHolds') },
    ]);
    return {
      width: Math.max(ox + 2 * (8 * cs + 20), dx + 2 * (dw + 24)) + 10,
      height: ly,
      background: p.bg,
      items,
    };
  }

  private devicesText(): string {
    const f = this.mapping;
    if (!f) return '';
    const devs = f.positions.map((q) => `(${this.val(q, this.ax.x)}, ${this.val(q, this.ax.y)})`);
    const ms = [...new Set(f.positions.map((q) => q[this.ax.m]))];
    return `${this.tr('devices')} {${devs.join(', ')}}, ${this.tr('localOffset')} = ${ms.join(', ')}`;
  }

  protected announce(): string {
    if (!this.selection) return this.tr('noSelection');
    const f = this.mapping;
    if (!f) return `${[...this.hl].join(', ')}`;
    return `${this.tr('element')} (${f.coord.join(', ')}) → ${this.devicesText()}`;
  }

  protected details() {
    const f = this.mapping;
    if (!f) return html`<p>${this.selection ? this.announce() : this.tr('noSelection')}</p>`;
    return html`<p class="mono devices">Element (${f.coord.join(', ')}) → ${this.devicesText()}</p>
      <p class="mono derivation">${f.derivation}</p>`;
  }

  protected exportData() {
    const t = this.t!;
    return {
      layout: this.layout,
      mode: this.mode,
      shape: t.shape,
      axes: t.axes,
      elements: t.elements,
      replicas: t.replicas,
      values: Array.from(t.values),
    };
  }

  protected override controls() {
    const modes: [MeshMode, 'fullySharded' | 'shardReplica' | 'shardOffset'][] = [
      ['sharded', 'fullySharded'],
      ['replica', 'shardReplica'],
      ['offset', 'shardOffset'],
    ];
    return html`<span role="group" aria-label=${this.tr('mode')}>
        ${modes.map(([m, k]) => html`<button type="button" class="mode-${m}" aria-pressed=${this.mode === m} @click=${() => this.setMode(m)}>${this.tr(k)}</button> `)}
      </span>
      <span class="mono">${this.layout}</span>`;
  }
}

customElements.define('ls-mesh', LsMesh);
