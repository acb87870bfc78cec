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

function global(
  e: Engine,
  layout: string,
  shape: number[],
  idx: number[],
  width: number,
  access: string,
): AccessPrediction {
  const addrs = must(e.laneAddresses(layout, shape, idx, 4)).addrs;
  const s = must(e.sectorAccess(addrs, width));
  return { kind: 'global', access, layout, bytesPerLane: width, sectors: s.sectors };
}

/** One warp instruction on an fp32 shared tile of extent x extent, `width` bytes per lane. */
function shared(e: Engine, layout: string, idx: number[], access: string, extent = 32, width = 4): AccessPrediction {
  const addrs = must(e.laneAddresses(layout, [extent, extent], idx, 4)).addrs;
  const b = must(e.bankAccess(addrs, width));
  return { kind: 'shared', access, layout, bytesPerLane: width, wavefronts: b.cycles, ways: b.maxWays };
}

/** AoS S[(n,8):(8,1)] or SoA S[(n,8):(1,n)]. aos / soa: lane i touches field k of element i, 4 B. aos_vec: lane i
 * touches fields 0-3 of element i as one 16 B access. soa_vec: lane i touches field k of elements 4i..4i+3 as
 * one 16 B access (when n is a multiple of 4, as agent/src/kernel_choice.hpp; else the scalar path). */
export function predictAosSoa(e: Engine, layout: string, n: number): VariantPrediction {
  if (!['aos', 'soa', 'aos_vec', 'soa_vec'].includes(layout)) throw new Error(`no access model for layout "${layout}"`);
  const aos = layout.startsWith('aos');
  const text = aos ? `S[(${n},8):(8,1)]` : `S[(${n},8):(1,${n})]`;
  const lanes = Math.min(WARP, n);
  let idx = range(lanes, (i) => i * 8);
  let width = 4;
  let access = 'lane i loads (and stores) field k of element i';
  if (layout === 'aos_vec') {
    width = 16;
    access = 'lane i loads (and stores) fields 0-3 of element i as one 16 B access';
  } else if (layout === 'soa_vec' && n % 4 === 0) {
    width = 16;
    access = 'lane i loads (and stores) field k of elements 4i..4i+3 as one 16 B access';
    idx = range(Math.min(WARP, n / 4), (i) => 4 * i * 8);
  }
  const g = global(e, text, [n, 8], idx, width, access);
  // the figure: the same layout over one warp's 32 elements (128 for soa_vec), lanes reading field 0
  const rows = layout === 'soa_vec' && width === 16 ? 128 : 32;
  const small = aos ? `S[(${rows},8):(8,1)]` : `S[(${rows},8):(1,${rows})]`;
  const step = layout === 'soa_vec' && width === 16 ? 32 : 8;
  return {
    accesses: [g],
    figure: {
      tag: 'ls-tile-layout',
      title: `${layout}: ${access} (${small}, one warp)`,
      attrs: {
        layout: small,
        shape: `${rows},8`,
        access: `0:${rows * 8}:${step}`,
        dtype: width === 16 ? 'f32x4' : 'f32',
      },
    },
  };
}

/** The 64x64 tile kernels: 16 lanes x 16 B per row, two rows per instruction; the shared tile read as a column of
 * 16 B chunks; padded S[(16,4,64):(260,64,1)] or swizzled Swizzle<3,2,6> o S[(64,64):(64,1)]; the transposed
 * 4x4 blocks written as rows of a row-major staging tile, each output row piece leaving as one 256 B bulk copy
 * (TMA, sm_90; given as its 16 chunks of 16 B); the row-major tile last as the reference. */
