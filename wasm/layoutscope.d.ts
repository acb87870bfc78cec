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

/** A logical shape: an array of extents, a string "8,8", or null for the layout's default shape. */
export type LsShape = number[] | string | null;

export interface LsInstructionCost {
  /** Shared: L1 wavefronts, what ncu counts as sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_<ncuOp>.sum. */
  wavefronts: number;
  /** One per 128 B a conflict-free instruction moves (one per 8-lane phase for ldmatrix/stmatrix). */
  idealWavefronts: number;
  /** wavefronts - idealWavefronts: sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_<ncuOp>.sum. */
  conflicts: number;
  maxWays: number;
  /** Global: distinct 32 B sectors. */
  sectors: number;
  requests: number;
  bytes: number;
}

export interface LsAccessCost {
  layout: string;
  shape: number[];
  dtype: string;
  /** Canonical instruction: "LDS.128", "ldmatrix.x4.trans", "cp.async.16", "tma.128B". */
  instr: string;
  /** ld, st, ldsm, stsm, ldgsts; "" for global accesses and TMA. */
  ncuOp: string;
  /** false for global accesses and TMA (no bank counter). */
  sharedCounted: boolean;
  /** One per issued instruction; lanes[l] is the first logical element lane l moves, -1 when idle. */
  instructions: (LsInstructionCost & { lanes: number[] })[];
  total: LsInstructionCost;
  metrics: { wavefronts: string; conflicts: string } | null;
}

export interface LsCandidate {
  /** "row-major", "TMA 128B", "Swizzle<4,1,4>" (on element offsets), "pad 4 B". */
  name: string;
  kind: 'plain' | 'tma' | 'swizzle' | 'padding';
  /** The shared tile as layout text (logical index -> @m in elements). */
  layout: string;
  writeWavefronts: number;
  writeIdeal: number;
  readWavefronts: number;
  readIdeal: number;
  conflicts: number;
  conflictFree: boolean;
  sharedBytes: number;
  /** false when TMA writes: its writes have no bank counter and cost no LSU wavefronts. */
  writeCounted: boolean;
}

export interface LsTileSide {
  instr: string;
  lanes: 'default' | 'rows' | 'columns' | 'matrices' | 'threads' | 'explicit';
  threads: string | null;
}

export interface LsAdvice {
  tile: number[];
  dtype: string;
  writer: LsTileSide;
  reader: LsTileSide;
  searched: number;
  rejected: number;
  /** Best first: fewest wavefronts, then fewest shared bytes, then the simplest kind. */
  candidates: LsCandidate[];
  /** CUTLASS ss_smem_selector and ThunderKittens st: choice "" when the rule does not apply. */
  rules: { rule: string; choice: string; reason: string; candidate: LsCandidate | null }[];
}

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
  /**
   * What one warp access costs. lanes: null (the instruction's default walk), "rows" | "columns" |
   * "matrices" | a thread layout | "0,64/8,72", or first elements per instruction and lane (-1 or null idle).
   * source: the global layout for cp.async and TMA (null: dense row-major).
   */
  accessCost(
    layout: string,
    shape: LsShape,
    dtype: string,
    instr: string,
    lanes: string | (number | null)[][] | null,
    source: string | null,
  ): LsResult<LsAccessCost>;
  /** Rank shared layouts for a writer and a reader, each "LANES;INSTR" (e.g. "rows;STS.128", ";ldmatrix.x4"). */
  advise(writer: string, reader: string, dtype: string, tile: number[] | string): LsResult<LsAdvice>;
}

export interface LayoutscopeModuleOptions {
  wasmBinary?: ArrayBuffer | Uint8Array;
  locateFile?: (path: string, prefix: string) => string;
  print?: (text: string) => void;
  printErr?: (text: string) => void;
}

declare function createLayoutscope(options?: LayoutscopeModuleOptions): Promise<LayoutscopeModule>;
export default createLayoutscope;
