// A second instance of the engine in a Worker, for the calls that walk every element of a large layout (the
// validator over a million cells, the advisor over a 64x64 tile): the page keeps answering clicks while they run.
//
//   main thread: offMain('validate', [layout, shape, 0]) -> Promise of the same value engine.validate returns
//   this file:   { id, fn, args } in, { id, r } (or { id, error }) out
import createLayoutscope from './generated/layoutscope.js';

const ready = createLayoutscope();

self.onmessage = async (e: MessageEvent<{ id: number; fn: string; args: unknown[] }>) => {
  const { id, fn, args } = e.data;
  try {
    const m = (await ready) as unknown as Record<string, (...a: unknown[]) => unknown>;
    postMessage({ id, r: m[fn](...args) });
  } catch (err) {
    postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
};
