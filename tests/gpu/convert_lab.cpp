// The conversion suite on a GPU, outside the agent: every case planned by the engine, its kernel generated
// and compiled with NVRTC, run, verified element by element on the device, and timed with cold L2 against a
// float4 copy and cudaMemcpy of the same bytes in the same process. One JSON line per case on stdout.
//
//   convert_lab [--quick] [--random N] [--samples S] [--profile] [--corpus FILE] [--emit DIR]
//   convert_lab --cache-check DIR
// --corpus reads the cases from FILE instead of the suite: one case a line, tab-separated fields name, dtype,
// shape, perm (empty for a layout-to-layout case), src layout, dst layout (empty for a permutation), as
// `python3 tests/gpu/convert_corpus.py tsv` writes them from tests/gpu/convert_corpus.json.
// --emit DIR also writes each timed case's kernel text to DIR/<case>.cu (the result line names its threads
// and blocks), so that another process can time the same kernel in its own loop (bench/peers/convert_peers.py
// --kernels DIR). --profile runs each case's kernel once and nothing else, for Nsight Compute. --cache-check
// exercises the disk cache of compiled kernels in DIR (a restart finds the CUBIN; a damaged, truncated,
// foreign or tampered file is compiled again) and checks every kernel it gets against the host executor.
// LAB_KERNEL=FILE in the environment runs the CUDA C in FILE (entry point layoutscope_convert(in, out)) in
// place of every case's generated kernel, launched with LAB_THREADS and LAB_BLOCKS where set, else the
// plan's: a kernel edited by hand is verified and timed like a generated one (for experiments on one case at
// a time).
//
// Build (from the repository root, with the engine built in build/):
//   g++ -std=c++20 -O2 -Ishared/include -Icodegen -Iagent -I$CUDA/include tests/gpu/convert_lab.cpp
//       agent/bench/kinds/convert_run.cpp agent/backends/cuda/nvrtc.cpp agent/backends/cuda/cubin_folder.cpp
//       codegen/convert_kernel.cpp codegen/convert_library.cpp build/shared/liblayoutscope_engine.a
//       -L$CUDA/lib64 -lcudart -lcrypto -ldl -lpthread -o build/bin/convert_lab
//
// The suite: the 8 permutations of the conversion benchmark x {f32, bf16, u8} at 256 MiB each way (bf16 and
// u8 scale dimension 0 by 2 and 4), then N random permutations of rank 3-6 (default 50).
#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "backends/cuda/nvrtc.hpp"
#include "bench/kinds/convert_run.hpp"
#include "convert_kernel.hpp"
#include "convert_library.hpp"
#include "corpus_cases.hpp"
#include "lab_check.hpp"
#include "layoutscope/parse.hpp"
#include "layoutscope/plan/convert.hpp"

using namespace layoutscope;

namespace {

codegen::KernelSource handwritten(const std::string& name, const std::string& text) {
  codegen::KernelSource k;
  k.name = name;
  k.text = text;
  k.hash = codegen::source_hash(text);
  k.threads = 256;
  return k;
}

// Input bytes: a hash of the byte index, so every element differs from its neighbours.
const char* kFill = R"(extern "C" __global__ void fill(unsigned char* p, long long n) {
  for (long long i = blockIdx.x * 256LL + threadIdx.x; i < n; i += 256LL * gridDim.x) {
    unsigned long long x = (unsigned long long)i * 0x9E3779B97F4A7C15ull; x ^= x >> 29;
    p[i] = (unsigned char)(x >> 7);
  }
})";

