// Forward, inverse and whole-table evaluation of a layout over a logical shape.
//
// Worked example (the chapter's m8n8 register fragment):
//
//   S[(8, 4, 2) : (4@laneid, 1@laneid, 1@reg)], logical 8x8, cell (5, 3)
//   x = 5*8 + 3 = 43;  split(43; 8,4,2) = (5, 1, 1)
//   laneid = 5*4 + 1*1 = 21,  reg = 1*1 = 1          -> lane 21, slot 1
//
// inverse() answers the other direction: every logical element that sits at a physical position, over
// every replica (a layout may alias, and replication makes one element appear in several places).
//
// One rule everywhere: an element has one position per holder, replica-major (holder h = r * partials + p,
// partials = 1 without P[...]), listed in that order by forward_index, table and inverse alike, also when
// two replicas land on the same spot.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "layoutscope/compiled_layout.hpp"
#include "layoutscope/layout.hpp"
#include "layoutscope/result.hpp"

namespace layoutscope {

// Values in the order of the layout's axes (layout_axes()).
struct Position {
  std::vector<int64_t> values;
  friend bool operator==(const Position&, const Position&) = default;
  // Spelled out: Emscripten 3.1.6's libc++ has no operator<=> for std::vector.
  friend bool operator<(const Position& a, const Position& b) { return a.values < b.values; }
};

// One contribution digit * stride on an axis, for the derivation text.
struct Term {
  int64_t digit = 0;
  AxisStride stride;
};

// One holder of the element: a replica, or a partial-sum holder of a replica.
struct ReplicaStep {
  int64_t replica = 0;
  int64_t partial = -1;         // index among the P holders; -1 when the layout has no P[...] (whole value)
  std::vector<int64_t> digits;  // r split over the R extents, then p over the P extents
  std::vector<Term> terms;
  Position position;  // after offsets and replica, before the swizzle
  int64_t m_before_swizzle = 0;
  int64_t m_after_swizzle = 0;
};

struct Mapping {
  int64_t index = 0;                       // flat logical index x
  std::vector<int64_t> coord;              // x as a coordinate in the logical shape
  std::vector<int64_t> split;              // x split over the shard extents
  std::vector<Term> terms;                 // shard digit * stride
  int64_t replicas = 1;                    // product of the R extents
  int64_t partials = 0;                    // product of the P extents; 0 when the layout has no P[...]
  std::vector<ReplicaStep> replica_steps;  // one per holder, in holder order
  std::vector<Position> positions;         // one per holder, in holder order (after the swizzle)
  std::string derivation;  // the steps above as one line of text; lists at most kDerivationReplicas holders
};

// Default logical shape when none is given: one dimension of layout_size().
Result<std::vector<int64_t>> default_shape(const Layout& layout);

// The shape a figure draws a layout on when the user gives none: rows of the shard's last mode, so the
// picture shows the layout's own split (the row-major split of x is the same on it as on default_shape):
//   S[(8,64):(64,1)] -> {8, 64}   Swizzle<3,3,3> o S[(8,64):(64,1)] -> {8, 64}   S[(2,4,8):(32,8,1)] -> {8,
//   8} S[32:1] -> {32} (one mode: one row)
Result<std::vector<int64_t>> drawing_shape(const Layout& layout);

// One mapping lists every holder of the element; layouts with more replicas (times partial-sum holders) than
// this are refused.
inline constexpr int64_t kMaxForwardReplicas = int64_t{1} << 16;
// The derivation text spells out this many holders and says how many it left out; positions has them all.
inline constexpr int64_t kDerivationReplicas = 8;

// The layout compiled once and checked against the logical shape (its size must equal the layout's): what
// forward_index, table and inverse evaluate, and what a caller mapping many elements should hold on to.
Result<CompiledLayout> compile_for_shape(const Layout& layout, const std::vector<int64_t>& shape);

Result<Mapping> forward_index(const Layout& layout, const std::vector<int64_t>& shape, int64_t index);
Result<Mapping> forward_coord(const Layout& layout, const std::vector<int64_t>& shape,
                              const std::vector<int64_t>& coord);

// A query names some axes; axes it leaves out match any value.
struct AxisValue {
  std::string axis;
  int64_t value = 0;
};

struct InverseHit {
  int64_t index = 0;
  std::vector<int64_t> coord;
  int64_t replica = 0;
  int64_t partial = -1;  // the partial-sum holder; -1 when the layout has no P[...]
  Position position;
};

inline constexpr int64_t kDefaultCellLimit = int64_t{1} << 22;

// Every (element, holder) whose position matches the query, by element then holder. Scans size * holders
// candidates, refused above cell_limit.
Result<std::vector<InverseHit>> inverse(const Layout& layout, const std::vector<int64_t>& shape,
                                        const std::vector<AxisValue>& query,
                                        int64_t cell_limit = kDefaultCellLimit);

// All positions, flat: values[(x * holders + h) * axes.size() + a] with holders = replicas * max(partials, 1)
// and h = r * max(partials, 1) + p. Refused above cell_limit elements * holders, or above
// kValuesPerCellBudget * cell_limit values (layouts naming many axes).
inline constexpr int64_t kValuesPerCellBudget = 8;
struct Table {
  std::vector<std::string> axes;
  std::vector<int64_t> shape;
  int64_t elements = 0;
  int64_t replicas = 1;
  int64_t partials = 0;  // partial-sum holders per replica (product of the P extents); 0 without P[...]
  std::vector<int64_t> values;
  int64_t holders() const { return partials > 0 ? replicas * partials : replicas; }  // rows per element
  std::vector<int64_t> min;  // per axis, over the table
  std::vector<int64_t> max;
};

Result<Table> table(const Layout& layout, const std::vector<int64_t>& shape,
                    int64_t cell_limit = kDefaultCellLimit);

}  // namespace layoutscope
