// <ls-mesh>: a 2x2 GPU mesh in three modes (fully sharded, shard + replica, shard + offset). Each device
// shows its local memory (@m, 8 per row); a cell -> the devices holding it and its local offset.
// "Reshard to" another mode draws both shardings side by side and the engine's plan (planReshard): each step's
// collective with arrows between the devices of each group, and the bytes every device holds before and after.
import { html } from 'lit';
import {
  must,
  position,
  type LsMapping,
  type LsReshardPlan,
  type LsReshardStep,
  type LsTable,
} from '../core/engine.js';
import { LsFigure } from '../core/figure.js';
import type { Item, Scene } from '../core/scene.js';
import type { Palette } from '../core/theme.js';
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
  static override properties = {
    ...LsFigure.properties,
    mode: { type: String },
    reshard: { type: String },
    measuredSeconds: { attribute: false },
  };
  mode: MeshMode = 'replica';
  /** the mode to reshard to ('' for none) */
  reshard: MeshMode | '' = '';
  /** Measured seconds per plan step (from a multi-GPU agent run), drawn beside the prediction when given. */
  measuredSeconds: number[] | null = null;
  private plan?: LsReshardPlan;
  private planError = '';
  private tTo?: LsTable;
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
    return { mode: this.mode, to: this.reshard || null };
  }
  protected override applyExtraState(s: Record<string, string>) {
    if (s.mode && s.mode in MESH_MODES) this.mode = s.mode as MeshMode;
    if (s.to !== undefined) this.reshard = s.to in MESH_MODES ? (s.to as MeshMode) : '';
  }

  protected override recompute() {
    if (!this.eng) return;
    this.t = must(this.eng.table(this.layout, this.shape));
    const a = this.t.axes;
    this.ax = { x: a.indexOf('gpuid_x'), y: a.indexOf('gpuid_y'), m: a.indexOf('m') };
    this.plan = undefined;
    this.planError = '';
    this.tTo = undefined;
    if (this.reshard && this.reshard !== this.mode) {
      const to = MESH_MODES[this.reshard];
      const r = this.eng.planReshard(this.layout, to, this.shape, { gpuid_x: 2, gpuid_y: 2 });
      if (r.ok) {
        this.plan = r;
        this.tTo = must(this.eng.table(to, this.shape));
      } else this.planError = r.error.message;
    }
    this.selectionChanged();
  }

  private setReshard(m: string) {
    this.reshard = m in MESH_MODES ? (m as MeshMode) : '';
    this.recompute();
    this.saveState();
    this.requestUpdate();
  }

  /** The device transfers of one step: the devices of each group along the step's axis, as [from, to] pairs of
   * (gpuid_x, gpuid_y); both directions for the collectives that exchange, root -> others for a broadcast. */
  private transfers(st: LsReshardStep): [number[], number[]][] {
    if (!st.collective || !st.axis) return [];
    const along = st.axis === 'gpuid_x' ? 0 : 1;
    const out: [number[], number[]][] = [];
    for (let other = 0; other < 2; ++other) {
      const dev = (k: number) => (along === 0 ? [k, other] : [other, k]);
      if (st.op === 'broadcast') {
        for (let k = 0; k < 2; ++k) if (k !== st.root) out.push([dev(st.root), dev(k)]);
      } else if (st.op === 'send_recv') out.push([dev(st.root), dev(st.target)]);
      else for (let a = 0; a < 2; ++a) for (let b = 0; b < 2; ++b) if (a !== b) out.push([dev(a), dev(b)]);
    }
    return out;
  }

  /** A step in three lines: what runs; the bytes a device holds before and after, sends and receives, and the
   * time (predicted, and measured when given); which devices send to which. */
  private stepText(st: LsReshardStep, k: number): [string, string, string] {
    const eb = this.plan!.elemBytes;
    const moves = this.transfers(st)
      .map(([a, b]) => `(${a.join(',')})→(${b.join(',')})`)
      .join(' ');
    const what = st.collective
      ? `${st.op} ${this.tr('along')} ${st.axis} (${st.groups} × ${st.group} GPU)`
      : `${st.op} (${this.tr('localStep')})`;
    const measured = this.measuredSeconds?.[k];
    return [
      `${k + 1}. ${what}: ${st.localBefore.elements * eb} B → ${st.localAfter.elements * eb} B ${this.tr('perDevice')}`,
      (st.collective ? `${this.tr('send')} ${st.sendBytes} B, ${this.tr('recv')} ${st.recvBytes} B; ` : '') +
        `${this.tr('predictedCol')} ${seconds(st.predictedSeconds)}` +
        (measured !== undefined ? `; ${this.tr('measuredCol')} ${seconds(measured)}` : ''),
      `${moves ? moves + '   ' : ''}${st.placementsBefore.join(' ')} → ${st.placementsAfter.join(' ')}`,
    ];
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
    // devices: this sharding, and with a reshard the target beside it and the plan's steps below
    const dx = ox,
      dy = oy + 4 * cs + 56;
    const before = this.drawDevices(
      items,
      p,
      t,
      dx,
      dy,
      this.plan ? `${this.tr('beforeReshard')}: ${this.layout}` : this.tr('mesh'),
      true,
    );
    let bottom = before.bottom,
      right = before.right;
    if (this.plan && this.tTo) {
      const after = this.drawDevices(
        items,
        p,
        this.tTo,
        right + 30,
        dy,
        `${this.tr('afterReshard')}: ${this.plan.to}`,
        false,
      );
      right = after.right;
      bottom = this.drawSteps(items, p, dx, Math.max(bottom, after.bottom) + 24);
    } else if (this.planError) {
      items.push({ t: 'text', x: dx, y: bottom + 20, s: this.planError, size: 12, fill: p.conflict });
      bottom += 34;
    }
    const ly = legend(items, p, ox, bottom + 14, [
      { fill: p.cat[0], text: this.tr('lgMeshColour') },
      { text: this.tr('lgMeshNumbers') },
      { stroke: p.select, text: this.tr('lgMeshHolds') },
    ]);
    return {
      width: Math.max(ox + 2 * (8 * cs + 20), right) + 10,
      height: ly,
      background: p.bg,
      items,
    };
  }

  /** One sharding's devices: a 2x2 grid of local memories (@m, 8 a row); returns the box it took. */
  private drawDevices(
    items: Item[],
    p: Palette,
    t: LsTable,
    dx: number,
    dy: number,
    title: string,
    hits: boolean,
  ): { right: number; bottom: number } {
    const ax = { x: t.axes.indexOf('gpuid_x'), y: t.axes.indexOf('gpuid_y'), m: t.axes.indexOf('m') };
    const dc = 22;
    label(items, p, dx, dy - 26, title, 12);
    const maxM = t.max[ax.m];
    const rows = Math.ceil((maxM + 1) / 8);
    const dw = 8 * dc + 24,
      dh = rows * dc + 30;
    const held = new Map<string, number[]>();
    for (let x = 0; x < t.elements; ++x)
      for (let r = 0; r < t.replicas; ++r) {
        const pos = position(t, x, r);
        const key = `${this.val(pos, ax.x)}:${this.val(pos, ax.y)}:${pos[ax.m]}`;
        held.set(key, [...(held.get(key) ?? []), x]);
      }
    for (let gy = 0; gy < 2; ++gy)
      for (let gx = 0; gx < 2; ++gx) {
        const bx = dx + gx * (dw + 24),
          by = dy + gy * (dh + 16);
        const holds =
          hits &&
          [...this.hl].some((x) => [...held.entries()].some(([k, v]) => k.startsWith(`${gx}:${gy}:`) && v.includes(x)));
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
            x0 === undefined ? p.cell : p.cat[(this.val(home, ax.y) * 2 + this.val(home, ax.x)) % 8],
            {
              hit: hits ? `D:${gx}:${gy}:${m}` : undefined,
              title: `${this.tr('device')} (${gx}, ${gy}) m=${m}${x0 !== undefined ? `: x=${x0}` : ''}`,
              label: x0 === undefined ? '' : String(x0),
              labelSize: 9,
              selected: x0 !== undefined && xs!.some((x) => this.hl.has(x)),
            },
          );
        }
      }
    return { right: dx + 2 * (dw + 24), bottom: dy + 2 * (dh + 16) };
  }

  /** The plan's steps: per step a small mesh with an arrow for each transfer, and its bytes and time. */
  private drawSteps(items: Item[], p: Palette, x: number, y: number): number {
    const plan = this.plan!;
    label(items, p, x, y, `${this.tr('planSteps')} (${plan.steps.length})`, 12);
    y += 16;
    const bw = 40,
      bh = 22,
      gap = 24;
    plan.steps.forEach((st, k) => {
      // the 2x2 mesh: gpuid_x across, gpuid_y down
      const at = (d: number[]) => [x + d[0] * (bw + gap), y + d[1] * (bh + 10)];
      for (let gy = 0; gy < 2; ++gy)
        for (let gx = 0; gx < 2; ++gx) {
          const [X, Y] = at([gx, gy]);
          items.push({ t: 'rect', x: X, y: Y, w: bw, h: bh, fill: p.cell, stroke: p.grid, sw: 1, rx: 4 });
          items.push({
            t: 'text',
            x: X + bw / 2,
            y: Y + bh / 2,
            s: `${gx},${gy}`,
            size: 10,
            fill: p.fg,
            anchor: 'middle',
          });
        }
      for (const [a, b] of this.transfers(st)) {
        const [ax0, ay0] = at(a),
          [bx0, by0] = at(b);
        // from the edge of a's box to the edge of b's, offset so that the two directions of a pair do not overlap
        const horiz = ay0 === by0;
        const dir = horiz ? Math.sign(bx0 - ax0) : Math.sign(by0 - ay0);
        const off = dir > 0 ? -4 : 4;
        const x1 = horiz ? ax0 + (dir > 0 ? bw : 0) : ax0 + bw / 2 + off,
          y1 = horiz ? ay0 + bh / 2 + off : ay0 + (dir > 0 ? bh : 0),
          x2 = horiz ? bx0 + (dir > 0 ? 0 : bw) : bx0 + bw / 2 + off,
          y2 = horiz ? by0 + bh / 2 + off : by0 + (dir > 0 ? 0 : bh);
        items.push({ t: 'line', x1, y1, x2, y2, stroke: p.related, sw: 2 });
        const hx = horiz ? -dir * 6 : 0,
          hy = horiz ? 0 : -dir * 6;
        items.push({
          t: 'line',
          x1: x2,
          y1: y2,
          x2: x2 + hx + (horiz ? 0 : 4),
          y2: y2 + hy + (horiz ? 4 : 0),
          stroke: p.related,
          sw: 2,
        });
        items.push({
          t: 'line',
          x1: x2,
          y1: y2,
          x2: x2 + hx - (horiz ? 0 : 4),
          y2: y2 + hy - (horiz ? 4 : 0),
          stroke: p.related,
          sw: 2,
        });
      }
      const [l1, l2, l3] = this.stepText(st, k);
      const tx = x + 2 * bw + gap + 16;
      items.push({ t: 'text', x: tx, y: y + 6, s: l1, size: 11, fill: p.fg, weight: 'bold' });
      items.push({ t: 'text', x: tx, y: y + 22, s: l2, size: 11, fill: p.fg });
      items.push({ t: 'text', x: tx, y: y + 38, s: l3, size: 10, fill: p.muted, mono: true });
      y += 2 * bh + 10 + 14;
    });
    return y;
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
      plan: this.plan,
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
      <span class="mono">${this.layout}</span>
      <label
        >${this.tr('reshardTo')}
        <select class="reshard" @change=${(e: Event) => this.setReshard((e.target as HTMLSelectElement).value)}>
          <option value="" ?selected=${!this.reshard}>—</option>
          ${modes.map(([m, k]) => html`<option value=${m} ?selected=${this.reshard === m} ?disabled=${m === this.mode}>${this.tr(k)}</option>`)}
        </select></label
      >`;
  }
}

customElements.define('ls-mesh', LsMesh);

/** Seconds as the unit that reads best: 178 ps, 3.56 ns, 2.00 µs, 1.20 ms. */
function seconds(t: number): string {
  const [k, unit] = t < 1e-9 ? [1e12, 'ps'] : t < 1e-6 ? [1e9, 'ns'] : t < 1e-3 ? [1e6, 'µs'] : [1e3, 'ms'];
  return `${(t * k).toPrecision(3)} ${unit}`;
}
