// What the format readers and writers share: one tokenizer for the Python/MLIR-like texts they read, and the
// sharding arithmetic that JAX, Shardy, XLA and DTensor all reduce to.
//
//   tokenize("P('x', None)") -> P ( 'x' , None )      each token with its 1-based column (in code points)
//
//   shard_layout(shape {8, 4}, dims {{x}, {}}, replicas {y})      x = 2, y = 4
//     dimension 0: (2 over x, 4 local); dimension 1: (4 local); the local tensor is 4x4, row-major
//     -> S[(2,4,4):(1@x,4@m,1@m)] + R[4:1@y]
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "layoutscope/formats/format.hpp"
#include "layoutscope/layout.hpp"
#include "layoutscope/parse.hpp"
#include "layoutscope/result.hpp"

namespace layoutscope::formats_detail {

inline constexpr size_t kMaxFormatText = 1 << 16;

enum class TokKind { kIdent, kInt, kString, kPunct, kEnd };

struct Tok {
  TokKind kind = TokKind::kEnd;
  std::string text;   // identifier, string contents, punctuation character
  int64_t value = 0;  // kInt
  int column = 1;
};

// Identifiers may contain '.' (ttg.linear, jax.make_mesh); integers are non-negative (a '-' is punctuation);
// strings are '...' or "..." without escapes.
Result<std::vector<Tok>> tokenize(std::string_view text);

// A cursor over tokens with the small vocabulary the readers need.
class Cursor {
 public:
  explicit Cursor(std::vector<Tok> tokens) : t_(std::move(tokens)) {}
  const Tok& peek(size_t ahead = 0) const {
    return t_[pos_ + ahead < t_.size() ? pos_ + ahead : t_.size() - 1];
  }
  const Tok& next() {
    const Tok& t = peek();
    if (pos_ + 1 < t_.size()) ++pos_;
    return t;
  }
  bool at_end() const { return peek().kind == TokKind::kEnd; }
  bool is(char c) const { return peek().kind == TokKind::kPunct && peek().text[0] == c; }
  bool is_ident(std::string_view name) const { return peek().kind == TokKind::kIdent && peek().text == name; }
  bool accept(char c) {
    if (!is(c)) return false;
    next();
    return true;
  }
  Result<Tok> expect(char c, std::string_view what);
  Result<int64_t> integer(std::string_view what);
  Result<std::string> name(std::string_view what);  // an identifier or a string
  size_t pos() const { return pos_; }
  void seek(size_t pos) { pos_ = pos; }
  size_t size() const { return t_.size(); }

 private:
  std::vector<Tok> t_;
  size_t pos_ = 0;
};

Error error_at(const Tok& tok, std::string message, std::string field = {});
std::string describe(const Tok& tok);  // "'x'", "the end of the text"

// A mesh axis name must be usable as an axis of the notation: an identifier, not "m".
Result<bool> check_axis_name(const std::string& name, int column);

// One piece of a tensor dimension, major first: on a device axis (axis non-empty, the device coordinate moves
// by stride per step) or local (axis empty; the builder assigns @m strides, row-major over the local tensor).
struct Segment {
  int64_t extent = 1;
  std::string axis;
  int64_t stride = 1;
};

// The layout of a sharded tensor: per dimension its segments, plus replica and partial modes.
Result<Layout> shard_layout(const std::vector<std::vector<Segment>>& dims, std::vector<Mode> replicas,
                            std::vector<Mode> partials);

// The shard modes cut at the logical dimensions' boundaries (a mode spanning two dimensions is split when its
// extent allows), extent-1 modes dropped, adjacent contiguous modes on one axis fused. Errors name the mode.
Result<std::vector<std::vector<Mode>>> modes_per_dim(const std::vector<Mode>& shard,
                                                     const std::vector<int64_t>& shape);

// One term's modes as the notation writes them: "4:0", "(29,2,2):(84,6,1)"; "1:1" for none.
std::string modes_notation(const std::vector<Mode>& modes);

// What a placements text (JAX's PartitionSpec, DTensor's placements) cannot say: each device's local tensor
// is row-major and contiguous, so the local (@m) modes of every dimension of `dims` (modes_per_dim's answer,
// device modes major) must fuse to one mode, local_d : (product of the local extents of the dimensions after
// d). The error names the local layout found and the one the text would import as:
//   S[(2,4):(1@x,0)] on 8   -> "... the local layout 4:0 is not the row-major contiguous 4:1"
Result<bool> check_local_row_major(const std::vector<std::vector<Mode>>& dims, std::string_view format);

// Whether two layouts give every element of `shape` the same positions and holders, decided on their
// canonical forms in time linear in their modes (never element by element): the shard modes of each logical
// dimension (modes_per_dim's cut and fusion, stride-0 modes put on one axis, since they add 0 on any, and
// fused again), the replica modes (more than one copy, nonzero stride, sorted), the partial terms (each
// term's fused modes sorted, a term of one holder counting as a term), the nonzero offsets and the swizzle.
//   Equal forms give the same mapping. The converse, for the shard: a dimension's fused mode list is the only
// one for its function f, since the minor-most mode's stride is f(1), its extent the least x > 0 with
// f(x) != x f(1) (were f(e) = e f(1), the next mode would have fused with it), and the rest is the list of
// y -> f(y e); a dimension's function is the layout's with the other coordinates at 0. A replica or partial
// set has several spellings (R[(2,2):(1@x,2@x)] and R[4:1@x]), so there the check can say "different" for
// one mapping, never "same" for two; the JAX and DTensor exporters write and accept only whole mesh
// dimensions there, one mode each, whose spelling is unique.
bool same_sharding(const Layout& a, const Layout& b, const std::vector<int64_t>& shape);

// The mesh an exporter writes: the context's when given (checked against the layout), else the layout's
// non-@m axes in order of appearance with the extent each one spans.
Result<std::vector<std::pair<std::string, int64_t>>> export_mesh(const Layout& layout,
                                                                 const FormatContext& context,
                                                                 std::string_view format);

// Refuses what no sharding format can say: a swizzle or an offset.
Result<bool> check_plain_sharding(const Layout& layout, std::string_view format);

// The shape of an MLIR tensor or memdesc type in the text ("tensor<16x8xf16, ...>" -> {16, 8}), if any.
std::optional<std::vector<int64_t>> find_tensor_shape(std::string_view text);

// The logical shape: the one the text gives (text_shape, non-empty) or the context's; both must agree.
Result<std::vector<int64_t>> pick_shape(const std::vector<int64_t>& text_shape, int column,
                                        const FormatContext& context, std::string_view format);

bool is_pow2(int64_t v);
int log2_exact(int64_t v);  // v a power of two

}  // namespace layoutscope::formats_detail