// out[dst_at(d)] == in[src_at(gather(d))] for every destination element, with the plan's modes (in units)
// as arguments and each side's offset and swizzle (bits, the field read, the field changed).
const char* kVerify = R"(extern "C" __global__ void verify(const unsigned char* in, const unsigned char* out,
    long long elements, int eb, int unit, int nmodes, const long long* ext, const long long* sstr,
    unsigned long long* bad, long long soff, int sbits, int sfrom, int sto, long long doff, int dbits,
    int dfrom, int dto) {
  for (long long d = blockIdx.x * 256LL + threadIdx.x; d < elements; d += 256LL * gridDim.x) {
    long long u = d / unit, s = 0;
    for (int i = nmodes - 1; i >= 0; --i) { s += (u % ext[i]) * sstr[i]; u /= ext[i]; }
    s = s * unit + d % unit + soff;
    if (sbits) s ^= ((s >> sfrom) & ((1LL << sbits) - 1)) << sto;
    long long o = d + doff;
    if (dbits) o ^= ((o >> dfrom) & ((1LL << dbits) - 1)) << dto;
    for (int b = 0; b < eb; ++b) if (out[o * eb + b] != in[s * eb + b]) { atomicAdd(bad, 1ull); break; }
  }
})";

// The copy ceiling: 16 B per lane, 4 in flight per thread.
const char* kCopy = R"(extern "C" __global__ void __launch_bounds__(256) copy16(const uint4* __restrict__ in,
    uint4* __restrict__ out, long long n) {
  const long long first = (long long)blockIdx.x * 1024 + threadIdx.x;
  uint4 x[4];
#pragma unroll
  for (int u = 0; u < 4; ++u) { long long g = first + u * 256; if (g < n) x[u] = __ldg(in + g); }
#pragma unroll
  for (int u = 0; u < 4; ++u) { long long g = first + u * 256; if (g < n) out[g] = x[u]; }
})";

