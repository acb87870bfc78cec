// plan: the conversion kernel the engine plans for moving a tensor from one layout to another
// (shared/include/layoutscope/plan/convert.hpp), and with --emit-cuda the CUDA C generated from it.
#include <memory>

#include "cli_support.hpp"
#include "convert_kernel.hpp"
#include "layoutscope/parse.hpp"
#include "layoutscope/plan/convert.hpp"
#include "plan_json.hpp"

namespace layoutscope::cli {
namespace {

struct PlanArgs {
  Arg src, dst, shape, perm, dtype;
  bool emit_cuda = false;
};

int run(const PlanArgs& a) {
  if (!a.dtype.given()) fail("--dtype is required (u8, f8, f16, bf16, f32, f64)", "dtype");
  auto dtype = parse_dtype(a.dtype.value);
  if (!dtype) fail(make_error(dtype.error().message, 0, "dtype"), a.dtype.value);
  Result<ConvertPlan> plan = make_error("unreachable");
  if (a.perm.given()) {
    if (a.src.given() || a.dst.given())
      fail("give --perm with --shape, or --src and --dst, not both", "perm");
    if (!a.shape.given()) fail("--perm needs --shape", "shape");
    auto shape = parse_decimal_list(a.shape.value, "shape", 1, int64_t{1} << 40, true);
    if (!shape) fail(shape.error(), a.shape.value);
    auto perm = parse_decimal_list(a.perm.value, "perm", 0, 63, false);
    if (!perm) fail(perm.error(), a.perm.value);
    plan = plan_permute(*shape, *perm, *dtype);
  } else {
    if (!a.src.given() || !a.dst.given()) fail("give --src and --dst (or --shape and --perm)", "src");
    const Layout src = layout_arg(a.src.value);
    const Layout dst = layout_arg(a.dst.value);
    plan = plan_convert(src, dst, shape_arg(a.shape, src), *dtype);
  }
  if (!plan) fail(plan.error());
  if (a.emit_cuda) {
    const codegen::KernelSource k = codegen::convert_kernel_source(*plan);
    std::fputs(k.text.c_str(), stdout);
    return 0;
  }
  emit(codegen::convert_plan_json<Json>(*plan));
  return 0;
}

}  // namespace

void add_plan_command(CLI::App& app) {
  auto a = std::make_shared<PlanArgs>();
  CLI::App* command = add_command(
      app, "plan",
      "Plan the kernel that converts a tensor from one layout to another (--emit-cuda: its source)",
      "  layoutscope plan --src 'S[(4096,4096):(4096,1)]' --dst 'S[(4096,4096):(1,4096)]' --dtype f32\n"
      "  layoutscope plan --shape 16,4096,32,32 --perm 0,2,1,3 --dtype bf16\n"
      "  layoutscope plan --shape 8192,8192 --perm 1,0 --dtype u8 --emit-cuda > convert.cu\n");
  add_arg(command, a->src, "src", "EXPR", "The source layout");
  add_arg(command, a->dst, "dst", "EXPR", "The destination layout (dense)");
  add_arg(command, a->shape, "shape", "D0,D1,...", "Logical shape (with --perm: the source tensor's shape)");
  add_arg(command, a->perm, "perm", "P0,P1,...", "x.permute(perm).contiguous() of a row-major tensor");
  add_arg(command, a->dtype, "dtype", "TYPE", "u8, f8, f16, bf16, f32, f64");
  command->add_flag("--emit-cuda", a->emit_cuda, "Print the generated CUDA C instead of the plan");
  on_run(command, [a] { return run(*a); });
}

}  // namespace layoutscope::cli
