// The one place the page talks to the WASM module: loading (once), argument defaults, and turning
// { ok: false, error } values into thrown EngineErrors for code that prefers exceptions. All layout math is
// the C++ engine's; this file only forwards.
import createLayoutscope from '../generated/layoutscope.js';
import { compileEngine } from './engine-compile.js';
import { arrangedTable, type ArrangedTable, type Limits } from './physical.js';
import type {
  LayoutscopeModule,
  LayoutscopeModuleOptions,
  LsAccessCost,
  LsAdvice,
  LsBankAccess,
  LsCandidate,
  LsFormat,
  LsImported,
  LsMesh,
  LsReshardPlan,
  LsReshardStep,
  LsBankModel,
  LsError,
  LsFinding,
  LsInverseHit,
  LsMapping,
  LsParsedLayout,
  LsResult,
  LsSectorAccess,
  LsShape,
  LsSwizzleAtom,
  LsTable,
  LsTritonEncoding,
} from '../generated/layoutscope.js';

export type {
  LsAccessCost,
  LsAdvice,
  LsBankAccess,
  LsCandidate,
  LsFormat,
  LsImported,
  LsMesh,
  LsReshardPlan,
  LsReshardStep,
  LsResult,
  LsSectorAccess,
  LsError,
  LsFinding,
  LsInverseHit,
  LsMapping,
  LsParsedLayout,
  LsShape,
  LsSwizzleAtom,
  LsTable,
  LsTritonEncoding,
};

export class EngineError extends Error {
  constructor(readonly detail: LsError) {
    super(detail.column > 0 ? `column ${detail.column}: ${detail.message}` : detail.message);
  }
}

let modulePromise: Promise<LayoutscopeModule> | undefined;

/** Emscripten's hook for a module compiled elsewhere: instantiate it with the glue's imports, hand the instance
 * back, and return {} (the exports arrive later). */
interface InstantiateOptions extends LayoutscopeModuleOptions {
  instantiateWasm(
    imports: WebAssembly.Imports,
    receive: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void,
  ): object;
}

export function loadEngine(): Promise<LayoutscopeModule> {
  modulePromise ??= new Promise<LayoutscopeModule>((resolve, reject) => {
    const options: InstantiateOptions = {
      instantiateWasm(imports, receive) {
        compileEngine()
          .then((module) => WebAssembly.instantiate(module, imports).then((instance) => receive(instance, module)))
          .catch(reject);
        return {};
      },
    };
    createLayoutscope(options).then(resolve, reject);
  });
  return modulePromise;
}

/** A loaded engine with defaults filled in; every method returns the module's result value unchanged. */
export class Engine {
  constructor(readonly m: LayoutscopeModule) {}

  parse(text: string): LsResult<LsParsedLayout> {
    return this.m.parseLayout(text);
  }
  forward(layout: string, shape: LsShape, index: number): LsResult<LsMapping> {
    return this.m.forwardIndex(layout, shape, index);
  }
  parseShape(text: string) {
    return this.m.parseShape(text);
  }
  inverse(layout: string, shape: LsShape, query: Record<string, number>, cellLimit = 0) {
    return this.m.inverse(layout, shape, query, cellLimit);
  }
  table(layout: string, shape: LsShape, cellLimit = 0): LsResult<LsTable> {
    return this.m.table(layout, shape, cellLimit);
  }
  validate(layout: string, shape: LsShape, cellLimit = 0) {
    return this.m.validate(layout, shape, cellLimit);
  }
  bankAccess(addrs: number[], width: number, model: LsBankModel | null = null): LsResult<LsBankAccess> {
    return this.m.bankAccess(addrs, width, model);
  }
  laneAddresses(layout: string, shape: LsShape, indices: number[], elemBytes: number) {
    return this.m.laneAddresses(layout, shape, indices, elemBytes);
  }
  /** One warp over a window [row, col, rows, cols] of a 2-D tile, `per` elements a lane: each lane's index. */
  windowLanes(shape: number[], per: number, window: number[]): LsResult<{ lanes: number[] }> {
    return this.m.windowLanes(shape, per, window);
  }
  sectorAccess(addrs: number[], width: number): LsResult<LsSectorAccess> {
    return this.m.sectorAccess(addrs, width);
  }
  dtypeBytes(name: string) {
    return this.m.dtypeBytes(name);
  }
  swizzleAtom(mode: string, dtype: string): LsResult<LsSwizzleAtom> {
    return this.m.swizzleAtom(mode, dtype);
  }
  /** The axes with a hardware range (laneid < 32, TLane < 128, ...), as { name: limit }; axes that are only
   * non-negative (m, gpuid_*, limit 0 in the engine's table) map to Infinity. */
  hardwareLimits(): Record<string, number> {
    return Object.fromEntries(this.m.hardwareAxes().map((a) => [a.name, a.limit > 0 ? a.limit : Infinity]));
  }
  /** The syntax a pasted text is most likely written in ('axe': the chapter's notation). */
  detectFormat(text: string): LsFormat {
    return this.m.detectFormat(text);
  }
  importLayout(from: LsFormat, text: string, shape: LsShape, mesh: LsMesh | null): LsResult<LsImported> {
    return this.m.importLayout(from, text, shape, mesh);
  }
  exportLayout(to: LsFormat, layout: string, shape: LsShape, mesh: LsMesh | null): LsResult<{ text: string }> {
    return this.m.exportLayout(to, layout, shape, mesh);
  }
  /** One of Triton's named encodings, or the engine's error saying why the layout is not one. */
  exportTritonEncoding(
    layout: string,
    shape: LsShape,
    encoding: LsTritonEncoding,
    elementBits: number | null,
  ): LsResult<{ text: string }> {
    return this.m.exportTritonEncoding(layout, shape, encoding, elementBits);
  }
  advise(writer: string, reader: string, dtype: string, tile: number[]): LsResult<LsAdvice> {
    return this.m.advise(writer, reader, dtype, tile);
  }
  accessCost(
    layout: string,
    shape: LsShape,
    dtype: string,
    instr: string,
    lanes: string | null,
  ): LsResult<LsAccessCost> {
    return this.m.accessCost(layout, shape, dtype, instr, lanes, null);
  }
  planReshard(from: string, to: string, shape: number[] | string, mesh: Record<string, number>) {
    return this.m.planReshard(from, to, shape, mesh);
  }
  applySwizzle(s: { bits: number; base: number; shift: number; inner: boolean }, offsets: number[]) {
    return this.m.applySwizzle(s.bits, s.base, s.shift, s.inner, offsets);
  }
  /** The engine's element type names, narrowest first (what the dtype menus offer). */
  dtypeNames(): string[] {
    return this.m.dtypes().map((d) => d.dtype);
  }
  /** The default bank model: 32 banks of 4 B, 128 B a wavefront. */
  bankModel(): Required<LsBankModel> {
    return this.m.bankModel();
  }
  /** Bytes one lane's access moves for elements of elemBytes (widened to the bank's word, at most 16). */
  laneAccessBytes(elemBytes: number, model: LsBankModel | null = null): number {
    return this.m.laneAccessBytes(elemBytes, model);
  }
  /** The first byte of the width-byte access holding byte address `byte`. */
  accessStart(byte: number, width: number): number {
    return this.m.accessStart(byte, width);
  }
  /** The shape a figure draws a layout on when none is given (rows of its last mode). */
  drawingShape(layout: string) {
    return this.m.drawingShape(layout);
  }
  parseMesh(text: string) {
    return this.m.parseMesh(text);
  }
  /** A results document's (or run record's) CSV, by the agent's own printer: its columns and cells, byte for byte. */
  resultsCsv(text: string) {
    return this.m.resultsCsv(text);
  }
}