function predictTile64(e: Engine, variant: string, dim: number): VariantPrediction {
  if (dim < 64 || dim % 4 !== 0)
    throw new Error(
      `dim ${dim}: the 64x64 kernels take their scalar edge path (dim < 64 or not a multiple of 4), no access model`,
    );
  const g = `S[(${dim},${dim}):(${dim},1)]`;
  const rows2 = range(WARP, (l) => Math.floor(l / 16) * dim + 4 * (l % 16));
  const tileRows2 = range(WARP, (l) => Math.floor(l / 16) * 64 + 4 * (l % 16));
  const tileCol = range(WARP, (l) => 4 * (l % 16) * 64 + 4 * Math.floor(l / 16));
  const outRow = range(16, (k) => 4 * k);
  const tile = variant === 'tile64_swizzle' ? 'Swizzle<3,2,6> o S[(64,64):(64,1)]' : 'S[(16,4,64):(260,64,1)]';
  const bank = (layout: string, idx: number[], access: string) => shared(e, layout, idx, access, 64, 16);
  return {
    accesses: [
      global(e, g, [dim, dim], rows2, 16, 'load: lane l reads 16 B at in(r + l / 16, c0 + 4 (l % 16))'),
      global(
        e,
        g,
        [dim, dim],
        outRow,
        16,
        'store: one bulk copy (TMA) writes a 256 B output row piece out(c0 + j, r0 .. r0 + 63), shown as its 16 chunks of 16 B',
      ),
      bank(tile, tileRows2, 'shared store: lane l writes 16 B at tile(l / 16, 4 (l % 16)) (rows)'),
      bank(tile, tileCol, 'shared load: lane l reads 16 B at tile(4 (l % 16), 4 (l / 16)) (a column of chunks)'),
      bank(
        'S[(64,64):(64,1)]',
        tileRows2,
        "shared store: lane l writes 16 B at staging(4 (l / 16) + j, 4 (l % 16)) (the transposed tile's rows)",
      ),
      bank('S[(64,64):(64,1)]', tileCol, 'reference, not run: the same column read from a row-major 64x64 tile'),
    ],
    figure: {
      tag: 'ls-bank-conflicts',
      title: `${variant}: the kernel's column-of-chunks read, lane l reads 16 B at tile(4 (l % 16), 4 (l / 16)) (${tile}) beside the row-major tile`,
      attrs: { layout: tile, compare: 'S[(64,64):(64,1)]', shape: '64,64', dtype: 'f32x4', lanes: tileCol.join(',') },
    },
  };
}

/** The transpose variants on an fp32 dim x dim matrix S[(dim,dim):(dim,1)]. */
export function predictTranspose(e: Engine, variant: string, dim: number): VariantPrediction {
  if (variant === 'tile64_pad' || variant === 'tile64_swizzle') return predictTile64(e, variant, dim);
  if (!['copy', 'naive', 'tiled', 'pad'].includes(variant)) throw new Error(`no access model for variant "${variant}"`);
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
      figure: {
        tag: 'ls-tile-layout',
        title: 'copy: lane i reads 16 B (float4) at element 4i of a row',
        attrs: { layout: 'S[(32,32):(32,1)]', shape: '32,32', access: '0:128:4', dtype: 'f32x4' },
      },
    };
  }
  const load = global(e, g, [dim, dim], row, 4, 'load: lane i reads in(r, c0 + i) (a row)');
  if (variant === 'naive')
    return {
      accesses: [load, global(e, g, [dim, dim], col, 4, 'store: lane i writes out(c0 + i, r) (a column)')],
      figure: tileFig(
        'S[(32,32):(32,1)]',
        '0:1024:32',
        'naive: the store writes a column, lane i at out(i, r) (a 32×32 corner)',
      ),
    };
  const store = global(e, g, [dim, dim], row, 4, 'store: lane i writes out(r, c0 + i) (a row)');
  const tile = variant === 'pad' ? 'S[(32,32):(33,1)]' : 'S[(32,32):(32,1)]';
  const sh = [
    shared(
      e,
      tile,
      range(WARP, (l) => l),
      'shared store: lane i writes tile[r][i] (a row)',
    ),
    shared(
      e,
      tile,
      range(WARP, (l) => l * 32),
      'shared load: lane i reads tile[i][c] (a column)',
    ),
  ];
  return {
    accesses: [load, store, ...sh],
    figure: {
      tag: 'ls-bank-conflicts',
      title: `${variant}: the shared tile's column read, tile[i][0] for lane i (${tile})`,
      attrs: {
        layout: tile,
        compare: variant === 'pad' ? 'S[(32,32):(32,1)]' : 'S[(32,32):(33,1)]',
        shape: '32,32',
        dtype: 'f32',
        selection: 'C:0',
      },
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
