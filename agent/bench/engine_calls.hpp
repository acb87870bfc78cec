// The agent's calls into the engine's parser and planners, counted, so that a test can check that a request
// is parsed once into values and planned once (GET /v1/_test/engine-calls, --test-endpoints only). Every
// layout text the agent reads goes through parse_layout_counted, every conversion plan through the
// plan_*_counted functions; the engine itself stays free of counters.
//
//   parse_layout_counted("S[(4,8):(8,1)]");  // engine_calls().layout_parses + 1
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>
#include <vector>

#include "layoutscope/layout.hpp"
#include "layoutscope/plan/convert.hpp"
#include "layoutscope/result.hpp"

namespace layoutscope::agent {

struct EngineCalls {
  std::atomic<int64_t> layout_parses{0};
  std::atomic<int64_t> convert_plans{0};  // plan_convert and plan_permute
};

EngineCalls& engine_calls();

Result<Layout> parse_layout_counted(std::string_view text);
Result<ConvertPlan> plan_convert_counted(const Layout& src, const Layout& dst,
                                         const std::vector<int64_t>& shape, DType dtype);
Result<ConvertPlan> plan_permute_counted(const std::vector<int64_t>& shape, const std::vector<int64_t>& perm,
                                         DType dtype);

}  // namespace layoutscope::agent
