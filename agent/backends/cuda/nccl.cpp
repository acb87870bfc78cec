#include "backends/cuda/nccl.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

namespace layoutscope::agent {

std::string keep_nvls_off() {
  const char* v = std::getenv("NCCL_NVLS_ENABLE");
  if (v == nullptr) {
    setenv("NCCL_NVLS_ENABLE", "0", 0);
    return {};
  }
  if (std::strcmp(v, "0") == 0) return {};
  const std::string note =
      std::string("NCCL_NVLS_ENABLE was \"") + v + "\"; set to \"0\" (NVLink multicast stays off)";
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  return note;
}

Result<const nccl::Library*> load_nccl() {
  static const Result<const nccl::Library*> loaded = []() -> Result<const nccl::Library*> {
    keep_nvls_off();
    static nccl::Library lib;
    std::vector<std::string> names;
    if (const char* p = std::getenv("LAYOUTSCOPE_NCCL_LIBRARY"); p != nullptr && *p != '\0')
      names.push_back(p);
    names.push_back("libnccl.so.2");
    names.push_back("libnccl.so");
    void* h = nullptr;
    std::string tried;
    for (const auto& n : names) {
      if ((h = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL)) != nullptr) {
        lib.path = n;
        break;
      }
      const char* why = dlerror();
      tried += (tried.empty() ? "" : "; ") + n + (why ? std::string(" (") + why + ")" : std::string());
    }
    if (h == nullptr)
      return make_error("NCCL is not installed on this machine (tried " + tried +
                            "); install libnccl2 or point LAYOUTSCOPE_NCCL_LIBRARY at libnccl.so.2",
                        0, "nccl");
    std::string missing;
    auto sym = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, name));
      if (fn == nullptr && missing.empty()) missing = name;
    };
    sym(lib.get_version, "ncclGetVersion");
    sym(lib.comm_init_all, "ncclCommInitAll");
    sym(lib.comm_destroy, "ncclCommDestroy");
    sym(lib.group_start, "ncclGroupStart");
    sym(lib.group_end, "ncclGroupEnd");
    sym(lib.all_gather, "ncclAllGather");
    sym(lib.reduce_scatter, "ncclReduceScatter");
    sym(lib.all_reduce, "ncclAllReduce");
    sym(lib.broadcast, "ncclBroadcast");
    sym(lib.send, "ncclSend");
    sym(lib.recv, "ncclRecv");
    sym(lib.error_string, "ncclGetErrorString");
    if (!missing.empty())
      return make_error(lib.path + " lacks " + missing + " (NCCL 2.7 or later is needed)", 0, "nccl");
    if (int rc = lib.get_version(&lib.version); rc != 0)
      return make_error(lib.path + ": ncclGetVersion failed (" + std::to_string(rc) + ")", 0, "nccl");
    return &lib;
  }();
  return loaded;
}

Result<std::string> nccl_version() {
  auto lib = load_nccl();
  if (!lib) return lib.error();
  const int v = (*lib)->version;
  // NCCL_VERSION(X,Y,Z): X*10000 + Y*100 + Z from 2.9 on, X*1000 + Y*100 + Z before.
  const int major = v >= 10000 ? v / 10000 : v / 1000;
  const int minor = v >= 10000 ? v / 100 % 100 : v / 100 % 10;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(v % 100);
}

std::string nccl_error(const char* call, int rc) {
  auto lib = load_nccl();
  const char* text = lib && (*lib)->error_string ? (*lib)->error_string(rc) : "unknown";
  return std::string(call) + " failed: " + text + " (" + std::to_string(rc) +
         "); NCCL_DEBUG=WARN prints NCCL's own reason";
}

}  // namespace layoutscope::agent
