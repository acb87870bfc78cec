#include "backends/cuda/cubin_folder.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <system_error>
#include <vector>

namespace layoutscope::agent {

namespace {

struct Entry {
  std::filesystem::path path;
  int64_t bytes = 0;
  struct timespec mtime {};
};

bool older(const Entry& a, const Entry& b) {
  if (a.mtime.tv_sec != b.mtime.tv_sec) return a.mtime.tv_sec < b.mtime.tv_sec;
  if (a.mtime.tv_nsec != b.mtime.tv_nsec) return a.mtime.tv_nsec < b.mtime.tv_nsec;
  return a.path < b.path;  // a stable order for files written in the same tick
}

}  // namespace

CubinFolderTrim trim_cubin_folder(const std::filesystem::path& dir, const CubinFolderBound& bound) {
  CubinFolderTrim out;
  std::vector<Entry> entries;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::filesystem::path& p = it->path();
    if (p.extension() != ".cubin") continue;
    struct stat st {};
    // lstat: a link named *.cubin is neither counted nor deleted through.
    if (::lstat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid()) continue;
    entries.push_back({p, static_cast<int64_t>(st.st_size), st.st_mtim});
    out.bytes_kept += static_cast<int64_t>(st.st_size);
  }
  out.files_kept = static_cast<int64_t>(entries.size());
  if (out.files_kept <= bound.max_files && out.bytes_kept <= bound.max_bytes) return out;
  std::sort(entries.begin(), entries.end(), older);
  for (const Entry& e : entries) {
    if (out.files_kept <= bound.max_files && out.bytes_kept <= bound.max_bytes) break;
    if (::unlink(e.path.c_str()) != 0) continue;
    --out.files_kept;
    out.bytes_kept -= e.bytes;
    ++out.files_deleted;
    out.bytes_deleted += e.bytes;
  }
  return out;
}

void touch_cubin(const std::filesystem::path& file) {
  ::utimensat(AT_FDCWD, file.c_str(), nullptr, AT_SYMLINK_NOFOLLOW);
}

}  // namespace layoutscope::agent
