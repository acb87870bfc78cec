// What a figure's selection names, resolved by the engine. A hit is "L:x" (logical element x) or a physical
// position, "<kind>:v0:v1:..." or "P:v0,v1,...", whose numbers the figure turns into an inverse query.
import type { Engine, LsMapping, LsShape } from '../core/engine.js';

/** The logical elements `selection` names: x for "L:x", else every element the engine places at the physical
 * position that `query` builds from the hit's numbers (empty when the engine refuses the query). */
export function selectedElements(
  eng: Engine,
  layout: string,
  shape: LsShape,
  selection: string,
  query: (values: number[]) => Record<string, number>,
): Set<number> {
  const values = selection
    .slice(selection.indexOf(':') + 1)
    .split(/[:,]/)
    .map(Number);
  if (selection.startsWith('L:')) return new Set([values[0]]);
  const inv = eng.inverse(layout, shape, query(values));
  return new Set(inv.ok ? inv.hits.map((h) => h.index) : []);
}

/** The engine's mapping of one element, or undefined when it refuses. */
export function mappingOf(eng: Engine, layout: string, shape: LsShape, x: number): LsMapping | undefined {
  const f = eng.forward(layout, shape, x);
  return f.ok ? f : undefined;
}