// The disk cache of compiled kernels, as an agent restart meets it. One JSON line per step; exit 1 on any
// failure.
int cache_check(const std::string& dir) {
  namespace fs = std::filesystem;
  const std::vector<int64_t> shape = {48, 80, 96}, perm = {2, 0, 1};
  auto plan = plan_permute(shape, perm, DType::kF32);
  auto other_plan = plan_permute({64, 64}, {1, 0}, DType::kF32);
  if (!plan || !other_plan) return std::fprintf(stderr, "plan failed\n"), 1;
  const codegen::KernelSource src = codegen::convert_kernel_source(*plan);
  const codegen::KernelSource other = codegen::convert_kernel_source(*other_plan);
  fs::remove_all(dir);
  const int64_t bytes = plan->elements * 4;
  std::vector<std::byte> in(static_cast<size_t>(bytes)), want(static_cast<size_t>(bytes)),
      got(static_cast<size_t>(bytes));
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::byte>((i * 2654435761u) >> 13);
  if (!execute_convert_host(*plan, in, want)) return 1;
  void *din = nullptr, *dout = nullptr;
  CHECK(cudaMalloc(&din, static_cast<size_t>(bytes)));
  CHECK(cudaMalloc(&dout, static_cast<size_t>(bytes)));
  CHECK(cudaMemcpy(din, in.data(), in.size(), cudaMemcpyHostToDevice));
  int failures = 0;
  // A fresh cache (a restarted agent) on DIR: where the kernel came from, and whether it converts.
  auto step = [&](const char* name, agent::KernelOrigin expect) {
    agent::KernelCache cache(dir);
    agent::KernelOrigin origin = agent::KernelOrigin::kMemory;
    const auto t0 = std::chrono::steady_clock::now();
    auto k = cache.get(src, 0, &origin);
    const double get_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    bool ok = k.ok() && origin == expect;
    if (k.ok()) {
      CHECK(cudaMemset(dout, 0xA5, static_cast<size_t>(bytes)));
      void* args[] = {&din, &dout};
      CHECK(cudaLaunchKernel((*k)->launchable(), dim3(static_cast<unsigned>(src.blocks)), dim3(src.threads),
                             args, 0, nullptr));
      CHECK(cudaMemcpy(got.data(), dout, got.size(), cudaMemcpyDeviceToHost));
      ok = ok && got == want;
    }
    const char* origins[] = {"memory", "disk", "compiled"};
    std::printf(
        "{\"cache_step\":\"%s\",\"origin\":\"%s\",\"expected\":\"%s\",\"get_s\":%.6f,\"ok\":%s%s%s}\n", name,
        k.ok() ? origins[static_cast<int>(origin)] : "error", origins[static_cast<int>(expect)], get_s,
        ok ? "true" : "false", k.ok() ? "" : ",\"error\":", k.ok() ? "" : "\"see stderr\"");
    if (!k.ok()) std::fprintf(stderr, "%s\n", k.error().message.c_str());
    failures += ok ? 0 : 1;
  };
  // The cache's files (named by the SHA-256 of what each compile used), other than `except`.
  auto cubin_file = [&](const fs::path& except) {
    fs::path found;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().extension() == ".cubin" && e.path() != except) found = e.path();
    }
    return found;
  };
  auto rewrite = [&](const fs::path& file, const std::string& bytes_) {
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes_;
  };
  auto slurp = [&](const fs::path& file) {
    std::ifstream f(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
  };
  step("first use: compiled and written", agent::KernelOrigin::kCompiled);
  step("restart: read from disk", agent::KernelOrigin::kDisk);
  const fs::path file = cubin_file({});
  const std::string good = slurp(file);
  rewrite(file, "not a cubin at all");
  step("random bytes: compiled again", agent::KernelOrigin::kCompiled);
  step("rewritten file: read from disk", agent::KernelOrigin::kDisk);
  rewrite(file, good.substr(0, good.size() / 2));
  step("truncated: compiled again", agent::KernelOrigin::kCompiled);
  std::string tampered = good;
  tampered[tampered.size() - 100] ^= 0x5a;
  rewrite(file, tampered);
  step("one CUBIN byte changed: compiled again", agent::KernelOrigin::kCompiled);
  {
    agent::KernelCache c(dir);
    if (!c.get(other, 0).ok()) ++failures;
  }
  rewrite(file, slurp(cubin_file(file)));  // another kernel's valid file under this kernel's name
  step("another kernel's file: compiled again", agent::KernelOrigin::kCompiled);
  fs::remove(file);
  fs::create_directories(file);  // a folder where the file should be: compiled, not written, no crash
  step("a folder in the file's place: compiled", agent::KernelOrigin::kCompiled);
  fs::remove_all(dir);
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  std::printf("{\"cache_check\":\"%s\",\"failures\":%d}\n", failures == 0 ? "passed" : "failed", failures);
  return failures == 0 ? 0 : 1;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, profile = false;
  int random_cases = 50, samples = 20;
  std::string cache_dir, corpus, emit_dir;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    if (!std::strcmp(argv[i], "--profile")) profile = true;
    if (!std::strcmp(argv[i], "--random") && i + 1 < argc) random_cases = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--samples") && i + 1 < argc) samples = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--cache-check") && i + 1 < argc) cache_dir = argv[++i];
    if (!std::strcmp(argv[i], "--corpus") && i + 1 < argc) corpus = argv[++i];
    if (!std::strcmp(argv[i], "--emit") && i + 1 < argc) emit_dir = argv[++i];
  }
  if (!emit_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(emit_dir, ec);
    if (ec) return std::fprintf(stderr, "--emit %s: %s\n", emit_dir.c_str(), ec.message().c_str()), 1;
  }
  CHECK(cudaSetDevice(0));
  if (!cache_dir.empty()) return cache_check(cache_dir);
  agent::KernelCache cache;
  auto kfill = cache.get(handwritten("fill", kFill), 0);
  auto kverify = cache.get(handwritten("verify", kVerify), 0);
  auto kcopy = cache.get(handwritten("copy16", kCopy), 0);
  if (!kfill || !kverify || !kcopy) {
    std::fprintf(stderr, "helper kernels: %s\n",
                 (!kfill     ? kfill.error()
                  : !kverify ? kverify.error()
                             : kcopy.error())
                     .message.c_str());
    return 1;
  }

  // The library (convert_library.hpp): its five kernels compiled once into a folder of their own, as a
  // machine that ships them has them on disk.
  const std::filesystem::path library_dir =
      std::filesystem::temp_directory_path() / ("convert-lab-library-" + std::to_string(::getpid()));
  {
    agent::KernelCache install(library_dir);
    for (int b : {1, 2, 4, 8, 16}) {
      if (auto k = install.get(codegen::library_kernel_source(b), 0); !k) {
        std::fprintf(stderr, "library kernel %d: %s\n", b, k.error().message.c_str());
        return 1;
      }
    }
  }

  // The agent's suite (convert_run.hpp): the named permutations, then the random ones.
  std::vector<LabCase> cases;
  if (!corpus.empty()) {
    cases = read_corpus(corpus);
  } else {
    for (agent::SuitePermutation& c : agent::suite_permutations(random_cases)) {
      if (quick && c.dtype != DType::kF32 && c.name.rfind("random", 0) != 0) continue;
      cases.push_back({c.name, c.shape, c.perm, c.dtype, "", ""});
    }
  }

  int l2 = 0;
  CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  const size_t flush_bytes = static_cast<size_t>(l2) * 2;
  const size_t bytes_max = size_t{256} << 20;
  void *in = nullptr, *out = nullptr, *flush = nullptr, *dev_modes = nullptr, *dev_bad = nullptr;
  CHECK(cudaMalloc(&in, bytes_max + 4096));
  CHECK(cudaMalloc(&out, bytes_max + 4096));
  CHECK(cudaMalloc(&flush, flush_bytes));
  CHECK(cudaMalloc(&dev_modes, 2 * 16 * sizeof(long long)));
  CHECK(cudaMalloc(&dev_bad, sizeof(unsigned long long)));
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));

  auto timed = [&](auto launch) {
    std::vector<double> t;
    launch();
    launch();
    for (int s = 0; s < samples; ++s) {
      CHECK(cudaMemsetAsync(flush, s & 0xff, flush_bytes));
      CHECK(cudaEventRecord(e0));
      launch();
      CHECK(cudaEventRecord(e1));
      CHECK(cudaEventSynchronize(e1));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, e0, e1));
      t.push_back(ms * 1e-3);
    }
    return median(t);
  };
  auto launch = [&](const auto& k, int64_t blocks, int threads, void** args) {
    CHECK(cudaLaunchKernel(k->launchable(), dim3(static_cast<unsigned>(blocks)), dim3(threads), args, 0,
                           nullptr));
  };

  for (const LabCase& c : cases) {
    auto plan = plan_case(c);
    if (!plan) {
      std::printf("{\"case\":\"%s\",\"error\":\"%s\"}\n", c.name.c_str(), plan.error().message.c_str());
      std::fflush(stdout);
      continue;
    }
    const int64_t bytes = plan->elements * plan->elem_bytes;
    const int64_t src_bytes = source_extent(*plan) * plan->elem_bytes;
    const int64_t out_bytes = (plan->elements + plan->dst_offset) * plan->elem_bytes;
    if (std::max(out_bytes, src_bytes) > static_cast<int64_t>(bytes_max)) {
      std::printf("{\"case\":\"%s\",\"error\":\"larger than the lab's buffers\"}\n", c.name.c_str());
      continue;
    }
    long long fill_n = static_cast<long long>(src_bytes);
    unsigned char* inb = static_cast<unsigned char*>(in);
    void* fargs[] = {&inb, &fill_n};
    launch(*kfill, 4096, 256, fargs);
    CHECK(cudaMemset(out, 0xA5, static_cast<size_t>(out_bytes)));

    codegen::KernelSource src = codegen::convert_kernel_source(*plan);
    // LAB_KERNEL (the header above): a hand-edited kernel in place of the generated one.
    if (const char* kf = std::getenv("LAB_KERNEL")) {
      std::ifstream f(kf);
      if (!f) {
        std::fprintf(stderr, "LAB_KERNEL: cannot read %s\n", kf);
        return 1;
      }
      src.text.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
      if (const char* t = std::getenv("LAB_THREADS")) src.threads = std::atoi(t);
      if (const char* b = std::getenv("LAB_BLOCKS")) src.blocks = std::atoll(b);
      if (src.threads < 1 || src.threads > 1024 || src.blocks < 1) {
        std::fprintf(stderr, "LAB_THREADS must be 1-1024 and LAB_BLOCKS at least 1 (got %d and %lld)\n",
                     src.threads, static_cast<long long>(src.blocks));
        return 1;
      }
      src.hash = codegen::kernel_hash(src);
    }
    // The agent's host side of a request: plan + source text, then kRepeats repeated requests, each a
    // plan-cache lookup (cached_plan_s: their median, cached_plan_max_s: the slowest).
    constexpr int kRepeats = 9;
    double plan_s = -1, cached_plan_s = -1, cached_plan_max_s = -1;
    if (c.src.empty()) {
      if (auto ac = agent::permute_case(c.name, c.shape, c.perm, c.dtype)) {
        if (auto prepared = agent::prepare_convert(*ac)) plan_s = prepared->times.plan_s;
        std::vector<double> lookups;
        for (int i = 0; i < kRepeats; ++i)
          if (auto again = agent::permute_case(c.name, c.shape, c.perm, c.dtype))
            lookups.push_back(again->cached_plan_s);
        if (!lookups.empty()) {
          std::sort(lookups.begin(), lookups.end());
          cached_plan_s = lookups[lookups.size() / 2];
          cached_plan_max_s = lookups.back();
        }
      }
    }
    const auto t0 = std::chrono::steady_clock::now();
    auto k = cache.get(src, 0);
    const double first_use_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!k) {
      std::printf("{\"case\":\"%s\",\"error\":\"compile: %s\"}\n", c.name.c_str(), k.error().message.c_str());
      continue;
    }
    const auto t1 = std::chrono::steady_clock::now();
    auto again = cache.get(src, 0);
    const double cached_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    (void)again;
    unsigned char* outb = static_cast<unsigned char*>(out);
    void* kargs[] = {&inb, &outb};
    launch(*k, src.blocks, src.threads, kargs);
    CHECK(cudaDeviceSynchronize());
    if (profile) {
      // The first warp's predictions, and the kernel-wide averages that Nsight Compute reports.
      const ConvertAverages avg = convert_kernel_averages(*plan);
      std::printf(
          "{\"case\":\"%s\",\"profiled\":true,\"pred_sectors_read\":%lld,\"pred_sectors_write\":%lld,"
          "\"pred_smem_write\":%d,\"pred_smem_read\":%d,\"ideal_smem\":%d,\"avg_modelled\":%s,"
          "\"avg_sectors_read\":%.4f,\"avg_sectors_write\":%.4f,\"avg_smem_write\":%.4f,\"avg_smem_read\":%."
          "4f}\n",
          c.name.c_str(), static_cast<long long>(plan->global_read.sectors),
          static_cast<long long>(plan->global_write.sectors), plan->smem_write.wavefronts,
          plan->smem_read.wavefronts, plan->smem_read.ideal_wavefronts, avg.modelled ? "true" : "false",
          avg.read_sectors, avg.write_sectors, avg.smem_store_wavefronts, avg.smem_load_wavefronts);
      continue;
    }

    // Verify every element on the device.
    std::vector<long long> modes;
    for (const ConvertMode& m : plan->modes) modes.push_back(m.extent);
    for (const ConvertMode& m : plan->modes) modes.push_back(m.src_stride);
    CHECK(cudaMemcpy(dev_modes, modes.data(), modes.size() * sizeof(long long), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dev_bad, 0, sizeof(unsigned long long)));
    long long elements = plan->elements;
    int eb = plan->elem_bytes, unit = plan->kind == ConvertKind::kTiled ? plan->unit_elems : 1;
    int nmodes = static_cast<int>(plan->modes.size());
    long long* ext = static_cast<long long*>(dev_modes);
    long long* sstr = ext + nmodes;
    unsigned long long* bad = static_cast<unsigned long long*>(dev_bad);
    long long soff = plan->src_offset, doff = plan->dst_offset;
    const Swizzle& ssw = plan->src_swizzle;
    const Swizzle& dsw = plan->dst_swizzle;
    int sbits = ssw.bits, sfrom = ssw.inner ? ssw.base + ssw.shift : ssw.base,
        sto = ssw.inner ? ssw.base : ssw.base + ssw.shift;
    int dbits = dsw.bits, dfrom = dsw.inner ? dsw.base + dsw.shift : dsw.base,
        dto = dsw.inner ? dsw.base : dsw.base + dsw.shift;
    void* vargs[] = {&inb,  &outb,  &elements, &eb,  &unit, &nmodes, &ext,   &sstr, &bad,
                     &soff, &sbits, &sfrom,    &sto, &doff, &dbits,  &dfrom, &dto};
    launch(*kverify, 8192, 256, vargs);
    unsigned long long mismatches = 0;
    CHECK(cudaMemcpy(&mismatches, dev_bad, sizeof mismatches, cudaMemcpyDeviceToHost));

    // Single use: a fresh plan, then the library kernel of its unit, loaded from the library's folder by a
    // cache that has not loaded it yet (a new process's first call), one run to the end. Its output is
    // verified like the plan's kernel's.
    double single_use_s = -1, library_s = -1;
    int library_unit = 0;
    unsigned long long library_mismatches = 0;
    std::string library_error;
    {
      CHECK(cudaMemset(out, 0xA5, static_cast<size_t>(out_bytes)));
      const auto s0 = std::chrono::steady_clock::now();
      auto fresh_plan = plan_case(c);
      auto call =
          fresh_plan ? codegen::library_call(*fresh_plan) : Result<codegen::LibraryCall>(fresh_plan.error());
      if (call) {
        agent::KernelCache first_call(library_dir);
        auto lk = first_call.get(codegen::library_kernel_source(call->unit_bytes), 0);
        if (lk) {
          codegen::LibraryArgs args = call->args;
          void* largs[] = {&inb, &outb, &args};
          launch(*lk, call->blocks, call->threads, largs);
          CHECK(cudaDeviceSynchronize());
          single_use_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count();
          library_unit = call->unit_bytes;
          CHECK(cudaMemset(dev_bad, 0, sizeof(unsigned long long)));
          launch(*kverify, 8192, 256, vargs);
          CHECK(cudaMemcpy(&library_mismatches, dev_bad, sizeof library_mismatches, cudaMemcpyDeviceToHost));
          library_s = timed([&] { launch(*lk, call->blocks, call->threads, largs); });
        } else {
          library_error = lk.error().message;
        }
      } else {
        library_error = call.error().message;
      }
    }

    const double t_kernel = timed([&] { launch(*k, src.blocks, src.threads, kargs); });
    if (!emit_dir.empty()) {
      std::ofstream f(std::filesystem::path(emit_dir) / (c.name + ".cu"));
      f << src.text;
      if (!f)
        return std::fprintf(stderr, "--emit: cannot write %s.cu in %s\n", c.name.c_str(), emit_dir.c_str()),
               1;
    }
    long long n16 = bytes / 16;
    void* cargs[] = {&inb, &outb, &n16};
    const double t_copy = timed([&] { launch(*kcopy, (n16 + 1023) / 1024, 256, cargs); });
    const double t_memcpy =
        timed([&] { CHECK(cudaMemcpyAsync(out, in, static_cast<size_t>(bytes), cudaMemcpyDeviceToDevice)); });
    auto list = [](const std::vector<int64_t>& v) {
      std::string t = "[";
      for (size_t i = 0; i < v.size(); ++i) t += (i ? "," : "") + std::to_string(v[i]);
      return t + "]";
    };
    // The conversion as (extent, source stride, destination stride) in elements, destination order: what
    // a peer needs to run the same conversion (torch.as_strided(...).contiguous()).
    std::string modes_json = "[";
    const int64_t ue = plan->kind == ConvertKind::kTiled ? plan->unit_elems : 1;
    for (const ConvertMode& m : plan->modes) {
      modes_json += (modes_json.size() > 1 ? ",[" : "[") + std::to_string(m.extent) + "," +
                    std::to_string(m.src_stride * ue) + "," + std::to_string(m.dst_stride * ue) + "]";
    }
    if (ue > 1) modes_json += ",[" + std::to_string(ue) + ",1,1]";
    modes_json += "]";
    // NVRTC's options for this kernel beyond the architecture (nvrtc.cpp adds --std=c++17 -default-device).
    std::string options_json = "[";
    for (const std::string& o : src.options)
      options_json += (options_json.size() > 1 ? ",\"" : "\"") + json_escape(o) + "\"";
    options_json += "]";
    std::printf(
        "{\"case\":\"%s\",\"src\":\"%s\",\"dst\":\"%s\",\"elem_modes\":%s,\"source_bytes\":%lld,"
        "\"src_offset\":%lld,\"dst_offset\":%lld,\"swizzled\":%s,\"reason\":\"%s\",",
        c.name.c_str(), c.src.c_str(), c.dst.c_str(), modes_json.c_str(), static_cast<long long>(src_bytes),
        static_cast<long long>(plan->src_offset), static_cast<long long>(plan->dst_offset),
        plan->src_swizzle.bits > 0 || plan->dst_swizzle.bits > 0 ? "true" : "false", plan->reason.c_str());
    std::printf(
        "\"shape\":%s,\"perm\":%s,\"dtype\":\"%s\",\"bytes\":%lld,\"kind\":\"%s\","
        "\"vector_bytes\":%d,\"unit_bytes\":%d,"
        "\"tile\":[%lld,%lld],\"swizzle\":[%d,%d,%d],\"common_vector\":%lld,\"modes\":%zu,"
        "\"pred_sectors_read\":%lld,\"pred_sectors_write\":%lld,\"pred_smem_write\":%d,\"pred_smem_read\":%d,"
        "\"compile_s\":%.4f,\"first_use_s\":%.4f,\"cached_s\":%.7f,\"plan_s\":%.7f,\"cached_plan_s\":%.7f,"
        "\"cached_plan_max_s\":%.7f,\"verified\":%s,\"mismatches\":%llu,\"single_use_s\":%.5f,"
        "\"library_unit_bytes\":%d,\"library_verified\":%s,\"library_s\":%.4e,\"library_error\":\"%s\","
        "\"threads\":%d,\"blocks\":%lld,\"nvrtc_options\":%s,"
        "\"kernel_s\":%.4e,\"copy16_s\":%.4e,\"memcpy_s\":%.4e,\"tb_s\":%.3f,"
        "\"x_copy16\":%.4f,\"x_memcpy\":%.4f}\n",
        list(c.shape).c_str(), list(c.perm).c_str(), std::string(to_string(c.dtype)).c_str(),
        static_cast<long long>(bytes), std::string(to_string(plan->kind)).c_str(), access_bytes(*plan),
        plan->unit_bytes, static_cast<long long>(plan->tile_a), static_cast<long long>(plan->tile_b),
        plan->staging.bits, plan->staging.base, plan->staging.shift,
        static_cast<long long>(plan->common_vector), plan->modes.size(),
        static_cast<long long>(plan->global_read.sectors), static_cast<long long>(plan->global_write.sectors),
        plan->smem_write.wavefronts, plan->smem_read.wavefronts, (*k)->compile_s, first_use_s, cached_s,
        plan_s, cached_plan_s, cached_plan_max_s, mismatches == 0 ? "true" : "false", mismatches,
        single_use_s, library_unit, library_unit > 0 && library_mismatches == 0 ? "true" : "false", library_s,
        json_escape(library_error).c_str(), src.threads, static_cast<long long>(src.blocks),
        options_json.c_str(), t_kernel, t_copy, t_memcpy, 2.0 * bytes / t_kernel / 1e12, t_copy / t_kernel,
        t_memcpy / t_kernel);
    std::fflush(stdout);
  }
  std::filesystem::remove_all(library_dir);
  return 0;
}
