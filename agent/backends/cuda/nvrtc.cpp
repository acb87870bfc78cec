#include "backends/cuda/nvrtc.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <sstream>
#include <string_view>
#include <tuple>
#include <vector>

#include "backends/cuda/cubin_folder.hpp"

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
  // -minimal (NVRTC 12.4 and later) leaves out the texture, surface and device-runtime declarations the
  // generated kernels never use: the same CUBIN, byte for byte, in less time (measured in
  // docs/results/h200-convert.md); then the kernel's own options. An NVRTC that refuses one of them
  // (NVRTC_ERROR_INVALID_OPTION; --Ofast-compile needs 12.8) compiles again without any.
  constexpr int kInvalidOption = 5;
  std::vector<const char*> opts = {arch_opt.c_str(), "--std=c++17", "-default-device"};
  const size_t required = opts.size();
  opts.push_back("-minimal");
  for (const std::string& o : source.options) opts.push_back(o.c_str());
  int rc = n.compile(prog, static_cast<int>(opts.size()), opts.data());
  if (rc == kInvalidOption) {  // an older NVRTC: compile again with the required options only
    n.destroy(&prog);
    if (int c = n.create(&prog, source.text.c_str(), file.c_str(), 0, nullptr, nullptr); c != 0) {
      return make_error(std::string("nvrtcCreateProgram: ") + n.error(c), 0, "nvrtc");
    }
    rc = n.compile(prog, static_cast<int>(required), opts.data());
  }
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

// The disk cache's file, named by its key: a header line naming what the CUBIN is, then the CUBIN. The key is
// the SHA-256 of everything the compile used (the source text, NVRTC's options, the architecture); the header
// repeats it and carries the SHA-256 of the CUBIN. Anything that does not match (a truncated write, another
// kernel's file renamed, another architecture, random bytes) reads as absent and is compiled again. The
// folder is untrusted input: a link, a FIFO, a device, a file over kMaxCubinBytes, or a file or folder that
// another user owns or may write is never read.
constexpr const char* kDiskMagic = "layoutscope-cubin 2";
constexpr size_t kMaxHeaderBytes = 512;
constexpr size_t kMaxCubinBytes = 64 << 20;

std::string sha256_hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &n, EVP_sha256(), nullptr) != 1) return {};
  static const char* const kHex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < n; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 15];
  }
  return out;
}

// What the compile of `source` for `arch` depends on, hashed: the cache key (and the file's name).
std::string compile_key(const codegen::KernelSource& source, const std::string& arch) {
  std::string what = std::string(kDiskMagic) + '\0' + arch + '\0';
  for (const std::string& o : source.options) what += o + '\0';
  what += source.text;
  return sha256_hex(what);
}

std::string disk_header(const std::string& key, const std::string& arch, std::string_view cubin) {
  return std::string(kDiskMagic) + " key=" + key + " arch=" + arch +
         " bytes=" + std::to_string(cubin.size()) + " sha256=" + sha256_hex(cubin) + "\n";
}

// A file this user owns that no one else may write, in a folder of the same kind.
bool trusted(const struct stat& st) { return st.st_uid == ::geteuid() && (st.st_mode & 022) == 0; }

std::vector<char> read_disk(const std::filesystem::path& dir, const std::filesystem::path& file,
                            const std::string& key, const std::string& arch) {
  struct stat dst {};
  if (::lstat(dir.c_str(), &dst) != 0 || !S_ISDIR(dst.st_mode) || !trusted(dst)) return {};
  // O_NONBLOCK: a FIFO planted at the name must not block the open; fstat refuses it afterwards.
  const int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return {};
  struct stat st {};
  std::string bytes;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && trusted(st) && st.st_size > 0 &&
      static_cast<size_t>(st.st_size) <= kMaxHeaderBytes + kMaxCubinBytes) {
    bytes.resize(static_cast<size_t>(st.st_size));
    size_t off = 0;
    while (off < bytes.size()) {
      const ssize_t n = ::read(fd, bytes.data() + off, bytes.size() - off);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
    bytes.resize(off);
  }
  ::close(fd);
  const size_t eol = bytes.find('\n');
  if (eol == std::string::npos || eol + 1 > kMaxHeaderBytes) return {};
  const std::string_view cubin = std::string_view(bytes).substr(eol + 1);
  if (cubin.empty() || bytes.compare(0, eol + 1, disk_header(key, arch, cubin)) != 0) return {};
  touch_cubin(file);  // recently used: the folder's trim keeps it over older files
  return std::vector<char>(cubin.begin(), cubin.end());
}

