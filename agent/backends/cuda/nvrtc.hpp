// Generated CUDA C compiled at run time: NVRTC for the device's own architecture, the CUBIN loaded with the
// runtime's library API, kept in memory by the hash of the source (and on disk when a folder is given), so a
// plan used twice compiles once.
//
//   KernelCache cache(results_dir / "kernels");
//   auto k = cache.get(codegen::convert_kernel_source(plan), device);   // ~50 ms the first time, ~0 after
//   cudaLaunchKernel(k->launchable(), k->blocks, k->threads, args, 0, stream);
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
  std::string log;  // NVRTC's log (warnings)
  const void* launchable() const { return reinterpret_cast<const void*>(kernel); }
};

// Where get() found a kernel.
enum class KernelOrigin { kMemory, kDisk, kCompiled };

class KernelCache {
 public:
  explicit KernelCache(std::filesystem::path disk_dir = {}) : disk_dir_(std::move(disk_dir)) {}
  ~KernelCache();
  KernelCache(const KernelCache&) = delete;
  KernelCache& operator=(const KernelCache&) = delete;

  // The kernel of `source` for `device`, compiled now or earlier (in this process, or by any process that
  // shared the disk folder). A disk file that is damaged, of another kernel or architecture, or that the
  // driver refuses is compiled again and replaced. Errors: NVRTC missing, a compile error (with the log), a
  // load failure of a fresh compile.
  Result<const CompiledKernel*> get(const codegen::KernelSource& source, int device,
                                    KernelOrigin* origin = nullptr);

 private:
  std::filesystem::path disk_dir_;
  std::mutex mutex_;
  std::map<std::pair<uint64_t, std::string>, std::unique_ptr<CompiledKernel>> kernels_;
};

// NVRTC's version ("13.0"), or why it cannot be loaded.
Result<std::string> nvrtc_version();

}  // namespace layoutscope::agent
