// Hand-written declarations for the Embind module built from wasm/bindings.cpp (Emscripten 3.1.6 has no
// --emit-tsd). tests/wasm/exports.test.mjs checks that every function declared in LayoutscopeModule exists.
// Every call returns a plain object: { ok: true, ... } or { ok: false, error }. Nothing needs .delete().
// Every integer returned is exact: a result holding a value beyond Number.MAX_SAFE_INTEGER is refused with
// error code "precision" instead of being rounded. Integer arguments (LsInt) may be numbers that are safe
// integers, BigInts or decimal strings.

export interface LsError {
  message: string;
  /** 1-based column (code points) in the parsed text; 0 when the error has no place. */
  column: number;
  /** The argument, mode or axis at fault ("shape", "mode 2", "TLane"); may be empty. */
  field: string;
  /**
   * The kind of failure: "syntax", "range", "overflow", "size-mismatch", "limit", "precision" (a value a JS
   * number cannot hold exactly); may be empty.
   */
  code: string;
}

/** An integer argument: a safe-integer number, a BigInt, or a decimal string (exact beyond 2^53). */
export type LsInt = number | bigint | string;

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
  /** |S|; CuTe's negative shift Swizzle<B,M,-S> is shift S with inner false. */
  shift: number;
  inner: boolean;
  /** CuTe's spelling: "Swizzle<3,4,3>", "Swizzle<3,4,-3>". */
  text: string;
}

export interface LsParsedLayout {
  text: string;
  canonical: string;
  axes: string[];
  shard: LsMode[];
  replicas: LsMode[][];
  /** One entry per P[...] term: partial-sum holders (positions like replicas, values sum to the element). */
  partials: LsMode[][];
  offset: LsStride[];
  swizzle: LsSwizzle | null;
  size: number;
  replicaCount: number;
  /** Product of the P extents; 0 when the layout has no P[...]. */
  partialCount: number;
  defaultShape: number[];
}

export interface LsTerm {
  digit: number;
  k: number;
  axis: string;
}

/** One holder of the element: holder h = replica * max(partials, 1) + partial. */
export interface LsReplicaStep {
  replica: number;
  /** The partial-sum holder; -1 when the layout has no P[...] (the position holds the whole value). */
  partial: number;
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
  replicas: number;
  /** Product of the P extents; 0 when the layout has no P[...]. */
  partials: number;
  /** One per holder, in holder order. */
  replicaSteps: LsReplicaStep[];
  /**
   * One position per holder (replica, then partial), in that order, also when two land on one spot; each is
   * values in the order of `axes`.
   */
  positions: number[][];
  /** The derivation as text; spells out at most 8 holders and counts the rest. */
  derivation: string;
}

export interface LsInverseHit {
  index: number;
  coord: number[];
  replica: number;
  /** The partial-sum holder; -1 when the layout has no P[...]. */
  partial: number;
  position: number[];
}

