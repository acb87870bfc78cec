#include "nvrtc.hpp"

#include <dlfcn.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <vector>

namespace layoutscope::agent {
namespace {

// The few NVRTC entry points used, resolved from the shared library at first use.
struct Nvrtc {
  using Program = void*;
  int (*create)(Program*, const char*, const char*, int, const char* const*, const char* const*) = nullptr;
  int (*compile)(Program, int, const char* const*) = nullptr;
  int (*cubin_size)(Program, size_t*) = nullptr;
  int (*cubin)(Program, char*) = nullptr;
  int (*log_size)(Program, size_t*) = nullptr;
  int (*log)(Program, char*) = nullptr;
  int (*destroy)(Program*) = nullptr;
  int (*version)(int*, int*) = nullptr;
  const char* (*error)(int) = nullptr;
  std::string missing;  // why it could not be loaded
};

const Nvrtc& nvrtc() {
  static const Nvrtc lib = [] {
    Nvrtc n;
    void* h = nullptr;
    for (const char* name : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"}) {
      if ((h = dlopen(name, RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
    }
    if (h == nullptr) {
      n.missing =
          "NVRTC (libnvrtc.so, CUDA Toolkit) is not installed on this machine: generated kernels cannot be "
          "compiled";
      return n;
    }
    auto sym = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, name));
      if (fn == nullptr && n.missing.empty()) n.missing = std::string("NVRTC lacks ") + name;
    };
    sym(n.create, "nvrtcCreateProgram");
    sym(n.compile, "nvrtcCompileProgram");
    sym(n.cubin_size, "nvrtcGetCUBINSize");
    sym(n.cubin, "nvrtcGetCUBIN");
    sym(n.log_size, "nvrtcGetProgramLogSize");
    sym(n.log, "nvrtcGetProgramLog");
    sym(n.destroy, "nvrtcDestroyProgram");
    sym(n.version, "nvrtcVersion");
    sym(n.error, "nvrtcGetErrorString");
    return n;
  }();
  return lib;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string hex(uint64_t h) {
  std::ostringstream o;
  o << std::hex << h;
  return o.str();
}

Result<std::vector<char>> compile(const codegen::KernelSource& source, const std::string& arch,
                                  std::string& log) {
  const Nvrtc& n = nvrtc();
  if (!n.missing.empty()) return make_error(n.missing, 0, "nvrtc");
  Nvrtc::Program prog = nullptr;
  const std::string file = "layoutscope_" + hex(source.hash) + ".cu";
  if (int rc = n.create(&prog, source.text.c_str(), file.c_str(), 0, nullptr, nullptr); rc != 0) {
    return make_error(std::string("nvrtcCreateProgram: ") + n.error(rc), 0, "nvrtc");
  }
  const std::string arch_opt = "--gpu-architecture=" + arch;
  const char* opts[] = {arch_opt.c_str(), "--std=c++17", "-default-device"};
  const int rc = n.compile(prog, 3, opts);
  size_t size = 0;
  n.log_size(prog, &size);
  log.assign(size, '\0');
  if (size > 0) n.log(prog, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  if (rc != 0) {
    n.destroy(&prog);
    return make_error(
        std::string("NVRTC could not compile the generated kernel (") + n.error(rc) + "): " + log, 0,
        "nvrtc");
  }
  n.cubin_size(prog, &size);
  std::vector<char> cubin(size);
  n.cubin(prog, cubin.data());
  n.destroy(&prog);
  return cubin;
}

}  // namespace

Result<std::string> nvrtc_version() {
  const Nvrtc& n = nvrtc();
  if (!n.missing.empty()) return make_error(n.missing, 0, "nvrtc");
  int major = 0, minor = 0;
  n.version(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

KernelCache::~KernelCache() {
  for (auto& [key, k] : kernels_) {
    if (k->library != nullptr) cudaLibraryUnload(k->library);
  }
}

Result<const CompiledKernel*> KernelCache::get(const codegen::KernelSource& source, int device) {
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
    return make_error("cannot read the compute capability of device " + std::to_string(device), 0, "device");
  }
  const std::string arch = "sm_" + std::to_string(major * 10 + minor);
  std::lock_guard<std::mutex> lock(mutex_);
  auto key = std::make_pair(source.hash, arch);
  if (auto it = kernels_.find(key); it != kernels_.end()) return it->second.get();

  auto k = std::make_unique<CompiledKernel>();
  k->name = source.name;
  k->arch = arch;
  k->hash = source.hash;
  std::vector<char> cubin;
  const std::filesystem::path file =
      disk_dir_.empty() ? std::filesystem::path{} : disk_dir_ / (hex(source.hash) + "-" + arch + ".cubin");
  if (!file.empty()) {
    std::ifstream in(file, std::ios::binary);
    if (in) {
      cubin.assign(std::istreambuf_iterator<char>(in), {});
      k->from_disk = !cubin.empty();
    }
  }
  if (cubin.empty()) {
    const auto t0 = std::chrono::steady_clock::now();
    auto compiled = compile(source, arch, k->log);
    if (!compiled) return compiled.error();
    k->compile_s = seconds_since(t0);
    cubin = std::move(*compiled);
    if (!file.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(disk_dir_, ec);
      const std::filesystem::path tmp = file.string() + ".tmp";
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      out.write(cubin.data(), static_cast<std::streamsize>(cubin.size()));
      out.close();
      if (out) std::filesystem::rename(tmp, file, ec);
    }
  }
  const auto t1 = std::chrono::steady_clock::now();
  if (cudaError_t e =
          cudaLibraryLoadData(&k->library, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
      e != cudaSuccess) {
    return make_error(std::string("cudaLibraryLoadData: ") + cudaGetErrorString(e), 0, "kernel");
  }
  if (cudaError_t e = cudaLibraryGetKernel(&k->kernel, k->library, source.name.c_str()); e != cudaSuccess) {
    return make_error(std::string("cudaLibraryGetKernel: ") + cudaGetErrorString(e), 0, "kernel");
  }
  k->load_s = seconds_since(t1);
  const CompiledKernel* out = k.get();
  kernels_.emplace(key, std::move(k));
  return out;
}

}  // namespace layoutscope::agent
