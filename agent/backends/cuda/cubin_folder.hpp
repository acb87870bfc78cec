// The on-disk kernel cache's bound: a folder of `<sha256>-<arch>.cubin` files kept to at most `max_files`
// files and `max_bytes` bytes by deleting the least recently used ones (oldest modification time first: a
// read that hits the cache refreshes its file's time with `touch_cubin`, a write creates it new).
//
//   trim_cubin_folder("/home/u/.cache/layoutscope/kernels", {.max_files = 4096, .max_bytes = 512 << 20});
//   // 5,000 files of 40 KiB (195 MiB) -> the 904 oldest are deleted, 4,096 stay
//
// The folder is untrusted input like every file in it: only regular files named `*.cubin` that this user owns
// are counted or deleted (never followed through a link, never a folder, never a file of another user), so a
// planted name can neither make the trim delete something else nor hide from the count. CUDA-free, so its
// tests run without a GPU.
#pragma once

#include <cstdint>
#include <filesystem>

namespace layoutscope::agent {

struct CubinFolderBound {
  int64_t max_files = 4096;
  int64_t max_bytes = int64_t{512} << 20;
};

struct CubinFolderTrim {
  int64_t files_kept = 0;
  int64_t bytes_kept = 0;
  int64_t files_deleted = 0;
  int64_t bytes_deleted = 0;
};

// Deletes the least recently used cache files until the folder is within `bound`. A folder that cannot be
// listed is left as it is (a zero result): the bound is a housekeeping step, never a reason to fail a run.
CubinFolderTrim trim_cubin_folder(const std::filesystem::path& dir, const CubinFolderBound& bound);

// Marks a cache file as just used (its modification time set to now), without following a link.
void touch_cubin(const std::filesystem::path& file);

}  // namespace layoutscope::agent
