// What the layout engine predicts for each benchmark variant, computed here by the WASM module from the
// variant's access layout: the layout of the data, the logical elements the 32 lanes of one warp instruction
// touch, and the bytes per lane. The engine gives the addresses (lane_addresses), the 32 B sectors per request
// (sector_access) and the shared-memory wavefronts (bank_access); nothing here computes an address.
import { must, type Engine } from '../engine.js';

export interface AccessPrediction {
  kind: 'global' | 'shared';
  access: string;
  layout: string;
  bytesPerLane: number;
  /** global: 32 B sectors per request */
  sectors?: number;
  /** shared: wavefronts (cycles) and the worst bank conflict */
  wavefronts?: number;
  ways?: number;
}

/** Which figure shows the access pattern, and its attributes. */
export interface FigureSpec {
  tag: 'ls-tile-layout' | 'ls-bank-conflicts';
  title: string;
  attrs: Record<string, string>;
}

export interface VariantPrediction {
  accesses: AccessPrediction[];
  figure: FigureSpec;
}

const WARP = 32;
const range = (n: number, f: (i: number) => number) => Array.from({ length: n }, (_, i) => f(i));

function global(e: Engine, layout: string, shape: number[], idx: number[], width: number, access: string): AccessPrediction {
  const addrs = must(e.laneAddresses(layout, shape, idx, 4)).addrs;
  const s = must(e.sectorAccess(addrs, width));
  return { kind: 'global', access, layout, bytesPerLane: width, sectors: s.sectors };
}

function shared(e: Engine, layout: string, idx: number[], access: string): AccessPrediction {
  const addrs = must(e.laneAddresses(layout, [32, 32], idx, 4)).addrs;
  const b = must(e.bankAccess(addrs, 4));
  return { kind: 'shared', access, layout, bytesPerLane: 4, wavefronts: b.cycles, ways: b.maxWays };
}

/** AoS S[(n,8):(8,1)] or SoA S[(n,8):(1,n)]: lane i touches field k of element i, 4 B. */
export function predictAosSoa(e: Engine, layout: 'aos' | 'soa', n: number): VariantPrediction {
  const text = layout === 'aos' ? `S[(${n},8):(8,1)]` : `S[(${n},8):(1,${n})]`;
  const lanes = Math.min(WARP, n);
  const g = global(e, text, [n, 8], range(lanes, (i) => i * 8), 4, 'lane i loads (and stores) field k of element i');
  // the figure: the same layout over one warp's 32 elements, lanes reading field 0
  const small = layout === 'aos' ? 'S[(32,8):(8,1)]' : 'S[(32,8):(1,32)]';
  return {
    accesses: [g],
    figure: { tag: 'ls-tile-layout', title: `${layout.toUpperCase()}: lane i reads field 0 of element i (${small}, one warp)`, attrs: { layout: small, shape: '32,8', access: '0:256:8', dtype: 'f32' } },
  };
}

/** The transpose variants on an fp32 dim x dim matrix S[(dim,dim):(dim,1)]. */
export function predictTranspose(e: Engine, variant: string, dim: number): VariantPrediction {
  const g = `S[(${dim},${dim}):(${dim},1)]`;
  const lanes = Math.min(WARP, dim);
  const row = range(lanes, (l) => l);
  const col = range(lanes, (l) => l * dim);
  const tileFig = (layout: string, access: string, title: string): FigureSpec => ({
    tag: 'ls-tile-layout',
    title,
    attrs: { layout, shape: '32,32', access, dtype: 'f32' },
  });
  if (variant === 'copy') {
    const vec = range(Math.min(WARP, Math.floor((dim * dim) / 4)) || 1, (l) => 4 * l);
    const width = dim * dim >= 4 ? 16 : 4;
    return {
      accesses: [
        global(e, g, [dim, dim], vec, width, 'load: lane i reads 16 B at element 4i'),
        global(e, g, [dim, dim], vec, width, 'store: lane i writes 16 B at element 4i'),
      ],
      figure: { tag: 'ls-tile-layout', title: 'copy: lane i reads 16 B (float4) at element 4i of a row', attrs: { layout: 'S[(32,32):(32,1)]', shape: '32,32', access: '0:128:4', dtype: 'f32x4' } },
    };
  }
  const load = global(e, g, [dim, dim], row, 4, 'load: lane i reads in(r, c0 + i) (a row)');
  if (variant === 'naive')
    return {
      accesses: [load, global(e, g, [dim, dim], col, 4, 'store: lane i writes out(c0 + i, r) (a column)')],
      figure: tileFig('S[(32,32):(32,1)]', '0:1024:32', 'naive: the store writes a column, lane i at out(i, r) (a 32×32 corner)'),
    };
  const store = global(e, g, [dim, dim], row, 4, 'store: lane i writes out(r, c0 + i) (a row)');
  const tile = variant === 'pad' ? 'S[(32,32):(33,1)]' : 'S[(32,32):(32,1)]';
  const sh = [
    shared(e, tile, range(WARP, (l) => l), 'shared store: lane i writes tile[r][i] (a row)'),
    shared(e, tile, range(WARP, (l) => l * 32), 'shared load: lane i reads tile[i][c] (a column)'),
  ];
  return {
    accesses: [load, store, ...sh],
    figure: {
      tag: 'ls-bank-conflicts',
      title: `${variant}: the shared tile's column read, tile[i][0] for lane i (${tile})`,
      attrs: { layout: tile, compare: variant === 'pad' ? 'S[(32,32):(32,1)]' : 'S[(32,32):(33,1)]', shape: '32,32', dtype: 'f32', selection: 'C:0' },
    },
  };
}

/** The DRAM bound on the SoA/AoS speedup at t touched fields, from the engine's sectors per request: AoS moves
 * its sectors once per element whatever t (the t fields share them), SoA moves t times its own. */
export function speedupBound(e: Engine, touch: number, n = 1 << 20): number {
  const aos = predictAosSoa(e, 'aos', n).accesses[0].sectors!;
  const soa = predictAosSoa(e, 'soa', n).accesses[0].sectors!;
  return aos / (touch * soa);
}
