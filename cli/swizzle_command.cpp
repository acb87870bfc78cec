// swizzle: element offsets through a PTX swizzle mode, in elements and in bytes.
#include "cli_support.hpp"
#include "layoutscope/dtype.hpp"
#include "layoutscope/parse.hpp"

namespace layoutscope::cli {
namespace {

constexpr int64_t kMaxOffset = int64_t{1} << 40;

struct SwizzleArgs {
  Arg mode, dtype;
  std::vector<std::string> offsets;
};

int run(const SwizzleArgs& args) {
  if (!args.mode.given()) fail("swizzle needs --mode (none, 32B, 64B, 128B, 128B_ATOM_32B)", "mode");
  auto mode = parse_swizzle_mode(args.mode.value);
  if (!mode) fail(mode.error());
  auto dtype = parse_dtype(args.dtype.given() ? args.dtype.value : "f16");
  if (!dtype) fail(dtype.error());
  auto atom = swizzle_atom(*mode, *dtype);
  if (!atom) fail(atom.error());
  const int eb = dtype_bytes(*dtype);
  Json results = Json::array();
  for (const std::string& text : args.offsets) {
    const int64_t offset = decimal_arg(text, "offset", 0, kMaxOffset);
    const int64_t swizzled = apply_swizzle(atom->elements, offset);
    results.push_back({{"offset", offset},
                       {"swizzled", swizzled},
                       {"byte", offset * eb},
                       {"swizzled_byte", apply_swizzle(atom->bytes, offset * eb)},
                       {"row", offset / atom->elements_per_row},
                       {"col", offset % atom->elements_per_row},
                       {"swizzled_col", swizzled % atom->elements_per_row}});
  }
  const Swizzle& e = atom->elements;
  emit(
      {{"mode", to_string(*mode)},
       {"dtype", to_string(*dtype)},
       {"atom",
        {{"rows", atom->rows}, {"row_bytes", atom->row_bytes}, {"elements_per_row", atom->elements_per_row}}},
       {"bytes", to_string(atom->bytes)},
       {"elements", to_string(e)},
       {"tirx", "ComposeLayout(per_element=" + std::to_string(e.base) + ", swizzle_len=" +
                    std::to_string(e.bits) + ", atom_len=" + std::to_string(e.shift) + ", ...)"},
       {"results", results}});
  return 0;
}

}  // namespace

void add_swizzle_command(CLI::App& app) {
  auto args = std::make_shared<SwizzleArgs>();
  CLI::App* command =
      add_command(app, "swizzle", "Element offsets through a PTX swizzle mode, in elements and in bytes",
                  "  layoutscope swizzle --mode 128B --dtype f16 64     -> element 72, byte 144\n");
  add_arg(command, args->mode, "mode", "MODE", "none, 32B, 64B, 128B or 128B_ATOM_32B (required)");
  add_arg(command, args->dtype, "dtype", "TYPE", "Element type (default f16)");
  command->add_option("OFFSET", args->offsets, "Element offsets, 0 to 2^40")->type_name("");
  on_run(command, [args] { return run(*args); });
}

}  // namespace layoutscope::cli