export interface LsTable {
  axes: string[];
  shape: number[];
  elements: number;
  replicas: number;
  /** Partial-sum holders per replica; 0 when the layout has no P[...]. */
  partials: number;
  /** values[((x * holders) + h) * axes.length + a], holders = replicas * max(partials, 1) */
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

/** CuTe's layout algebra, as wasm/algebra_bindings.cpp answers it. */
export type LsAlgebraOperation =
  | 'coalesce'
  | 'composition'
  | 'complement'
  | 'right_inverse'
  | 'left_inverse'
  | 'logical_divide'
  | 'zipped_divide'
  | 'tiled_divide'
  | 'logical_product'
  | 'blocked_product'
  | 'raked_product'
  | 'max_common_vector';

export interface LsAlgebraResult {
  /** The result in CuTe's print syntax, "(5,4):(8,2)"; for max_common_vector the number. */
  result: string;
  /** The result in the chapter's notation on `shape` (one logical dimension per top-level mode). */
  axe: string;
  shape: number[];
  size: number;
  cosize: number;
  /** max_common_vector only: the vector width (the layout fields then describe max_common_layout). */
  vector?: number;
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
/** The engine's lane walks (access.hpp row_lanes, column_lanes, chunk_lanes, column_vector_lanes). */
export type LsWalk = 'rows' | 'columns' | 'chunks' | 'column-vectors';

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
  /** Bytes each lane that carries an address moves (the instruction's width; 16 for ldmatrix/stmatrix rows). */
  bytesPerLane: number;
  /** which way each lane's elements run: along its row, or down its column */
  vector: 'row' | 'column';
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

// ---- Blackwell tensor memory and the tcgen05 descriptors (wasm/tcgen05_bindings.cpp) ----------------------

export interface LsTmemAccessOptions {
  /** 32x32b, 16x64b, 16x128b, 16x256b, 16x32bx2 (default 32x32b). */
  shape?: string;
  /** .xN: 1, 2, 4 ... 128 (at most 128 registers per thread). */
  num?: number;
  store?: boolean;
  lane?: number;
  column?: number;
  /** 16x32bx2's immHalfSplitoff in columns (default: num). */
  halfSplit?: number;
  /** The issuing warp (default: the warp of the lane's slab). */
  warp?: number;
  allocatedColumns?: number;
}

export interface LsTmemAccess {
  instruction: string;
  /** Logical footprint (lanes, 32-bit columns). */
  shape: number[];
  registers: number;
  warp: number;
  /** lane / 32: warps with warp % 4 == slab may issue it. */
  slab: number;
  lanes: number[];
  columns: number[];
  /** logical -> (laneid, reg) + O[warp@warpid] */
  threads: string;
  /** logical -> (TLane, TCol) */
  tmem: string;
  maxNum: number;
  /** Six numbers per element, row-major over shape: row, col, laneid, reg, TLane, TCol. */
  cells: Int32Array;
}

export interface LsTmemCopy {
  instruction: string;
  shape: number[];
  rowBytes: number;
  replicas: number;
  tmem: string;
}

export interface LsScaleFactorTrace {
  m: number;
  k: number;
  atom: number;
  smemByte: number;
  copyRow: number;
  copyByte: number;
  tlanes: number[];
  tcol: number;
  byte: number;
  /** (TCol - first column) * 4 + byte */
  byteOffset: number;
  mma: number;
  sfId: number;
  mmaColumn: number;
}

export interface LsScaleFactors {
  kind: string;
  vec: number;
  shape: number[];
  atoms: number[];
  mmaK: number;
  scalesPerMma: number;
  bytes: number;
  columns: number;
  copy: string;
  smem: string;
  tmem: string;
  trace?: LsScaleFactorTrace;
}

export interface LsSmemDescriptor {
  hex: string;
  startAddress: number;
  leadingByteOffset: number;
  strideByteOffset: number;
  baseOffset: number;
  lboMode: 'relative' | 'absolute';
  swizzle: string;
  swizzleCode: number;
  version: number;
  /** From a layout: the fields no element pins. */
  unused?: string[];
}

export interface LsInstrDescriptor {
  hex: string;
  kind: string;
  aType: string;
  bType: string;
  dType: string;
  m: number;
  n: number;
  aMajor: 'K' | 'MN';
  bMajor: 'K' | 'MN';
  negateA: boolean;
  negateB: boolean;
  saturate: boolean;
  sparse: boolean;
  sparseSelector: number;
  maxShift: number;
  blockScaled: boolean;
  scaleType: string;
  sfaId: number;
  sfbId: number;
  kSize: number;
}

export interface LayoutscopeModule {
  version(): string;
  parseLayout(text: string): LsResult<LsParsedLayout>;
  parseShape(text: string): LsResult<{ shape: number[] }>;
  canonicalize(text: string): LsResult<{ text: string }>;
  forwardIndex(layout: string, shape: LsShape, index: LsInt): LsResult<LsMapping>;
  forwardCoord(layout: string, shape: LsShape, coord: LsInt[]): LsResult<LsMapping>;
  /** cellLimit <= 0 means the engine's default limit. */
  inverse(
    layout: string,
    shape: LsShape,
    query: Record<string, LsInt> | null,
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
  /**
   * offsets: the swizzle applied to each offset; inverse: the offset each one came from (unapply_swizzle).
   * A negative shift is CuTe's Swizzle<B,M,-S> (with inner true); parameters the parser would refuse (shift
   * 0 with bits > 0, B + M + |S| > 62) are refused here too.
   */
  applySwizzle(bits: number, base: number, shift: number, inner: boolean, offsets: LsInt[]): LsResult<{ offsets: number[]; inverse: number[] }>;
  mapThroughput(layout: string, passes: number): LsResult<{ mappings: number; seconds: number; checksum: number }>;
  memoryStats(): { heapBytes: number; allocatedBytes: number };
  /** Every element type the engine knows, narrowest first, with its bytes: the names a form offers. */
  dtypes(): { dtype: string; bytes: number }[];
  /** The default shared-memory bank model (32 banks of 4 B, 128 B a wavefront). */
  bankModel(): Required<LsBankModel>;
  /** Bytes one lane's access moves for elements of elemBytes: widened to the bank's word, at most 16. */
  laneAccessBytes(elemBytes: number, model: LsBankModel | null): number;
  /** The first byte of the width-byte access holding byte address `byte` (aligned down). */
  accessStart(byte: number, width: number): number;
  /** The shape a figure draws a layout on when none is given: rows of its last mode ((8,64) for S[(8,64):(64,1)]). */
  drawingShape(layout: string): LsResult<{ shape: number[] }>;
  /** "x=2,y=4" as { x: 2, y: 4 } with the axes in order; an error names the column of the bad entry. */
  parseMesh(text: string): LsResult<{ mesh: LsMesh; axes: string[] }>;
  /**
   * A results document's CSV, written by the agent's own printer (GET /v1/runs/{id}?format=csv gives the same
   * text): `text` is a results document or a run record holding one under "result". An error names the field.
   */
  resultsCsv(text: string): LsResult<{ csv: string }>;
  /**
   * CuTe's layout algebra. args: layouts ("(5,4):(4,1)", or "S[(5,4):(4,1)]" with syntax 'axe'), shapes
   * "(6,20)", integers "24", tilers "[3:4, 8:2]". Errors name the argument ("argument 2") and the column in it.
   */
  algebra(op: LsAlgebraOperation | string, args: string[], syntax: 'cute' | 'axe'): LsResult<LsAlgebraResult>;
  /** The operations algebra() accepts. */
  algebraOperations(): LsAlgebraOperation[];
  /** Reads another project's layout text; shape and mesh supply what the text does not say (null if none). */
  importLayout(from: LsFormat, text: string, shape: LsShape, mesh: LsMesh | null): LsResult<LsImported>;
  /** Writes a layout (the chapter's notation) in another project's syntax, or an error naming what it cannot say. */
  exportLayout(to: LsFormat, layout: string, shape: LsShape, mesh: LsMesh | null): LsResult<{ text: string }>;
  /** The format a pasted text is most likely written in; 'axe' when nothing else matches. */
  detectFormat(text: string): LsFormat;
  /**
   * What one warp access costs. lanes: null (the instruction's default walk), "rows" | "columns" |
   * "matrices" | a thread layout | "0,64/8,72", or first elements per instruction and lane (-1 or null idle).
   * { first, vector: 'column' }: those first elements, each lane's elements running down its column (an SoA
   * float4 load) instead of along its row.
   * source: the global layout for cp.async and TMA (null: dense row-major).
   */
  accessCost(
    layout: string,
    shape: LsShape,
    dtype: string,
    instr: string,
    lanes: string | (number | null)[][] | { first: (number | null)[][]; vector: 'row' | 'column' } | null,
    source: string | null,
  ): LsResult<LsAccessCost>;
  /**
   * The first instruction of the engine's lane walk over a tile of `shape` ("rows": lanes side by side along a
   * row; "columns": lanes down a column; "chunks": lanes down the columns of v x v chunks; "column-vectors":
   * each lane v elements down a column, to be costed with vector 'column'): the logical element each lane
   * starts at, -1 idle. Any size of tile.
   */
  firstWalkLanes(shape: number[], dtype: string, instr: string, walk: LsWalk): LsResult<{ lanes: number[] }>;
  /** One warp over a window [row, col, rows, cols] of a 2-D tile, `per` elements a lane: each lane's row-major index. */
  windowLanes(shape: number[], per: number, window: number[]): LsResult<{ lanes: number[] }>;
  /** Rank shared layouts for a writer and a reader, each "LANES;INSTR" (e.g. "rows;STS.128", ";ldmatrix.x4"). */
  advise(writer: string, reader: string, dtype: string, tile: number[] | string): LsResult<LsAdvice>;
  /**
   * The plan that moves a tensor of `shape` from one mesh layout to another (fp32, default bandwidths).
   * Error codes: "size-mismatch", "mesh-axis", "coverage", "not-expressible", and the parser's.
   */
  planReshard(from: string, to: string, shape: number[] | string, mesh: LsReshardMesh): LsResult<LsReshardPlan>;
  planReshardWith(
    from: string,
    to: string,
    shape: number[] | string,
    mesh: LsReshardMesh,
    options: LsReshardOptions | null,
  ): LsResult<LsReshardPlan>;
  /** A whole TTGIR dump, or a log of CuTe print() output, read for its layouts and layout-moving ops (never fails; see LsScan). */
  scanTtgir(text: string): LsResult<LsScan>;
  /**
   * A layout (the chapter's notation) as one of Triton's named encodings (#ttg.blocked, #ttg.swizzled_shared,
   * #ttg.nvmma_shared; auto: the first that fits, else #ttg.linear), or the engine's error saying why it does not
   * fit. elementBits: nvmma_shared's elementBitWidth (8, 16, 32, 64); 0 or null tries each.
   */
  exportTritonEncoding(
    layout: string,
    shape: LsShape,
    encoding: LsTritonEncoding,
    elementBits: number | null,
  ): LsResult<{ text: string }>;
  /** tcgen05.ld / tcgen05.st: threads x registers against TMEM; errors name the rule (slab, range, ...). */
  tmemAccess(options: LsTmemAccessOptions): LsResult<LsTmemAccess>;
  /** tcgen05.cp: where a shared-memory matrix lands in TMEM (shape "32x128b.warpx4", ...). */
  tmemCopy(options: {
    shape?: string;
    lane?: number;
    column?: number;
    allocatedColumns?: number;
  }): LsResult<LsTmemCopy>;
  /** Block-scaled MMA scale factors (kind mxf8f6f4 | mxf4 | mxf4nvf4), optionally following SF[at[0], at[1]]. */
  scaleFactors(options: {
    kind?: string;
    vec?: number;
    m?: number;
    k?: number;
    column?: number;
    at?: number[] | null;
  }): LsResult<LsScaleFactors>;
  /** Shared memory descriptor: { decode: "0x..." }, the fields, or { layout, shape, dtype, major, startAddress }. */
  smemDescriptor(options: Record<string, unknown>): LsResult<LsSmemDescriptor>;
  /** Whether a shared memory descriptor describes a tile layout; differences name the field. */
  smemDescriptorCheck(
    word: string,
    tile: { layout: string; shape?: string; dtype?: string; major?: string },
  ): LsResult<{
    matches: boolean;
    differences: { field: string; descriptor: number; layout: number }[];
    descriptor: LsSmemDescriptor;
  }>;
  /** Instruction descriptor: { kind, decode: "0x..." } or { kind, aType, bType, dType, m, n, ... }. */
  instrDescriptor(options: Record<string, unknown>): LsResult<LsInstrDescriptor>;
}

/** One side of a scanned op: the MLIR type, its layout as written and in the notation. */
export interface LsScanSide {
  type: string;
  layout: string;
  /** The layout in the chapter's notation; "" when it did not read. */
  axe: string;
  shape: number[];
  dtype: string;
  /** The element's width (16 for f16); 0 for pointers and element types the engine does not know. */
  elementBits: number;
  /** Why the layout did not read; "" when it did. */
  error: string;
}

/**
 * A layout alias (#blocked = #ttg.blocked<...>), read on the largest tensor or memdesc type whose layout it is:
 * shape, dtype, elementBits and axe are that type's (shape [] and axe "" when no type names it as its layout,
 * such as an #mma seen only as a dot_op's parent; error says why it did not read there).
 */
export interface LsScanAlias {
  name: string;
  kind: string;
  text: string;
  line: number;
  uses: number;
  shape: number[];
  dtype: string;
  elementBits: number;
  axe: string;
  error: string;
}

export interface LsScanOp {
  op: string;
  line: number;
  /** trivial, register permutation, warp shuffle, shared round trip, shared store, shared load, global to shared, tensor memory load, tensor memory store, TMA, shared allocation, unread */
  kind: string;
  src: LsScanSide;
  dst: LsScanSide;
  sharedBytes: number;
  instruction: string;
  instructions: number;
  wavefronts: number;
  idealWavefronts: number;
  conflicts: number;
  sectors: number;
  requests: number;
  score: number;
  note: string;
}

/** Triton's encodings exportTritonEncoding writes. */
export type LsTritonEncoding = 'linear' | 'auto' | 'blocked' | 'swizzled_shared' | 'nvmma_shared';

/** A CuTe layout printed in a log: print(layout), a swizzled one, a print_tensor or print_layout header. */
export interface LsScanCuteLayout {
  line: number;
  /** 1-based: the layout's first character (the swizzle's when there is one). */
  column: number;
  /** As printed, without an engine pointer before it. */
  text: string;
  /** "print_tensor" after an engine pointer, else "". */
  context: string;
  /** The layout in the chapter's notation; "" when it did not read. */
  axe: string;
  /** CuTe's top-level shape. */
  shape: number[];
  size: number;
  /** Why the layout did not read; "" when it did. */
  error: string;
}

export interface LsScan {
  lines: number;
  aliases: LsScanAlias[];
  /** CuTe layouts printed in the text, in text order. */
  cuteLayouts: LsScanCuteLayout[];
  /** By cost, highest first. */
  ops: LsScanOp[];
  unknownOps: { op: string; line: number; count: number }[];
  issues: { line: number; column: number; message: string }[];
}


export interface LayoutscopeModuleOptions {
  wasmBinary?: ArrayBuffer | Uint8Array;
  locateFile?: (path: string, prefix: string) => string;
  print?: (text: string) => void;
  printErr?: (text: string) => void;
}

declare function createLayoutscope(options?: LayoutscopeModuleOptions): Promise<LayoutscopeModule>;
export default createLayoutscope;

// ---- reshard (wasm/reshard_bindings.cpp) --------------------------------------------------------------

/** A device mesh: "gpuid_x=2,gpuid_y=4", { gpuid_x: 2, gpuid_y: 4 } (key order) or [["gpuid_x", 2], ...]. */
export type LsReshardMesh = string | Record<string, number> | [string, number][];

/** The tensor on one device (every device holding data holds the same local layout). */
export interface LsLocalTensor {
  /** S[(local extents):(strides on @m)], the local pieces in logical order. */
  layout: string;
  /** Per logical dimension: the product of its local pieces. */
  shape: number[];
  elements: number;
}

export interface LsReshardStep {
  op:
    | "all_gather"
    | "reduce_scatter"
    | "all_to_all"
    | "all_reduce"
    | "broadcast"
    | "send_recv"
    | "slice"
    | "drop"
    | "partition"
    | "permute";
  collective: boolean;
  /** The mesh axis; "" for a permute. */
  axis: string;
  /** Devices per collective group (the axis size; 2 for send_recv; 1 for a local step). */
  group: number;
  /** Groups running at once. */
  groups: number;
  /** Per mesh axis: "S(1)", "S(0..1)" (a run of pieces), "R", "P", "O(3)". */
  placementsBefore: string[];
  placementsAfter: string[];
  /** The mesh layouts before and after the step. */
  before: string;
  after: string;
  localBefore: LsLocalTensor;
  localAfter: LsLocalTensor;
  /** The pieces gathered, scattered or sliced: first and count (-1, 0 when none). */
  piece: number;
  pieces: number;
  /** broadcast and send_recv: the source coordinate; drop: the one that keeps; -1 otherwise. */
  root: number;
  /** send_recv: the destination coordinate; -1 otherwise. */
  target: number;
  /** nccl-tests' S for the operation. */
  sizeBytes: number;
  /** busbw / algbw: (n-1)/n, 2(n-1)/n for all_reduce, 1 for broadcast and send_recv. */
  busFactor: number;
  sendBytes: number;
  recvBytes: number;
  /** Local steps: bytes read + written. */
  localBytes: number;
  predictedSeconds: number;
  /** permute: the conversion plan of the two local layouts. */
  convert: {
    kind: "vector" | "tiled" | "interleave";
    commonVector: number;
    unitBytes: number;
    vectorUnits: number;
    tileA: number;
    tileB: number;
    blocks: number;
  } | null;
}

export interface LsReshardPlan {
  shape: number[];
  mesh: { axis: string; size: number }[];
  dtype: string;
  elemBytes: number;
  /** Canonical texts of the two layouts. */
  from: string;
  to: string;
  /** The common refinement of both layouts and the shape, outermost first. */
  pieces: { extent: number; dim: number }[];
  fromPlacements: string[];
  toPlacements: string[];
  steps: LsReshardStep[];
  bandwidths: { collectiveBusbwGbps: number; sendRecvGbps: number; localCopyGbps: number };
  /** Summed over the steps, per device. */
  sendBytes: number;
  recvBytes: number;
  predictedSeconds: number;
}

export interface LsReshardOptions {
  /** Element type for the byte counts (default f32). */
  dtype?: string;
  /** Measured bandwidths in GB/s; the engine's defaults (360, 360, 4000) otherwise. */
  collectiveBusbwGbps?: number;
  sendRecvGbps?: number;
  localCopyGbps?: number;
}
