// CuTe's layout algebra, fact by fact: each row is an operation, its arguments in CuTe's print syntax and
// CuTe C++'s answer, or the reason CuTe C++ refuses. Where a row comes from CuTe's documentation
// (media/docs/cpp/cute/02_layout_algebra.md) it says "doc"; the others are worked out by hand from the
// definitions in include/cute/layout.hpp (composition_impl, complement, right_inverse, left_inverse,
// logical_divide, logical_product, blocked_product, raked_product) and include/cute/int_tuple.hpp
// (ceil_div of a shape by an integer divides mode by mode), the working in the comment beside the row.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "layoutscope/algebra.hpp"

namespace layoutscope::cute {
namespace {

struct Fact {
  const char* op;
  std::vector<std::string> args;
  const char* answer;  // CuTe's print of the result, or "error: <words of the reason>"
};

const std::vector<Fact>& facts() {
  static const std::vector<Fact> f = {
      // ---- coalesce: flatten, drop extent-1 modes, merge a mode that continues the one before it.
      {"coalesce", {"(_2,(_1,_6)):(_1,(_6,_2))"}, "12:1"},                    // doc
      {"coalesce", {"((16,4),128):((1@0,16@0),1@1)"}, "(64,128):(1@0,1@1)"},  // 16 * 1@0 = 16@0 merges
      {"coalesce", {"(2,4):(4,1)"}, "(2,4):(4,1)"},                           // 2*4 != 1
      {"coalesce", {"(1,1):(3,5)"}, "1:0"},                                   // nothing left: _1:_0
      {"coalesce", {"(2,3):(0,0)"}, "6:0"},                                   // 2*0 == 0
      {"coalesce", {"(4,(1,2)):(1,(7,4))"}, "8:1"},                           // the 1 drops, 4*1 == 4
      {"coalesce", {"(2,2):(1@0,2@0)"}, "4:1@0"},                             // one axis
      {"coalesce", {"(2,2):(1@0,2@1)"}, "(2,2):(1@0,2@1)"},                   // 2@0 is not 2@1
      {"coalesce", {"(4,2):(E<0>,4@0)"}, "8:1@0"},                            // E<0> is 1@0
      {"coalesce", {"(2,(3,4)):(12,(4,1))"}, "(2,3,4):(12,4,1)"},             // 24 != 4, 12 != 1
      {"coalesce", {"(8,1,4):(1,0,8)"}, "32:1"},
      {"coalesce", {"():()"}, "1:0"},  // the empty layout, size 1
      {"coalesce", {"(_8,_128):(1@1,1@0)"}, "(8,128):(1@1,1@0)"},

      // ---- composition: A o B, B's leaves through A's coalesced modes.
      {"composition", {"(20):(2)", "(5,4):(4,1)"}, "(5,4):(8,2)"},                         // doc
      {"composition", {"(6,2):(8,2)", "(4,3):(3,1)"}, "((2,2),3):((24,2),8)"},             // doc
      {"composition", {"(10,2):(16,4)", "(5,4):(1,5)"}, "(5,(2,2)):(16,(80,4))"},          // doc
      {"composition", {"(12,(4,8)):(59,(13,1))", "[3:4,8:2]"}, "(3,(2,4)):(236,(26,1))"},  // doc
      {"composition", {"(12,(4,8)):(59,(13,1))", "[3:4, 8:2]"}, "(3,(2,4)):(236,(26,1))"},
      {"composition", {"(12,(4,8)):(59,(13,1))", "(3,8)"}, "(3,(4,2)):(59,(13,1))"},  // doc
      // 3 < 8 passes the weak stride condition: ceil(8/3) = 3 >= 2, one mode 2:(3*8).
      {"composition", {"(8,8):(8,1)", "2:3"}, "2:24"},
      // 4:4 through mode 0 (4 | 4, nothing left, stride 1 on), then 4:1 through mode 1 (stride 4).
      {"composition", {"(4,4):(4,1)", "(4,4):(4,1)"}, "(4,4):(1,4)"},
      // A maps to coordinates: 4:8 skips mode 0 (8 | 8) and lands on 1@1; 8:1 takes mode 0.
      {"composition", {"(8,128):(1@0,1@1)", "(4,8):(8,1)"}, "(4,8):(1@1,1@0)"},
      {"composition", {"(2,2):(1@0,1@1)", "4:1"}, "(2,2):(1@0,1@1)"},
      {"composition", {"(8,128):(1@1,1@0)", "4:1"}, "4:1@1"},
      // B's strides on A's modes: 2:1@1 is 8:1 o 2:1, 4:2@0 is 4:8 o 4:2.
      {"composition", {"(4,8):(8,1)", "(2,4):(1@1,2@0)"}, "(2,4):(1,16)"},
      {"composition", {"(4,8):(8,1)", "(4,2):(1,0)"}, "(4,2):(8,0)"},
      {"composition", {"(4,2):(2,1)", "8:1"}, "(4,2):(2,1)"},
      {"composition", {"8:2", "4:2"}, "4:4"},
      {"composition", {"(4,6):(1,4)", "6:4"}, "6:4"},  // A coalesces to 24:1
      // Stride 4 < 6 passes; the answer is CuTe's, not A(B(i)) (A(8) = 9, the result says 7).
      {"composition", {"(6,2):(1,7)", "4:4"}, "(2,2):(4,7)"},
      // 3 of mode 1 (stride 1 after mode 0), 4 is not a multiple of 3.
      {"composition", {"(2,3,4):(1,20,100)", "4:2"}, "error: shape divisibility"},
      // 6 is neither a multiple of 4 nor less than it.
      {"composition", {"(4,8):(1,5)", "2:6"}, "error: stride divisibility"},
      {"composition", {"(4,8):(8,1)", "[2:1,2:1,2:1]"}, "error: the tiler has 3 modes"},
      {"composition", {"(4,8):(8,1)", "2:1@2"}, "error: names mode 2"},

      // ---- complement: gaps between the sorted strides, then the rest up to the cotarget.
      {"complement", {"4:1", "24"}, "6:4"},                   // doc
      {"complement", {"6:4", "24"}, "4:1"},                   // doc
      {"complement", {"(4,6):(1,4)", "24"}, "1:0"},           // doc
      {"complement", {"4:2", "24"}, "(2,3):(1,8)"},           // doc
      {"complement", {"(2,4):(1,6)", "24"}, "3:2"},           // doc
      {"complement", {"(2,2):(1,6)", "24"}, "(3,2):(2,12)"},  // doc
      {"complement", {"(2,2):(1,6)"}, "3:2"},                 // cotarget cosize 8: ceil(8/12) = 1
      // Filtered (6,6):(2,53): gap 2/1 = 2 at 1, gap 53/12 = 4 at 12, ceil(36/318) = 1.
      {"complement", {"(6,6,1):(2,53,6)", "36"}, "(2,4):(1,12)"},
      {"complement", {"4:2"}, "2:1"},  // cosize 7, ceil(7/8) = 1
      {"complement", {"8:1", "16"}, "2:8"},
      {"complement", {"8:1", "8"}, "1:0"},
      // A shape cotarget divides mode by mode: ceil(6/4) = 2, then ceil(4/6) = 1 into 6: 12, not 9.
      {"complement", {"4:1", "(6,6)"}, "12:4"},
      {"complement", {"4:1", "36"}, "9:4"},
      {"complement", {"(2,4):(4,1)", "16"}, "2:8"},
      {"complement", {"(4,2):(0,1)", "8"}, "4:2"},  // stride 0 filtered
      {"complement", {"(1,1):(0,0)", "5"}, "5:1"},
      // The second stride 1 over the 2 already reached: 1/2 = 0, CuTe's static assertion.
      {"complement", {"(2,2):(1,1)", "8"}, "error: not injective"},
      {"complement", {"(2,2):(1@0,1@1)", "8"}, "error: different coordinate axes"},

      // ---- divides: A o (B, complement(B, shape(coalesce(A)))).
      {"logical_divide", {"(4,2,3):(2,1,8)", "4:2"}, "((2,2),(2,3)):((4,1),(2,8))"},  // doc
      {"logical_divide",
       {"(9,(4,8)):(59,(13,1))", "[3:3,(2,4):(1,8)]"},
       "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))"},  // doc
      {"zipped_divide",
       {"(9,(4,8)):(59,(13,1))", "[3:3,(2,4):(1,8)]"},
       "((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))"},  // doc (shape ((3,8),(3,4)))
      {"tiled_divide",
       {"(9,(4,8)):(59,(13,1))", "[3:3,(2,4):(1,8)]"},
       "((3,(2,4)),3,(2,2)):((177,(13,2)),59,(26,1))"},
      {"zipped_divide", {"(4,2,3):(2,1,8)", "4:2"}, "((2,2),(2,3)):((4,1),(2,8))"},
      {"tiled_divide", {"(4,2,3):(2,1,8)", "4:2"}, "((2,2),2,3):((4,1),2,8)"},
      {"logical_divide", {"16:1", "4:1"}, "(4,4):(1,4)"},
      {"logical_divide", {"24:1", "4"}, "(4,6):(1,4)"},
      // Mode by mode: 4:1 / 2:1 = (2,2):(1,2); 6:4 / 3:2, complement(3:2, 6) = 2:1, 6:4 o (3,2):(2,1).
      {"logical_divide", {"(4,6):(1,4)", "[2:1,3:2]"}, "((2,2),(3,2)):((1,2),(8,4))"},
      {"logical_divide", {"(8,8):(8,1)", "[4:1,2:1]"}, "((4,2),(2,4)):((8,32),(1,2))"},
      // shape(coalesce(A)) = (6,6): complement(4:1, (6,6)) = 12:4; 12:4 passes mode 0 with 4 < 6.
      {"logical_divide", {"(6,6):(1,7)", "4:1"}, "(4,(2,6)):(1,(4,7))"},
      {"logical_divide", {"(4,8):(8,1)", "[2:1,2:1,2:1]"}, "error: the tiler has 3 modes"},

      // ---- products: (A, complement(A, size(A) * cosize(B)) o B).
      {"logical_product", {"(2,2):(4,1)", "6:1"}, "((2,2),(2,3)):((4,1),(2,8))"},          // doc
      {"logical_product", {"(2,2):(4,1)", "(4,2):(2,1)"}, "((2,2),(4,2)):((4,1),(8,2))"},  // doc
      // complement((6,6,1):(2,53,6), 72) = (2,4):(1,12); its first 2 elements are 2:1.
      {"logical_product", {"(6,6,1):(2,53,6)", "2:1"}, "((6,6,1),2):((2,53,6),1)"},
      {"logical_product", {"4:1", "3:1"}, "(4,3):(1,4)"},
      {"logical_product", {"(2,3):(1,2)", "[2:1,2:1]"}, "((2,2),(3,2)):((1,2),(2,1))"},
      {"blocked_product", {"(2,5):(5,1)", "(3,4):(1,3)"}, "((2,3),(5,4)):((5,10),(1,30))"},  // doc
      {"raked_product", {"(2,5):(5,1)", "(3,4):(1,3)"}, "((3,2),(4,5)):((10,5),(30,1))"},    // doc
      // Rank 1: complement((4):(2), 24) o 6:1 = (2,3):(1,8), all 24 elements in the one mode.
      {"blocked_product", {"(4):(2)", "6:1"}, "((4,(2,3))):((2,(1,8)))"},
      {"blocked_product", {"4:2", "6:1"}, "((4,(2,3))):((2,(1,8)))"},
      {"blocked_product", {"(4):(2)", "(6):(1)"}, "((4,(2,3))):((2,(1,8)))"},
      {"raked_product", {"(4):(2)", "6:1"}, "(((2,3),4)):(((1,8),2))"},
      {"raked_product", {"(4):(2)", "(6):(1)"}, "(((2,3),4)):(((1,8),2))"},
      {"raked_product", {"4:1", "3:1"}, "((3,4)):((4,1))"},
      // B padded to (3,1):(1,0): complement((2,2):(1,2), 12) = 3:4, composed (3,1):(4,0).
      {"blocked_product", {"(2,2):(1,2)", "3:1"}, "((2,3),(2,1)):((1,4),(2,0))"},

      // ---- inverses.
      {"right_inverse", {"(4,2):(2,1)"}, "(2,4):(4,1)"},
      {"right_inverse", {"(2,4):(4,1)"}, "(4,2):(2,1)"},
      {"right_inverse", {"4:2"}, "1:0"},
      {"right_inverse", {"(2,2,2):(4,1,2)"}, "(4,2):(2,1)"},  // coalesces to (2,4):(4,1)
      {"right_inverse", {"(4,8):(1@0,4@0)"}, "32:1"},         // one axis: 32:1@0
      {"right_inverse", {"():()"}, "1:0"},
      {"right_inverse", {"(8,128):(1@0,1@1)"}, "error: more than one coordinate axis"},
      {"left_inverse", {"(2,4):(4,1)"}, "(4,2):(2,1)"},
      {"left_inverse", {"4:2"}, "(2,4):(0,1)"},
      // L(a,b) = 2a + b: R(x0 + 2 x1) = 3 x0 + x1.
      {"left_inverse", {"(3,2):(2,1)"}, "(2,3):(3,1)"},
      {"left_inverse", {"(2,3):(3,1)"}, "(3,2):(2,1)"},
      // Strides 2 then 3: 3 is not a multiple of 2 (CuTe's left inverse divisibility condition).
      {"left_inverse", {"(2,2):(2,3)"}, "error: divisibility"},

      // ---- max_common_vector.
      {"max_common_vector", {"(8,4):(1,8)", "(8,4):(1,8)"}, "32"},
      {"max_common_vector", {"(8,4):(1,8)", "(8,4):(4,1)"}, "1"},
      {"max_common_vector", {"(8,4):(1,8)", "(4,2,4):(1,16,4)"}, "4"},
      // ---- more coalesce, by the rule above (worked by hand).
      {"coalesce", {"(4,2):(1,4)"}, "8:1"},
      {"coalesce", {"(4,2):(2,8)"}, "8:2"},
      {"coalesce", {"(4,2):(1,8)"}, "(4,2):(1,8)"},
      {"coalesce", {"(2,(3,4)):(1,(2,6))"}, "24:1"},
      {"coalesce", {"((2,3),4):((1,2),6)"}, "24:1"},
      {"coalesce", {"(3,1,5):(1,9,3)"}, "15:1"},  // the 1 drops, 3 == 3*1
      {"coalesce", {"(1,8):(5,1)"}, "8:1"},
      {"coalesce", {"(8,1):(1,5)"}, "8:1"},
      {"coalesce", {"(2,2,2):(1,2,4)"}, "8:1"},
      {"coalesce", {"(2,2,2):(4,2,1)"}, "(2,2,2):(4,2,1)"},
      {"coalesce", {"(2,2,2):(1,2,8)"}, "(4,2):(1,8)"},  // 1,2 merge (2 == 2*1); 8 != 2*2
      {"coalesce", {"(2,2,2):(1,4,8)"}, "(2,4):(1,4)"},  // 4 != 2*1; 8 == 2*4 merges
      {"coalesce", {"(4,4):(0,0)"}, "16:0"},             // 0 == 4*0
      {"coalesce", {"(4,4):(1,0)"}, "(4,4):(1,0)"},
      {"coalesce", {"(4,4):(0,1)"}, "(4,4):(0,1)"},
      {"coalesce", {"(3,3):(1,3)"}, "9:1"},
      {"coalesce", {"(3,3):(3,1)"}, "(3,3):(3,1)"},
      {"coalesce", {"((2,2),(2,2)):((1,2),(4,8))"}, "16:1"},
      {"coalesce",
       {"((2,2),(2,2)):((1,4),(2,8))"},
       "(2,2,2,2):(1,4,2,8)"},  // flattened 1,4,2,8: no stride is the one before times its extent
      {"coalesce", {"(6,1,1):(2,7,9)"}, "6:2"},
      {"coalesce", {"(1,1,1):(0,0,0)"}, "1:0"},
      {"coalesce", {"(5,2):(2,10)"}, "10:2"},
      {"coalesce", {"(2,5):(10,2)"}, "(2,5):(10,2)"},
      {"coalesce", {"(2,4):(1@0,2@0)"}, "8:1@0"},
      {"coalesce", {"(4,4):(1@0,1@1)"}, "(4,4):(1@0,1@1)"},
      {"coalesce", {"(2,2,2):(1@1,2@1,4@1)"}, "8:1@1"},
      {"coalesce", {"(3,4):(4,1)"}, "(3,4):(4,1)"},
      // ---- more composition: A coalesced, B's stride divides A's modes out from the front, then B's
      // extent is taken from what is left (worked by hand, the working beside the row).
      {"composition", {"(4,8):(8,1)", "8:1"}, "(4,2):(8,1)"},  // 4 of mode 0, then 2 of mode 1
      {"composition", {"(4,8):(8,1)", "2:4"}, "2:1"},  // stride 4 consumes mode 0 (4 | 4), 2 of mode 1
      {"composition",
       {"(4,8):(8,1)", "4:2"},
       "(2,2):(16,1)"},  // stride 2 leaves 4/2 = 2 of mode 0 at 8*2, then 2 of mode 1
      {"composition",
       {"(4,8):(8,1)", "(2,4):(1,2)"},
       "(2,(2,2)):(8,(16,1))"},  // mode by mode of B: 2:1 -> 2:8, 4:2 -> (2,2):(16,1)
      {"composition", {"(3,4):(4,1)", "3:1"}, "3:4"},
      {"composition", {"(3,4):(4,1)", "6:1"}, "(3,2):(4,1)"},
      {"composition", {"(3,4):(4,1)", "4:3"}, "4:1"},
      {"composition",
       {"(3,4):(4,1)", "2:6"},
       "2:2"},  // 6 = 3 * 2: past mode 0, then 2 | 4 leaves 2 at stride 2
      {"composition", {"(3,4):(4,1)", "12:1"}, "(3,4):(4,1)"},
      {"composition", {"(10,2):(16,4)", "5:2"}, "5:32"},
      {"composition", {"(10,2):(16,4)", "10:1"}, "10:16"},
      {"composition", {"(10,2):(16,4)", "4:5"}, "(2,2):(80,4)"},  // 10/5 = 2 at 16*5, then 2 of mode 1
      {"composition", {"(2,3,4):(12,4,1)", "6:1"}, "(2,3):(12,4)"},
      {"composition", {"(2,3,4):(12,4,1)", "12:2"}, "(3,4):(4,1)"},
      {"composition", {"(2,3,4):(12,4,1)", "4:6"}, "4:1"},  // 6 = 2 * 3 passes modes 0 and 1
      {"composition", {"(4,8):(1@0,1@1)", "8:4"}, "8:1@1"},
      {"composition",
       {"(4,8):(1@0,1@1)", "(2,2):(2,8)"},
       "(2,2):(2@0,2@1)"},  // 2:2 -> 2:2@0; 8 passes mode 0 (4) and leaves 8/2 = 4 of mode 1 at 2@1
      {"composition", {"20:2", "(4,5):(5,1)"}, "(4,5):(10,2)"},
      {"composition", {"(4,8):(8,1)", "4:0"}, "4:0"},
      {"composition", {"(2,2,2):(4,1,2)", "4:1"}, "(2,2):(4,1)"},  // A coalesces to (2,4):(4,1)
      {"composition", {"(2,2,2):(4,1,2)", "4:2"}, "4:1"},
      {"composition", {"(8,8):(8,1)", "(8,8):(8,1)"}, "(8,8):(1,8)"},  // a transpose composed with itself
      {"composition", {"(8,8):(1,8)", "(8,8):(8,1)"}, "(8,8):(8,1)"},  // A coalesces to 64:1
      {"composition", {"(4,4):(4,1)", "16:1"}, "(4,4):(4,1)"},
      {"composition", {"(4,4):(4,1)", "2:8"}, "2:2"},
      {"composition",
       {"(4,8):(8,1)", "[2:2,4:2]"},
       "(2,4):(16,2)"},  // by mode: 4:8 o 2:2 = 2:16, 8:1 o 4:2 = 4:2
      {"composition", {"(6,8):(1,6)", "[3:2,2:4]"}, "(3,2):(2,24)"},  // 6:1 o 3:2 = 3:2, 8:6 o 2:4 = 2:24
      {"composition",
       {"(12,(4,8)):(59,(13,1))", "[4:3,8:1]"},
       "(4,(4,2)):(177,(13,1))"},  // 12:59 o 4:3 = 4:177; (4,8):(13,1) o 8:1 = (4,2):(13,1)
      {"composition", {"(4,8):(8,1)", "(2,4)"}, "(2,4):(8,1)"},  // a shape tiler is [2:1,4:1]
      // ---- more complement: sorted by stride, each gap stride/reached at the stride reached, then the
      // cotarget over what is reached (worked by hand).
      {"complement", {"2:1", "8"}, "4:2"},
      {"complement", {"2:4", "16"}, "(4,2):(1,8)"},
      {"complement", {"(2,2):(2,8)", "32"}, "(2,2,2):(1,4,16)"},  // gaps 2/1 at 1, 8/4 at 4, then 32/16 at 16
      {"complement", {"(4,2):(1,8)", "32"}, "(2,2):(4,16)"},  // 1/1 at 1 drops, 8/4 = 2 at 4, 32/16 = 2 at 16
      {"complement", {"(2,4):(8,1)", "32"}, "(2,2):(4,16)"},  // sorted by stride: 4:1 then 2:8, as above
      {"complement", {"3:1", "12"}, "4:3"},
      {"complement", {"3:2", "12"}, "(2,2):(1,6)"},  // 2/1 = 2 at 1, 12/6 = 2 at 6
      {"complement", {"(3,2):(1,3)", "12"}, "2:6"},  // 3:1 and 2:3 leave no gap, 12/6 = 2 at 6
      {"complement", {"8:2", "32"}, "(2,2):(1,16)"},
      {"complement", {"4:4", "64"}, "(4,4):(1,16)"},
      {"complement", {"(2,2):(1,4)", "16"}, "(2,2):(2,8)"},
      {"complement", {"(2,2):(4,1)", "16"}, "(2,2):(2,8)"},
      {"complement", {"16:1", "64"}, "4:16"},
      {"complement", {"(2,3):(3,1)", "12"}, "2:6"},
      {"complement", {"4:3", "24"}, "(3,2):(1,12)"},
      {"complement", {"2:3", "12"}, "(3,2):(1,6)"},
      {"complement", {"(4,4):(1,16)", "128"}, "(4,2):(4,64)"},  // 16/4 = 4 at 4, 128/64 = 2 at 64
      {"complement", {"4:0", "8"}, "8:1"},                      // stride 0 filtered
      {"complement", {"(2,2,2):(1,4,16)", "64"}, "(2,2,2):(2,8,32)"},
      // ---- more divides: A o (B, complement(B, size(A))), mode by mode for a tuple tiler (by hand).
      {"logical_divide", {"16:1", "4:2"}, "(4,(2,2)):(2,(1,8))"},  // complement(4:2, 16) = (2,2):(1,8)
      {"logical_divide", {"32:1", "8:1"}, "(8,4):(1,8)"},
      {"logical_divide", {"24:1", "6:1"}, "(6,4):(1,6)"},
      {"logical_divide", {"(4,8):(8,1)", "4:1"}, "(4,8):(8,1)"},
      {"logical_divide",
       {"(4,8):(8,1)", "8:1"},
       "((4,2),4):((8,1),2)"},  // complement(8:1, 32) = 4:8; A o 4:8 passes mode 0, 4 of mode 1 at 2
      {"logical_divide", {"16:2", "4:1"}, "(4,4):(2,8)"},  // complement(4:1, 16) = 4:4, both through 16:2
      {"zipped_divide", {"32:1", "8:1"}, "(8,4):(1,8)"},
      {"logical_divide", {"(4,4):(1,4)", "[2:1,2:1]"}, "((2,2),(2,2)):((1,2),(4,8))"},
      {"logical_divide",
       {"(8,6):(1,8)", "[4:2,3:1]"},
       "((4,2),(3,2)):((2,1),(8,24))"},  // 8:1 / 4:2 = 8:1 o (4:2, 2:1); 6:8 / 3:1 = 6:8 o (3:1, 2:3)
      {"logical_divide",
       {"(4,6):(1,4)", "(2,3)"},
       "((2,2),(3,2)):((1,2),(4,12))"},  // the shape tiler [2:1,3:1]; complement(3:1, 6) = 2:3
      // ---- more products: (A, complement(A, size(A) * cosize(B)) o B) (by hand).
      {"logical_product", {"2:1", "3:1"}, "(2,3):(1,2)"},
      {"logical_product", {"2:2", "2:1"}, "(2,2):(2,1)"},  // complement(2:2, 2*2) = 2:1
      {"logical_product",
       {"4:1", "2:2"},
       "(4,2):(1,8)"},  // cosize(B) = 3: complement(4:1, 12) = 3:4, o 2:2 = 2:8
      {"logical_product",
       {"(2,2):(1,2)", "4:1"},
       "((2,2),4):((1,2),4)"},  // complement((2,2):(1,2), 16) = 4:4
      {"logical_product", {"3:1", "4:1"}, "(3,4):(1,3)"},
      {"blocked_product", {"4:1", "3:1"}, "((4,3)):((1,4))"},
      {"raked_product", {"2:1", "3:1"}, "((3,2)):((2,1))"},
      {"blocked_product",
       {"(2,2):(1,2)", "(2,2):(1,2)"},
       "((2,2),(2,2)):((1,4),(2,8))"},  // C = complement(A, 16) o B = 4:4 o (2,2):(1,2) = (2,2):(4,8); mode i
                                        // is (A_i, C_i)
      {"raked_product",
       {"(2,2):(1,2)", "(2,2):(1,2)"},
       "((2,2),(2,2)):((4,1),(8,2))"},  // the same C, mode i is (C_i, A_i)
      // ---- more inverses, from L(R(x)) = x resp. R(L(x)) = x (by hand).
      {"right_inverse", {"8:1"}, "8:1"},
      {"right_inverse", {"(4,2):(1,4)"}, "8:1"},
      {"right_inverse", {"(2,2,2):(4,2,1)"}, "(2,2,2):(4,2,1)"},  // the bit reversal is its own inverse
      {"right_inverse", {"(3,2):(2,1)"}, "(2,3):(3,1)"},  // L(a,b) = 2a + b: x = b + 2a goes to a + 3b
      {"right_inverse", {"(2,4):(1,4)"}, "2:1"},          // the image is contiguous only for 0, 1
      {"right_inverse", {"(2,3):(3,1)"}, "(3,2):(2,1)"},  // L(a,b) = 3a + b: x = b + 3a goes to a + 2b
      {"left_inverse", {"8:1"}, "8:1"},
      {"left_inverse", {"(2,2,2):(4,2,1)"}, "(2,2,2):(4,2,1)"},
      {"left_inverse", {"2:2"}, "(2,2):(0,1)"},  // R(0) = 0, R(2) = 1; odd x unused (stride 0)
      {"left_inverse", {"4:4"}, "(4,4):(0,1)"},
      // ---- more max_common_vector: coalesce(A o right_inverse(B))'s first mode when its stride is 1.
      {"max_common_vector", {"16:1", "16:1"}, "16"},
      {"max_common_vector",
       {"(4,4):(1,4)", "(4,4):(4,1)"},
       "1"},  // A o right_inverse(B) = (4,4):(4,1): first stride 4
      {"max_common_vector", {"(2,8):(1,2)", "(4,4):(1,4)"}, "16"},  // both coalesce to 16:1
  };
  return f;
}

TEST(CuteFacts, EveryFactAgreesWithCuTe) {
  int agree = 0;
  for (const Fact& fact : facts()) {
    auto r = algebra(fact.op, fact.args, AlgebraSyntax::kCute);
    std::string shown = std::string(fact.op);
    for (const auto& a : fact.args) shown += " '" + a + "'";
    const std::string want = fact.answer;
    if (want.rfind("error: ", 0) == 0) {
      const std::string words = want.substr(7);
      if (!r.ok() && r.error().message.find(words) != std::string::npos) {
        ++agree;
      } else {
        ADD_FAILURE() << shown << ": expected a refusal naming '" << words << "', got "
                      << (r.ok() ? r->result : r.error().message);
      }
      continue;
    }
    if (r.ok() && r->result == want) {
      ++agree;
    } else {
      ADD_FAILURE() << shown << ": expected " << want << ", got "
                    << (r.ok() ? r->result : "error: " + r.error().message);
    }
  }
  EXPECT_EQ(agree, static_cast<int>(facts().size()));
  EXPECT_GE(facts().size(), 199u);
}

// The composition CuTe answers without it being A(B(i)) carries a note that says where.
TEST(CuteFacts, WeakDivisibilityIsNoted) {
  auto r = algebra("composition", {"(6,2):(1,7)", "4:4"}, AlgebraSyntax::kCute);
  ASSERT_TRUE(r.ok());
  EXPECT_NE(r->note.find("at i = 2"), std::string::npos) << r->note;
  auto exact = algebra("composition", {"(8,8):(8,1)", "2:3"}, AlgebraSyntax::kCute);
  ASSERT_TRUE(exact.ok());
  EXPECT_EQ(exact->note, "");
}

// The blocked product of a rank-1 block keeps all its elements, whichever way B is written.
TEST(CuteFacts, BlockedProductSizes) {
  for (const char* b : {"6:1", "(6):(1)", "6"}) {
    auto r = algebra("blocked_product", {"(4):(2)", b}, AlgebraSyntax::kCute);
    ASSERT_TRUE(r.ok()) << b;
    EXPECT_EQ(r->size, 24) << b;
  }
}

}  // namespace
}  // namespace layoutscope::cute
