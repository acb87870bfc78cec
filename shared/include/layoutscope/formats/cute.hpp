// CuTe C++ and CuTe DSL layouts in and out of the chapter's notation.
//
//   import_cute("(2,(2,2)):(4,(2,1))", {.shape = {2, 4}})  -> S[(2,2,2):(4,1,2)] on 2x4
//   import_cute("Sw<3,4,3> o _0 o (_8,_128):(_128,_1)", {}) -> Swizzle<3,4,3> o S[(8,128):(128,1)] on 8x128
//   import_cute("(_8,_128):(1@1,1@0)", {})                  -> S[(8,128):(1@c1,1@c0)]
//   import_cute_dsl("cute.make_ordered_layout((8,64), order=(1,0))", {}) -> S[(8,64):(64,1)] on 8x64
//   export_cute(S[(2,2,2):(4,1,2)], {2, 4})
//     -> "Layout<Shape<Int<2>,Shape<Int<2>,Int<2>>>,Stride<Int<4>,Stride<Int<2>,Int<1>>>>{}"
//   export_cute(Swizzle<3,3,3> o S[(8,64):(64,1)], {8, 64})
//     -> "composition(Swizzle<3,3,3>{}, Layout<Shape<Int<8>,Int<64>>,Stride<Int<64>,Int<1>>>{})"
//   export_cute_dsl(S[(4,8):(8,1)], {4, 8})                -> "cute.make_layout((4,8), stride=(8,1))"
//
// CuTe's first mode is fastest, the chapter's last: the modes of each logical dimension reverse (see
// cute.hpp, to_chapter). Without a shape the logical shape is the CuTe layout's top-level shape. A scaled
// basis k@i becomes k on axis c<i> and back. export_cute writes C++ that compiles against CuTe: static
// Int<N> types (every CuTe version declares Int<N>; its _N aliases exist only for some N), E<i> and
// ScaledBasis<Int<k>,i> strides. Both importers read every spelling (C++ print, C++ code, DSL print,
// DSL code); they differ only in the format they report.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "layoutscope/formats/format.hpp"

namespace layoutscope {

Result<Imported> import_cute(std::string_view text, const FormatContext& context);
Result<Imported> import_cute_dsl(std::string_view text, const FormatContext& context);
Result<std::string> export_cute(const Layout& layout, const std::vector<int64_t>& shape);
Result<std::string> export_cute_dsl(const Layout& layout, const std::vector<int64_t>& shape);

}  // namespace layoutscope
