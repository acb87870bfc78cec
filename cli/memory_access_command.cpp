// banks and sectors: what one warp access costs in shared memory (bank conflicts) and in global memory
// (32 B sectors). The lanes' byte addresses are given, or generated from a layout: lane i reads logical
// element start + i*step through the layout's @m axis.
#include <limits>

#include "cli_support.hpp"
#include "layoutscope/checked.hpp"
#include "layoutscope/memory_access.hpp"

namespace layoutscope::cli {
namespace {

struct AccessArgs {
  Arg width, banks, layout, shape, elem_bytes, start, step, lanes;
  std::vector<std::string> addrs;
};

void add_lane_options(CLI::App* command, AccessArgs& args) {
  add_arg(command, args.width, "width", "B", "Bytes per lane: 4, 8 or 16 (required)");
  add_arg(command, args.layout, "layout", "EXPR",
          "Generate the addresses from this layout; - reads layouts from standard input, one a line");
  add_arg(command, args.shape, "shape", "R,C", "With --layout: logical shape (default: the layout's size)");
  add_arg(command, args.elem_bytes, "elem-bytes", "B",
          "With --layout: bytes per element, 1 to 1024 (default 4)");
  add_arg(command, args.start, "start", "I", "With --layout: lane 0's logical element (default 0)");
  add_arg(command, args.step, "step", "K", "With --layout: elements between neighbouring lanes (default 1)");
  add_arg(command, args.lanes, "lanes", "N", "With --layout: lanes, 1 to 1024 (default 32)");
  command->add_option("ADDR", args.addrs, "One byte address per lane (without --layout)")->type_name("");
}

int64_t option_or(const Arg& arg, int64_t fallback, int64_t min, int64_t max) {
  return arg.given() ? option_arg(arg, min, max) : fallback;
}

// The lanes' byte addresses from a layout.
std::vector<int64_t> lane_addrs(const AccessArgs& args, const std::string& text) {
  const Layout layout = layout_arg(text);
  const auto shape = shape_arg(args.shape, layout);
  constexpr int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  const int64_t lanes = option_or(args.lanes, 32, 1, 1024);
  const int64_t start = option_or(args.start, 0, lo, hi);
  const int64_t step = option_or(args.step, 1, lo, hi);
  const int64_t elem_bytes = option_or(args.elem_bytes, 4, 1, 1024);
  std::vector<int64_t> indices;
  for (int64_t i = 0; i < lanes; ++i) {
    int64_t index = 0;
    if (mul_overflows(i, step, &index) || add_overflows(start, index, &index)) {
      fail("lane " + std::to_string(i) + "'s element start + i*step overflows 64 bits", "step");
    }
    indices.push_back(index);
  }
  auto addrs = lane_addresses(layout, shape, indices, static_cast<int>(elem_bytes));
  if (!addrs) fail(addrs.error());
  return *addrs;
}

// Runs `measure` on the given addresses, or on those of the layout (of each layout with --layout -).
int for_each_access(const AccessArgs& args, const std::function<void(const std::vector<int64_t>&)>& measure) {
  if (!args.width.given()) fail("needs --width (bytes per lane: 4, 8 or 16)", "width");
  if (!args.layout.given()) {
    for (const Arg* arg : {&args.shape, &args.elem_bytes, &args.start, &args.step, &args.lanes}) {
      if (arg->given())
        fail("--" + arg->name + " needs --layout (it generates the lane addresses)", arg->name);
    }
    std::vector<int64_t> addrs;
    for (const std::string& s : args.addrs) addrs.push_back(decimal_arg(s, "addrs"));
    measure(addrs);
    return 0;
  }
  if (!args.addrs.empty()) {
    fail(make_error("give the lane addresses or --layout, not both (address '" +
                        printable(args.addrs.front()) + "' with --layout)",
                    0, "addrs"));
  }
  return for_each_layout(args.layout.value, [&](const std::string& text) {
    measure(lane_addrs(args, text));
    return 0;
  });
}

void add_banks_command(CLI::App& app) {
  auto args = std::make_shared<AccessArgs>();
  CLI::App* command = add_command(
      app, "banks", "Shared-memory wavefronts of one warp access (bank conflicts)",
      "  layoutscope banks --width 4 0 128 256              (3 lanes, all in bank 0: 3 wavefronts)\n"
      "  layoutscope banks --width 4 --layout 'S[(32,32):(33,1)]' --shape 32,32 --step 32\n");
  add_lane_options(command, *args);
  add_arg(command, args->banks, "banks", "N", "Banks of 4 bytes, 1 to 64 (default 32; 8 for toy models)");
  on_run(command, [args] {
    const auto width = static_cast<int>(option_or(args->width, 0, 1, 1024));
    BankModel model;
    if (args->banks.given()) {
      model.banks = static_cast<int>(option_arg(args->banks, 1, 64));
      model.wavefront_bytes = model.banks * model.word_bytes;
    }
    return for_each_access(*args, [&](const std::vector<int64_t>& addrs) {
      auto r = bank_access(addrs, width, model);
      if (!r) fail(r.error());
      emit({{"width", width},
            {"banks", model.banks},
            {"lanes", addrs.size()},
            {"lanes_per_wavefront", r->lanes_per_group},
            {"ideal_wavefronts", r->groups},
            {"wavefronts", r->cycles},
            {"cycles", r->cycles},
            {"conflict_ways", r->max_ways},
            {"group_wavefronts", r->group_cycles},
            {"lane_bank", r->lane_bank},
            {"lane_cycle", r->lane_cycle},
            {"addrs", addrs}});
    });
  });
}

void add_sectors_command(CLI::App& app) {
  auto args = std::make_shared<AccessArgs>();
  CLI::App* command = add_command(app, "sectors", "Distinct 32 B global-memory sectors of one warp access",
                                  "  layoutscope sectors --width 4 --layout 'S[(64,8):(8,1)]' --shape 64,8 "
                                  "--step 8   (AoS: 32 sectors)\n");
  add_lane_options(command, *args);
  on_run(command, [args] {
    const auto width = static_cast<int>(option_or(args->width, 0, 1, 1024));
    return for_each_access(*args, [&](const std::vector<int64_t>& addrs) {
      auto r = sector_access(addrs, width);
      if (!r) fail(r.error());
      emit({{"width", width},
            {"lanes", addrs.size()},
            {"sectors", r->sectors},
            {"bytes", r->bytes},
            {"efficiency", r->efficiency},
            {"addrs", addrs}});
    });
  });
}

}  // namespace

void add_memory_access_command(CLI::App& app) {
  add_banks_command(app);
  add_sectors_command(app);
}

}  // namespace layoutscope::cli