void write_disk(const std::filesystem::path& dir, const std::filesystem::path& file, const std::string& key,
                const std::string& arch, const std::vector<char>& cubin) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  ::chmod(dir.c_str(), 0755);  // read_disk trusts only a folder no one else may write
  // A unique temporary name, created afresh (never a planted link's target), renamed over the file: a
  // reader never sees half a file.
  const std::filesystem::path tmp = file.string() + "." + std::to_string(::getpid()) + "-" +
                                    hex(reinterpret_cast<uintptr_t>(&cubin)) + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return;
  const std::string text = disk_header(key, arch, std::string_view(cubin.data(), cubin.size())) +
                           std::string(cubin.begin(), cubin.end());
  size_t off = 0;
  while (off < text.size()) {
    const ssize_t n = ::write(fd, text.data() + off, text.size() - off);
    if (n <= 0) break;
    off += static_cast<size_t>(n);
  }
  const bool ok = off == text.size() && ::close(fd) == 0;
  if (!ok || std::rename(tmp.c_str(), file.c_str()) != 0) {
    ::unlink(tmp.c_str());  // a full disk costs the next run a compile, nothing else
    return;
  }
  trim_cubin_folder(dir, CubinFolderBound{});  // the folder stays within its files and bytes
}

Result<std::pair<cudaLibrary_t, cudaKernel_t>> load(const std::vector<char>& cubin, const std::string& name) {
  cudaLibrary_t library = nullptr;
  cudaKernel_t kernel = nullptr;
  if (cudaError_t e = cudaLibraryLoadData(&library, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
      e != cudaSuccess) {
    cudaGetLastError();
    return make_error(std::string("cudaLibraryLoadData: ") + cudaGetErrorString(e), 0, "kernel");
  }
  if (cudaError_t e = cudaLibraryGetKernel(&kernel, library, name.c_str()); e != cudaSuccess) {
    cudaGetLastError();
    cudaLibraryUnload(library);
    return make_error(std::string("cudaLibraryGetKernel: ") + cudaGetErrorString(e), 0, "kernel");
  }
  return std::make_pair(library, kernel);
}

}  // namespace

Result<std::string> nvrtc_version() {
  const Nvrtc& n = nvrtc();
  if (!n.missing.empty()) return make_error(n.missing, 0, "nvrtc");
  int major = 0, minor = 0;
  n.version(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

Result<std::shared_ptr<const CompiledKernel>> KernelCache::get(const codegen::KernelSource& source,
                                                               int device, KernelOrigin* origin) {
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
    return make_error("cannot read the compute capability of device " + std::to_string(device), 0, "device");
  }
  const std::string arch = "sm_" + std::to_string(major * 10 + minor);
  std::lock_guard<std::mutex> lock(mutex_);
  auto key = std::make_pair(source.hash, arch);
  if (auto held = kernels_.find(key)) {
    if (origin != nullptr) *origin = KernelOrigin::kMemory;
    return held;
  }

  // Unloaded when the last holder (the cache, a run) lets go of it.
  std::shared_ptr<CompiledKernel> k(new CompiledKernel, [](CompiledKernel* p) {
    if (p->library != nullptr) cudaLibraryUnload(p->library);
    delete p;
  });
  k->name = source.name;
  k->arch = arch;
  k->hash = source.hash;
  const std::string disk_key = disk_dir_.empty() ? std::string() : compile_key(source, arch);
  const std::filesystem::path file =
      disk_key.empty() ? std::filesystem::path{} : disk_dir_ / (disk_key + "-" + arch + ".cubin");
  if (!file.empty()) {
    const auto t1 = std::chrono::steady_clock::now();
    const std::vector<char> cubin = read_disk(disk_dir_, file, disk_key, arch);
    if (!cubin.empty()) {
      if (auto loaded = load(cubin, source.name)) {
        std::tie(k->library, k->kernel) = *loaded;
        k->from_disk = true;
        k->cubin_bytes = static_cast<int64_t>(cubin.size());
        k->load_s = seconds_since(t1);
      }
    }
  }
  if (!k->from_disk) {
    const auto t0 = std::chrono::steady_clock::now();
    auto compiled = compile(source, arch, k->log);
    if (!compiled) return compiled.error();
    k->compile_s = seconds_since(t0);
    const auto t1 = std::chrono::steady_clock::now();
    auto loaded = load(*compiled, source.name);
    if (!loaded) return loaded.error();
    std::tie(k->library, k->kernel) = *loaded;
    k->load_s = seconds_since(t1);
    k->cubin_bytes = static_cast<int64_t>(compiled->size());
    if (!file.empty()) write_disk(disk_dir_, file, disk_key, arch, *compiled);
  }
  if (origin != nullptr) *origin = k->from_disk ? KernelOrigin::kDisk : KernelOrigin::kCompiled;
  const int64_t bytes = k->cubin_bytes;
  return kernels_.insert(key, std::move(k), bytes);
}

}  // namespace layoutscope::agent
