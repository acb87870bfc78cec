#include "bench/engine_calls.hpp"

#include "layoutscope/parse.hpp"

namespace layoutscope::agent {

EngineCalls& engine_calls() {
  static EngineCalls calls;
  return calls;
}

Result<Layout> parse_layout_counted(std::string_view text) {
  engine_calls().layout_parses.fetch_add(1, std::memory_order_relaxed);
  return parse_layout(text);
}

Result<ConvertPlan> plan_convert_counted(const Layout& src, const Layout& dst,
                                         const std::vector<int64_t>& shape, DType dtype) {
  engine_calls().convert_plans.fetch_add(1, std::memory_order_relaxed);
  return plan_convert(src, dst, shape, dtype);
}

Result<ConvertPlan> plan_permute_counted(const std::vector<int64_t>& shape, const std::vector<int64_t>& perm,
                                         DType dtype) {
  engine_calls().convert_plans.fetch_add(1, std::memory_order_relaxed);
  return plan_permute(shape, perm, dtype);
}

}  // namespace layoutscope::agent
