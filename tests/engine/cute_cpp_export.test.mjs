// `layoutscope export --to cute` writes C++ that a CuTe kernel can paste: each exported text is compiled by
// g++ -fsyntax-only against minimal declarations written here (CuTe's names and template signatures: Int<N>,
// Shape<...>, Stride<...>, Layout<Shape,Stride>, Swizzle<B,M,S>, E<i>, ScaledBasis<T,i>, and the
// composition(Swizzle, [offset,] Layout) overloads of include/cute/swizzle_layout.hpp), with a static_assert
// on the type CuTe would build, worked out by hand from CuTe's rules (first mode fastest, the swizzle applied
// after the layout and its offset). The text is also imported back and must put every element where the
// original layout does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const bin = process.env.LAYOUTSCOPE_BIN ?? 'build/bin/layoutscope';
const cxx = process.env.CXX ?? 'g++';

function run(...args) {
  const r = spawnSync(bin, args, { encoding: 'utf8' });
  const lines = r.stdout.trim().split('\n').filter(Boolean);
  return { code: r.status, lines: lines.map((l) => (l.startsWith('{') ? JSON.parse(l) : l)), err: r.stderr };
}

// Just enough of CuTe's interface for the exported expressions to type-check: the types carry their
// parameters, so the static_assert below sees what CuTe would build.
const DECLARATIONS = `
#include <type_traits>
namespace cute {
template <int N> struct Int {};
template <class... T> struct Shape {};
template <class... T> struct Stride {};
template <class ShapeT, class StrideT> struct Layout {};
template <int B, int M, int S> struct Swizzle {};
template <class T, int N> struct ScaledBasis {};
template <int N> using E = ScaledBasis<Int<1>, N>;
template <class Outer, class Offset, class Inner> struct ComposedLayout {};
template <int B, int M, int S, class Sh, class St>
ComposedLayout<Swizzle<B, M, S>, Int<0>, Layout<Sh, St>> composition(Swizzle<B, M, S>, Layout<Sh, St>);
template <int B, int M, int S, int O, class Sh, class St>
ComposedLayout<Swizzle<B, M, S>, Int<O>, Layout<Sh, St>> composition(Swizzle<B, M, S>, Int<O>, Layout<Sh, St>);
}  // namespace cute
using namespace cute;
`;

function compiles(expression, expectedType) {
  const dir = mkdtempSync(join(tmpdir(), 'ls-cute-'));
  try {
    const file = join(dir, 'exported.cpp');
    writeFileSync(
      file,
      `${DECLARATIONS}\nauto exported = ${expression};\n` +
        `static_assert(std::is_same_v<decltype(exported), ${expectedType}>);\n`,
    );
    const r = spawnSync(cxx, ['-std=c++17', '-fsyntax-only', file], { encoding: 'utf8' });
    return { ok: r.status === 0, stderr: r.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Where every element of `layout` over `shape` lands, from the CLI's table (one JSON line per element).
function positions(layout, shape, from = null) {
  const args = ['table', layout, '--shape', shape];
  if (from) args.push('--from', from);
  const r = run(...args);
  assert.equal(r.code, 0, r.err);
  return r.lines.slice(1).map((l) => JSON.stringify(l.positions ?? l.position ?? l));
}

const CASES = [
  {
    what: "the chapter's swizzled 8x64 atom",
    layout: 'Swizzle<3,3,3> o S[(8,64):(64,1)]',
    shape: '8,64',
    type: 'const ComposedLayout<Swizzle<3,3,3>, Int<0>, Layout<Shape<Int<8>,Int<64>>, Stride<Int<64>,Int<1>>>>',
  },
  {
    what: 'a swizzle with an offset before it',
    layout: 'Swizzle<3,4,3> o S[(8,128):(128,1)] + O[16]',
    shape: '8,128',
    type: 'const ComposedLayout<Swizzle<3,4,3>, Int<16>, Layout<Shape<Int<8>,Int<128>>, Stride<Int<128>,Int<1>>>>',
  },
  {
    // 2x4 in 2-element tiles: the column's modes reverse (CuTe's first sub-mode is the fastest)
    what: 'a nested mode',
    layout: 'S[(2,2,2):(4,1,2)]',
    shape: '2,4',
    type: 'const Layout<Shape<Int<2>,Shape<Int<2>,Int<2>>>, Stride<Int<4>,Stride<Int<2>,Int<1>>>>',
  },
  {
    what: 'scaled-basis strides (a TMA coordinate layout)',
    layout: 'S[(8,16):(2@c1,1@c0)]',
    shape: '8,16',
    type: 'const Layout<Shape<Int<8>,Int<16>>, Stride<ScaledBasis<Int<2>,1>, ScaledBasis<Int<1>,0>>>',
  },
  {
    what: 'a 1-D reversed layout',
    layout: 'S[8:-1]',
    shape: '8',
    type: 'const Layout<Int<8>, Int<-1>>',
  },
];

for (const c of CASES) {
  test(`export --to cute of ${c.what} is C++ of the right type and imports back`, () => {
    const r = run('export', '--to', 'cute', c.layout, '--shape', c.shape);
    assert.equal(r.code, 0, r.err);
    const text = r.lines[0].text;
    // `auto x = value;` deduces the non-const type; the static_assert names it with const stripped
    const compiled = compiles(text, c.type.replace(/^const /, ''));
    assert.ok(compiled.ok, `${text}\n${compiled.stderr}`);
    assert.deepEqual(positions(text, c.shape, 'cute'), positions(c.layout, c.shape));
  });
}

test('the old print() spelling of a swizzled layout is not C++ (the declarations reject it)', () => {
  // keeps the compile check honest: a text that is not an expression must fail it
  assert.equal(compiles('Sw<3,3,3> o 0 o (8,64):(64,1)', 'int').ok, false);
});
