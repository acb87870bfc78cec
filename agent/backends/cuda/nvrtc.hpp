// Generated CUDA C compiled at run time: NVRTC for the device's own architecture, the CUBIN loaded with the
// runtime's library API, kept in memory by the hash of the source (and on disk when a folder is given), so a
// plan used twice compiles once.
//
//   KernelCache cache(results_dir / "kernels");
//   auto k = cache.get(codegen::convert_kernel_source(plan), device);   // ~50 ms the first time, ~0 after
//   cudaLaunchKernel((*k)->launchable(), blocks, threads, args, 0, stream);   // *k holds the module loaded
//
// The loaded modules in memory are bounded (LoadedCache: kMaxLoadedKernels entries, kMaxLoadedKernelBytes
// of CUBIN), the least recently used unloaded first; get() hands out a shared_ptr, so a module a run still
// holds is unloaded only when the run lets go of it.
//
// NVRTC is loaded with dlopen (libnvrtc.so.13, then libnvrtc.so) so the agent still starts on a machine that
// has a driver but no CUDA Toolkit; get() then says so.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "backends/cuda/loaded_cache.hpp"
#include "convert_kernel.hpp"
#include "layoutscope/result.hpp"

namespace layoutscope::agent {

struct CompiledKernel {
  cudaLibrary_t library = nullptr;
  cudaKernel_t kernel = nullptr;
  std::string name;
  std::string arch;  // "sm_90"
  uint64_t hash = 0;
  double compile_s = 0;  // NVRTC (0 when the CUBIN came from the disk cache)
  double load_s = 0;     // cudaLibraryLoadData + cudaLibraryGetKernel
  bool from_disk = false;
  int64_t cubin_bytes = 0;  // what the cache counts against kMaxLoadedKernelBytes
  std::string log;          // NVRTC's log (warnings)
  const void* launchable() const { return reinterpret_cast<const void*>(kernel); }
};

// Where get() found a kernel.
enum class KernelOrigin { kMemory, kDisk, kCompiled };

// A run compiles a few kernels per case (the conversion, its check, helpers); a CUBIN of a generated kernel
// is 5-50 KiB. These bounds keep a long-lived agent's loaded modules (and the device memory each takes)
// finite whatever the requests. The disk folder is bounded too: after each write it is trimmed to
// CubinFolderBound's 4,096 files and 512 MiB, least recently used first (cubin_folder.hpp).
inline constexpr size_t kMaxLoadedKernels = 512;
inline constexpr int64_t kMaxLoadedKernelBytes = int64_t{256} << 20;

class KernelCache {
 public:
  explicit KernelCache(std::filesystem::path disk_dir = {}, size_t max_entries = kMaxLoadedKernels,
                       int64_t max_bytes = kMaxLoadedKernelBytes)
      : disk_dir_(std::move(disk_dir)), kernels_(max_entries, max_bytes) {}
  KernelCache(const KernelCache&) = delete;
  KernelCache& operator=(const KernelCache&) = delete;

  // The kernel of `source` for `device`, compiled now or earlier (in this process, or by any process that
  // shared the disk folder). A disk file that is damaged, of another kernel or architecture, or that the
  // driver refuses is compiled again and replaced. Errors: NVRTC missing, a compile error (with the log), a
  // load failure of a fresh compile.
  // The module stays loaded while the returned pointer (or a copy) is held.
  Result<std::shared_ptr<const CompiledKernel>> get(const codegen::KernelSource& source, int device,
                                                    KernelOrigin* origin = nullptr);

 private:
  std::filesystem::path disk_dir_;
  std::mutex mutex_;
  LoadedCache<std::pair<uint64_t, std::string>, CompiledKernel> kernels_;
};

// NVRTC's version ("13.0"), or why it cannot be loaded.
Result<std::string> nvrtc_version();

}  // namespace layoutscope::agent
