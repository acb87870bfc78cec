// A second instance of the engine in a Worker, for the calls that walk every element of a large layout (the
// validator over a million cells, the advisor over a 64x64 tile): the page keeps answering clicks while they run.
//
//   main thread: offMain('validate', [layout, shape, 0]) -> Promise of the same value engine.validate returns
//   this file:   { id, fn, args } in, { id, r } (or { id, error }) out
// fn is an engine function, or 'arrangedTable': the playground's table of a layout with its arrangement
// (physical.ts), whose typed arrays are transferred back.
import createLayoutscope from '../generated/layoutscope.js';
import type { LayoutscopeModule, LsShape } from '../generated/layoutscope.js';
import { arrangedTable, type Limits } from './physical.js';

const ready = createLayoutscope();

self.onmessage = async (e: MessageEvent<{ id: number; fn: string; args: unknown[] }>) => {
  const { id, fn, args } = e.data;
  try {
    const m = await ready;
    if (fn === 'arrangedTable') {
      const [layout, shape, width, limits] = args as [string, LsShape, number, Limits];
      const r = arrangedTable(m as LayoutscopeModule, layout, shape, width, limits);
      // the arrays move to the page instead of being copied
      const p = r.ok ? r.placement : null;
      const transfer = r.ok && p ? [r.t.values, p.rowOf, p.colOf, p.outOfRange, p.cellAt].map((a) => a.buffer) : [];
      postMessage({ id, r }, { transfer });
      return;
    }
    const f = (m as unknown as Record<string, (...a: unknown[]) => unknown>)[fn];
    postMessage({ id, r: f(...args) });
  } catch (err) {
    postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
};