/** The calls that may run for a second or more on large inputs; offMain runs them in a Worker (engine-worker.ts). */
type Slow = 'validate' | 'advise' | 'accessCost';
let worker: Worker | null | undefined;
let nextId = 0;
const waiting = new Map<number, { resolve: (r: unknown) => void; fallback: () => void }>();

function engineWorker(): Worker | null {
  if (worker !== undefined) return worker;
  try {
    worker = new Worker(new URL('./engine-worker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (e: MessageEvent<{ id: number; r?: unknown; error?: string }>) => {
      const w = waiting.get(e.data.id);
      waiting.delete(e.data.id);
      if (!w) return;
      if (e.data.error !== undefined) w.fallback();
      else w.resolve(e.data.r);
    };
    // a worker that cannot start (a policy that forbids workers, a page opened from disk): every call, waiting
    // or later, runs on the page's own engine
    worker.onerror = () => {
      worker = null;
      for (const w of waiting.values()) w.fallback();
      waiting.clear();
    };
  } catch {
    worker = null;
  }
  return worker;
}

/** Posts one call to the worker; `here` computes the same answer on the page when no worker runs. */
function post<R>(fn: string, args: unknown[], here: () => R): Promise<R> {
  const w = engineWorker();
  if (!w) return Promise.resolve().then(here);
  return new Promise<R>((resolve) => {
    const id = nextId++;
    waiting.set(id, { resolve: (r) => resolve(r as R), fallback: () => resolve(here()) });
    w.postMessage({ id, fn, args });
  });
}

/** The engine's answer to a slow call, computed off the main thread (the same value the Engine method returns);
 * on the page's engine when no worker can run. */
export function offMain<K extends Slow>(
  eng: Engine,
  fn: K,
  ...args: Parameters<LayoutscopeModule[K]>
): Promise<ReturnType<LayoutscopeModule[K]>> {
  type R = ReturnType<LayoutscopeModule[K]>;
  return post(fn, args, () => (eng.m[fn] as (...a: unknown[]) => R)(...args));
}

/** A layout's table and its arrangement for the playground (arrangeTable), both computed in the worker: for a
 * million cells the table and the loops over it take hundreds of milliseconds, which the page spends answering
 * input instead. The per-cell arrays come back transferred, not copied. */
export function arrangedTableOffMain(
  eng: Engine,
  layout: string,
  shape: LsShape,
  width: number,
  limits: Limits,
): Promise<LsResult<ArrangedTable>> {
  const here = () => arrangedTable(eng.m, layout, shape, width, limits);
  return post('arrangedTable', [layout, shape, width, limits], here);
}

let enginePromise: Promise<Engine> | undefined;
export function engine(): Promise<Engine> {
  enginePromise ??= loadEngine().then((m) => new Engine(m));
  return enginePromise;
}

/** The value of an ok result, or an EngineError. */
export function must<T>(r: LsResult<T>): { ok: true } & T {
  if (!r.ok) throw new EngineError(r.error);
  return r;
}

/** One table entry: the position of element x in replica r. */
export function position(t: LsTable, x: number, r = 0): number[] {
  const n = t.axes.length;
  const base = (x * t.replicas + r) * n;
  return Array.from(t.values.subarray(base, base + n));
}
