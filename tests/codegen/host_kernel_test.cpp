// The generated conversion kernels run on the host: each case's kernel text, compiled by the host's C++
// compiler with the CUDA built-ins it uses written for the host (host/host_cuda.hpp), runs every block of its
// plan over the whole tensor, and every byte of the output is compared with x.permute(perm).contiguous()
// worked out directly (host/run_kernel.cpp). This checks the text itself, which the CPU backend (the plan's
// mapping, element by element) does not run, on the shapes whose code paths only large tiles take.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "convert_kernel.hpp"

namespace layoutscope::codegen {
namespace {

struct Case {
  const char* name;
  std::vector<int64_t> shape, perm;
  DType dtype;
};

// Runs the case's kernel; "" where every byte is right, else what went wrong.
std::string run_on_host(const Case& c) {
  auto plan = plan_permute(c.shape, c.perm, c.dtype);
  if (!plan.ok()) return "no plan: " + plan.error().message;
  const KernelSource k = convert_kernel_source(*plan);
  // A directory of this run's own: two checkouts testing at once on one machine must not share files.
  std::string dir = ::testing::TempDir() + "/host_kernel_XXXXXX";
  if (mkdtemp(dir.data()) == nullptr) return "cannot make a directory in " + ::testing::TempDir();
  const std::string base = dir + "/" + c.name;
  std::ofstream(base + ".cu") << k.text;
  std::string cmd = std::string(LAYOUTSCOPE_HOST_CXX) + " -std=c++20 -O1 -w -pthread -I" +
                    LAYOUTSCOPE_HOST_DIR + " -DKERNEL='\"" + base + ".cu\"' " + LAYOUTSCOPE_HOST_DIR +
                    "/run_kernel.cpp -o " + base + " > " + base + ".log 2>&1";
  if (std::system(cmd.c_str()) != 0) {
    std::stringstream log;
    log << std::ifstream(base + ".log").rdbuf();
    return "does not compile on the host:\n" + log.str();
  }
  // A block that never reaches its barrier would hang: the run gets two minutes.
  cmd = "timeout 120 " + base + " " + std::to_string(k.threads) + " " + std::to_string(k.blocks) + " " +
        std::to_string(dtype_bytes(c.dtype)) + " " + std::to_string(c.shape.size());
  for (int64_t e : c.shape) cmd += " " + std::to_string(e);
  for (int64_t p : c.perm) cmd += " " + std::to_string(p);
  cmd += " > " + base + ".out 2>&1";
  const int status = std::system(cmd.c_str());
  std::stringstream out;
  out << std::ifstream(base + ".out").rdbuf();
  if (status != 0) return out.str() + "(the kernel, its build and its output are in " + dir + ")";
  std::filesystem::remove_all(dir);
  return "";
}

TEST(HostKernel, EveryKindWritesThePermutation) {
  const Case cases[] = {
      // Aligned tiles, a folded tile, wide units, paired records, the vector kernel.
      {"f32_transpose", {1024, 1024}, {1, 0}, DType::kF32},
      {"bf16_bshd", {2, 512, 8, 64}, {0, 2, 1, 3}, DType::kBF16},
      {"u8_folded", {8, 128, 64, 16, 8, 32}, {1, 0, 2, 4, 5, 3}, DType::kU8},
      {"f32_wide_units_odd", {101, 3, 99, 8}, {2, 1, 0, 3}, DType::kF32},
      {"bf16_paired_aos", {1 << 16, 8}, {1, 0}, DType::kBF16},
      // Interleave into records and out of them (warp shuffles and ballots); planes into records take the
      // exchange from 264 blocks of 256 threads (67584 items of 16 B) up.
      {"u8_nchw_nhwc_c3", {2, 3, 768, 720}, {0, 2, 3, 1}, DType::kU8},
      {"u8_aos_soa_rec5", {1 << 18, 5}, {1, 0}, DType::kU8},
      {"f32_soa_aos_odd", {3, 270337}, {1, 0}, DType::kF32},
      // Records of an even number of chunks: 4 (XORed chunk indices in the exchange, a ragged last chunk in
      // the 4-channel image), 8 (a tile), 10 (the plain order) and 18 (a pad chunk a lane), both ways.
      {"u8_nchw_nhwc_c4", {3, 4, 600, 601}, {0, 2, 3, 1}, DType::kU8},
      {"bf16_nhwc_nchw_c4", {2, 56, 64, 4}, {0, 3, 1, 2}, DType::kBF16},
      {"u8_aos_soa_rec8", {1 << 16, 8}, {1, 0}, DType::kU8},
      {"u8_soa_aos_rec18", {18, 1081344}, {1, 0}, DType::kU8},
      {"bf16_aos_soa_rec10", {1 << 14, 10}, {1, 0}, DType::kBF16},
      // Planes into records below that: each lane stores its own record (no exchange), in blocks of 64
      // threads; an image, a ragged last chunk, planes at odd offsets, records of 20 chunks.
      {"f32_one_image_nhwc", {1, 3, 224, 224}, {0, 2, 3, 1}, DType::kF32},
      {"u8_small_nchw_nhwc_c4", {2, 4, 56, 57}, {0, 2, 3, 1}, DType::kU8},
      {"f32_small_soa_aos_odd", {3, 1001}, {1, 0}, DType::kF32},
      {"u8_small_soa_aos_rec20", {20, 1 << 14}, {1, 0}, DType::kU8},
      // Unaligned rows: tiles of 32 windows a row (a row per warp, the rows' shifts as constants where the
      // strides allow), shorter tiles (a thread per window, edge threads), two threads a block, the vector
      // kernel's windows across a run's end.
      {"bf16_prime", {4093, 4099}, {1, 0}, DType::kBF16},
      {"u8_prime", {10007, 1009}, {1, 0}, DType::kU8},
      {"f32_prime", {4099, 4093}, {1, 0}, DType::kF32},
      {"f32_odd_rank4", {48, 197, 64, 13}, {2, 0, 3, 1}, DType::kF32},
      {"u8_odd_1201x1999", {1201, 1999}, {1, 0}, DType::kU8},
      {"u8_rank5", {15, 17, 19, 21, 23}, {4, 3, 2, 1, 0}, DType::kU8},
      // Two threads a block for 2 B and 4 B units: one tile along a of 137 rows, a rank-5 reversal of
      // primes, a transpose whose last tile along b holds 1021 % 32 = 29 units.
      {"bf16_half_137x4099", {137, 4099}, {1, 0}, DType::kBF16},
      {"f32_half_137x4099", {137, 4099}, {1, 0}, DType::kF32},
      {"bf16_half_rank5_primes", {11, 13, 17, 19, 23}, {4, 3, 2, 1, 0}, DType::kBF16},
      {"bf16_half_2039x1021", {2039, 1021}, {1, 0}, DType::kBF16},
      {"u8_vit_heads", {16, 6, 197, 197}, {0, 2, 1, 3}, DType::kU8},
  };
  for (const Case& c : cases) EXPECT_EQ(run_on_host(c), "") << c.name;
}

}  // namespace
}  // namespace layoutscope::codegen
