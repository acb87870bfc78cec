#include "layoutscope/memory_access.hpp"

#include <algorithm>
#include <unordered_set>

#include "layoutscope/mapping.hpp"

namespace layoutscope {
namespace {

constexpr size_t kMaxLanes = 1024;

Error lane_error(size_t lane, const std::string& what) {
  return make_error("lane " + std::to_string(lane) + ": " + what, 0, "addrs");
}

}  // namespace

int lane_access_bytes(int elem_bytes, const BankModel& model) {
  return std::clamp(elem_bytes, model.word_bytes, 16);
}

int64_t access_start(int64_t byte, int width) {
  const int64_t w = std::max(1, width);
  const int64_t q = byte / w - (byte % w < 0 ? 1 : 0);  // floor, for negative offsets too
  return q * w;
}

Result<BankAccess> bank_access(std::span<const int64_t> addrs, int width, const BankModel& model) {
  if (model.banks < 1 || model.word_bytes < 1 || model.wavefront_bytes < model.word_bytes) {
    return make_error("bank model needs banks >= 1 and wavefront_bytes >= word_bytes >= 1", 0, "model");
  }
  // Below a word (1 and 2 B lanes) each lane reads part of one word; lanes in one word share it.
  if (width < 1 || width > model.wavefront_bytes || (width & (width - 1)) != 0 ||
      (width > model.word_bytes && width % model.word_bytes != 0)) {
    return make_error("access width must be a power of two up to " + std::to_string(model.wavefront_bytes) +
                          " bytes (1, 2, 4, 8 or 16 on a GPU), got " + std::to_string(width),
                      0, "width");
  }
  if (addrs.empty() || addrs.size() > kMaxLanes) {
    return make_error("give 1 to " + std::to_string(kMaxLanes) + " lane addresses", 0, "addrs");
  }
  for (size_t lane = 0; lane < addrs.size(); ++lane) {
    if (addrs[lane] < 0) return lane_error(lane, "address " + std::to_string(addrs[lane]) + " is negative");
    if (addrs[lane] % width != 0) {
      return lane_error(lane, "address " + std::to_string(addrs[lane]) +
                                  " is not aligned to the access width " + std::to_string(width));
    }
  }
  BankAccess out;
  // 128 B a wavefront: a whole warp of 1, 2 or 4 B lanes, 16 lanes of 8 B, 8 of 16 B.
  out.lanes_per_group = model.wavefront_bytes / width;
  const int words_per_lane = std::max(1, width / model.word_bytes);
  const size_t lanes = addrs.size();
  out.lane_bank.resize(lanes);
  out.lane_cycle.resize(lanes);
  int cycles_before = 0;
  for (size_t first = 0; first < lanes; first += static_cast<size_t>(out.lanes_per_group)) {
    const size_t last = std::min(lanes, first + static_cast<size_t>(out.lanes_per_group));
    // Distinct words each bank must deliver, in order of first request.
    std::vector<std::vector<int64_t>> bank_words(static_cast<size_t>(model.banks));
    int worst = 0;
    for (size_t lane = first; lane < last; ++lane) {
      const int64_t word0 = addrs[lane] / model.word_bytes;
      for (int w = 0; w < words_per_lane; ++w) {
        const int64_t word = word0 + w;
        auto& words = bank_words[static_cast<size_t>(word % model.banks)];
        auto it = std::find(words.begin(), words.end(), word);
        const auto rank = static_cast<int>(it - words.begin());
        if (it == words.end()) words.push_back(word);
        worst = std::max(worst, static_cast<int>(words.size()));
        if (w == 0) {
          out.lane_bank[lane] = static_cast<int>(word % model.banks);
          out.lane_cycle[lane] = cycles_before + rank;
        }
      }
    }
    out.group_cycles.push_back(worst);
    out.max_ways = std::max(out.max_ways, worst);
    cycles_before += worst;
    ++out.groups;
  }
  out.cycles = cycles_before;
  return out;
}

Result<SectorAccess> sector_access(std::span<const int64_t> addrs, int width) {
  if (width < 1 || width > 16 || (width & (width - 1)) != 0) {
    return make_error("access width must be 1, 2, 4, 8 or 16 bytes, got " + std::to_string(width), 0,
                      "width");
  }
  if (addrs.empty() || addrs.size() > kMaxLanes) {
    return make_error("give 1 to " + std::to_string(kMaxLanes) + " lane addresses", 0, "addrs");
  }
  SectorAccess out;
  std::unordered_set<int64_t> sectors;
  std::unordered_set<int64_t> bytes;
  for (size_t lane = 0; lane < addrs.size(); ++lane) {
    if (addrs[lane] < 0) return lane_error(lane, "address " + std::to_string(addrs[lane]) + " is negative");
    if (addrs[lane] % width != 0) {
      return lane_error(lane, "address " + std::to_string(addrs[lane]) +
                                  " is not aligned to the access width " + std::to_string(width));
    }
    if (addrs[lane] > (int64_t{1} << 60)) return lane_error(lane, "address is beyond 2^60");
    for (int b = 0; b < width; ++b) {
      bytes.insert(addrs[lane] + b);
      sectors.insert((addrs[lane] + b) / kSectorBytes);
    }
    out.lane_sector.push_back(addrs[lane] / kSectorBytes);
  }
  out.sectors = static_cast<int64_t>(sectors.size());
  out.bytes = static_cast<int64_t>(addrs.size()) * width;
  out.efficiency = static_cast<double>(bytes.size()) / static_cast<double>(out.sectors * kSectorBytes);
  return out;
}

Result<std::vector<int64_t>> lane_addresses(const Layout& layout, const std::vector<int64_t>& shape,
                                            std::span<const int64_t> indices, int elem_bytes) {
  if (elem_bytes < 1 || elem_bytes > 1024)
    return make_error("element size must be 1 to 1024 bytes", 0, "elem_bytes");
  if (indices.size() > kMaxLanes) return make_error("at most 1024 lanes", 0, "indices");
  const std::vector<std::string> axes = layout_axes(layout);
  if (std::find(axes.begin(), axes.end(), kMemoryAxis) == axes.end()) {
    return make_error("the layout has no @m axis, so no memory address", 0, "layout");
  }
  auto compiled = compile_for_shape(layout, shape);  // once, not per lane
  if (!compiled) return compiled.error();
  const CompiledLayout& c = *compiled;
  const size_t m =
      static_cast<size_t>(std::find(c.axes().begin(), c.axes().end(), kMemoryAxis) - c.axes().begin());
  std::vector<int64_t> pos(static_cast<size_t>(c.axis_count()));
  std::vector<int64_t> out;
  out.reserve(indices.size());
  for (int64_t x : indices) {
    if (x < 0 || x >= c.size()) {
      return make_error("index " + std::to_string(x) + " is outside [0, " + std::to_string(c.size()) + ")", 0,
                        "index");
    }
    c.map(x, 0, pos.data());  // replica 0, after the swizzle
    int64_t addr;
    if (__builtin_mul_overflow(pos[m], int64_t{elem_bytes}, &addr)) {
      return make_error("byte address overflows 64 bits", 0, "indices");
    }
    out.push_back(addr);
  }
  return out;
}

}  // namespace layoutscope
