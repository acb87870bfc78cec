// Hand-written declarations for the Embind module built from wasm/bindings.cpp (Emscripten 3.1.6 has no
// --emit-tsd). tests/wasm/exports.test.mjs checks that every function declared in LayoutscopeModule exists.
// Every call returns a plain object: { ok: true, ... } or { ok: false, error }. Nothing needs .delete().

export interface LsError {
  message: string;
  /** 1-based column (code points) in the parsed text; 0 when the error has no place. */
  column: number;
  /** The argument, mode or axis at fault ("shape", "mode 2", "TLane"); may be empty. */
  field: string;
}

export type LsFailure = { ok: false; error: LsError };
export type LsResult<T> = ({ ok: true } & T) | LsFailure;

export interface LsMode {
  extent: number;
  k: number;
  axis: string;
  /** The stride as written canonically: "16" on @m, "4@laneid" elsewhere. */
  text: string;
}

export interface LsStride {
  k: number;
  axis: string;
}

export interface LsSwizzle {
  bits: number;
  base: number;
  shift: number;
  inner: boolean;
}

export interface LsParsedLayout {
  text: string;
  canonical: string;
  axes: string[];
  shard: LsMode[];
  replicas: LsMode[][];
  offset: LsStride[];
  swizzle: LsSwizzle | null;
  size: number;
  replicaCount: number;
  defaultShape: number[];
}

export interface LsTerm {
  digit: number;
  k: number;
  axis: string;
}

export interface LsReplicaStep {
  digits: number[];
  terms: LsTerm[];
  position: number[];
  mBeforeSwizzle: number;
  mAfterSwizzle: number;
}

export interface LsMapping {
  axes: string[];
  index: number;
  coord: number[];
  split: number[];
  terms: LsTerm[];
  replicaSteps: LsReplicaStep[];
  /** Distinct final positions, sorted; each is values in the order of `axes`. */
  positions: number[][];
  derivation: string;
}

export interface LsInverseHit {
  index: number;
  coord: number[];
  replica: number;
  position: number[];
}

export interface LsTable {
  axes: string[];
  shape: number[];
  elements: number;
  replicas: number;
  /** values[((x * replicas) + r) * axes.length + a] */
  values: Float64Array;
  min: number[];
  max: number[];
}

export interface LsFinding {
  severity: 'error' | 'warning' | 'info' | string;
  code: string;
  message: string;
  where: string;
}

export interface LsHardwareAxis {
  name: string;
  limit: number;
  meaning: string;
}

export interface LsBankModel {
  banks?: number;
  wordBytes?: number;
  wavefrontBytes?: number;
}

export interface LsBankAccess {
  lanesPerGroup: number;
  groups: number;
  cycles: number;
  maxWays: number;
  groupCycles: number[];
  laneBank: number[];
  laneCycle: number[];
}

export interface LsSectorAccess {
  sectors: number;
  bytes: number;
  efficiency: number;
  /** the 32 B sector (byte address / 32) of each lane's first byte */
  laneSector: number[];
}

export interface LsSwizzleAtom {
  mode: string;
  shortName: string;
  dtype: string;
  dtypeBytes: number;
  bytes: LsSwizzle;
  elements: LsSwizzle;
  rowBytes: number;
  rows: number;
  elementsPerRow: number;
}

/** The syntaxes importLayout reads and exportLayout writes (export: cute, cute-dsl, triton, tirx, jax, dtensor, axe). */
export type LsFormat = 'axe' | 'cute' | 'cute-dsl' | 'triton' | 'tirx' | 'jax' | 'shardy' | 'hlo' | 'dtensor';

/** Named mesh axes and their sizes, major first: { x: 2, y: 4 }. */
export type LsMesh = Record<string, number>;

export interface LsImported {
  /** The layout in the chapter's notation. */
  layout: string;
  /** The logical shape it is defined on. */
  shape: number[];
  from: LsFormat;
  /** What the reader should know: an assumption made, a field read as written. */
  notes: string[];
  /** Partial-sum modes P[n:1@axis] (DTensor Partial, Shardy unreduced); values on these axes add up. */
  partials: LsMode[][];
}

/** A logical shape: an array of extents, a string "8,8", or null for the layout's default shape. */
export type LsShape = number[] | string | null;

export interface LayoutscopeModule {
  version(): string;
  parseLayout(text: string): LsResult<LsParsedLayout>;
  parseShape(text: string): LsResult<{ shape: number[] }>;
  canonicalize(text: string): LsResult<{ text: string }>;
  forwardIndex(layout: string, shape: LsShape, index: number): LsResult<LsMapping>;
  forwardCoord(layout: string, shape: LsShape, coord: number[]): LsResult<LsMapping>;
  /** cellLimit <= 0 means the engine's default limit. */
  inverse(
    layout: string,
    shape: LsShape,
    query: Record<string, number> | null,
    cellLimit: number,
  ): LsResult<{ axes: string[]; hits: LsInverseHit[] }>;
  table(layout: string, shape: LsShape, cellLimit: number): LsResult<LsTable>;
  validate(layout: string, shape: LsShape, cellLimit: number): LsResult<{ shape: number[]; findings: LsFinding[] }>;
  hardwareAxes(): LsHardwareAxis[];
  bankAccess(addrs: number[], width: number, model: LsBankModel | null): LsResult<LsBankAccess>;
  sectorAccess(addrs: number[], width: number): LsResult<LsSectorAccess>;
  laneAddresses(layout: string, shape: LsShape, indices: number[], elemBytes: number): LsResult<{ addrs: number[] }>;
  swizzleAtom(mode: string, dtype: string): LsResult<LsSwizzleAtom>;
  /** Bytes of one element of a dtype (f8, f16, bf16, f32, tf32, f64 and their aliases); an unknown name is an error. */
  dtypeBytes(name: string): LsResult<{ dtype: string; bytes: number }>;
  /** offsets: the swizzle applied to each offset; inverse: the offset each one came from (unapply_swizzle). */
  applySwizzle(bits: number, base: number, shift: number, inner: boolean, offsets: number[]): LsResult<{ offsets: number[]; inverse: number[] }>;
  mapThroughput(layout: string, passes: number): LsResult<{ mappings: number; seconds: number; checksum: number }>;
  memoryStats(): { heapBytes: number; allocatedBytes: number };
  /** Reads another project's layout text; shape and mesh supply what the text does not say (null if none). */
  importLayout(from: LsFormat, text: string, shape: LsShape, mesh: LsMesh | null): LsResult<LsImported>;
  /** Writes a layout (the chapter's notation) in another project's syntax, or an error naming what it cannot say. */
  exportLayout(to: LsFormat, layout: string, shape: LsShape, mesh: LsMesh | null): LsResult<{ text: string }>;
  /** The format a pasted text is most likely written in; 'axe' when nothing else matches. */
  detectFormat(text: string): LsFormat;
}

export interface LayoutscopeModuleOptions {
  wasmBinary?: ArrayBuffer | Uint8Array;
  locateFile?: (path: string, prefix: string) => string;
  print?: (text: string) => void;
  printErr?: (text: string) => void;
}

declare function createLayoutscope(options?: LayoutscopeModuleOptions): Promise<LayoutscopeModule>;
export default createLayoutscope;
