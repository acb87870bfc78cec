// The cases of a corpus file as the GPU labs read them (no CUDA here): one case a line, tab-separated
// fields name, dtype, shape, perm (empty for a layout-to-layout case), src layout, dst layout (empty for a
// permutation), as `python3 tests/gpu/convert_corpus.py tsv` writes them; and each case's plan.
//   for (const LabCase& c : read_corpus("corpus.tsv")) { auto plan = plan_case(c); ... }
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "layoutscope/parse.hpp"
#include "layoutscope/plan/convert.hpp"

namespace layoutscope {

// A case of the lab: a permutation of a row-major tensor, or a conversion between two layouts.
struct LabCase {
  std::string name;
  std::vector<int64_t> shape, perm;
  DType dtype = DType::kF32;
  std::string src, dst;  // layout-to-layout only
};

inline std::vector<int64_t> int_list(const std::string& text) {
  std::vector<int64_t> v;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) v.push_back(std::stoll(item));
  }
  return v;
}

// The file's cases; lines with fewer than four fields or an unknown dtype are left out.
inline std::vector<LabCase> read_corpus(const std::string& file) {
  std::vector<LabCase> cases;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> f;
    std::stringstream fields(line);
    for (std::string item; std::getline(fields, item, '\t');) f.push_back(item);
    if (f.size() < 4) continue;
    f.resize(6);
    auto dtype = parse_dtype(f[1]);
    if (!dtype) continue;
    cases.push_back({f[0], int_list(f[2]), int_list(f[3]), *dtype, f[4], f[5]});
  }
  return cases;
}

inline Result<ConvertPlan> plan_case(const LabCase& c) {
  if (c.src.empty()) return plan_permute(c.shape, c.perm, c.dtype);
  auto src = parse_layout(c.src);
  if (!src) return src.error();
  auto dst = parse_layout(c.dst);
  if (!dst) return dst.error();
  return plan_convert(*src, *dst, c.shape, c.dtype);
}

}  // namespace layoutscope
