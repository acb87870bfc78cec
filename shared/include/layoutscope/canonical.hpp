// Canonical form: the simplest layout with the same mapping.
//
//   S[(2,3,6):(18,6,1)]            -> S[36:1]            (3*6 = 18 and 6*1 = 6: the modes are contiguous)
//   S[(8,4):(4@laneid,1@laneid)]   -> S[32:1@laneid]
//   S[(1,8):(5,1)]                 -> S[8:1]             (extent-1 modes carry no digit)
//
// Adjacent modes i, i+1 fuse when they are on one axis and stride_i == extent_{i+1} * stride_{i+1};
// zero offsets are dropped. The mapping of every element is unchanged (tests check it over the domain).
#pragma once

#include "layoutscope/layout.hpp"

namespace layoutscope {

Layout canonicalize(const Layout& layout);

}  // namespace layoutscope
