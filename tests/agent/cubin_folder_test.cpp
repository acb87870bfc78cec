// The on-disk kernel cache's bound (agent/backends/cuda/cubin_folder.hpp): a folder of cache files trimmed to
// at most N files and B bytes, least recently used first, without following or deleting anything that is not
// one of this user's regular `*.cubin` files. Each case builds its folder with known sizes and times, so the
// survivors are worked out from the sizes and the bound alone.
#include "backends/cuda/cubin_folder.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace layoutscope::agent {
namespace {

namespace fs = std::filesystem;

struct Folder {
  fs::path dir;
  Folder() {
    char tmpl[] = "/tmp/cubin-folder-XXXXXX";
    dir = ::mkdtemp(tmpl);
  }
  ~Folder() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  // A file of `bytes` bytes whose modification time is `second` seconds after the epoch.
  fs::path file(const std::string& name, size_t bytes, long second) const {
    const fs::path p = dir / name;
    std::ofstream(p, std::ios::binary) << std::string(bytes, 'x');
    struct timespec t[2] = {{second, 0}, {second, 0}};
    ::utimensat(AT_FDCWD, p.c_str(), t, 0);
    return p;
  }
};

TEST(CubinFolder, WithinTheBoundNothingIsDeleted) {
  Folder f;
  f.file("a.cubin", 100, 1000);
  f.file("b.cubin", 100, 2000);
  const CubinFolderTrim t = trim_cubin_folder(f.dir, {.max_files = 2, .max_bytes = 200});
  EXPECT_EQ(t.files_deleted, 0);
  EXPECT_EQ(t.files_kept, 2);
  EXPECT_EQ(t.bytes_kept, 200);
  EXPECT_TRUE(fs::exists(f.dir / "a.cubin"));
}

TEST(CubinFolder, OverTheFileCountTheOldestGo) {
  Folder f;
  for (int i = 0; i < 6; ++i) f.file("k" + std::to_string(i) + ".cubin", 10, 1000 + 10 * i);
  const CubinFolderTrim t = trim_cubin_folder(f.dir, {.max_files = 4, .max_bytes = 1 << 20});
  EXPECT_EQ(t.files_deleted, 2);
  EXPECT_EQ(t.bytes_deleted, 20);
  EXPECT_EQ(t.files_kept, 4);
  EXPECT_FALSE(fs::exists(f.dir / "k0.cubin"));
  EXPECT_FALSE(fs::exists(f.dir / "k1.cubin"));
  for (int i = 2; i < 6; ++i) EXPECT_TRUE(fs::exists(f.dir / ("k" + std::to_string(i) + ".cubin"))) << i;
}

TEST(CubinFolder, OverTheByteBoundTheOldestGoUntilItFits) {
  Folder f;
  // 5 x 100 B = 500 B against 250 B: dropping the three oldest leaves 200 B, the first total within the
  // bound.
  for (int i = 0; i < 5; ++i) f.file("k" + std::to_string(i) + ".cubin", 100, 5000 - 100 * i);
  const CubinFolderTrim t = trim_cubin_folder(f.dir, {.max_files = 100, .max_bytes = 250});
  EXPECT_EQ(t.files_deleted, 3);
  EXPECT_EQ(t.bytes_kept, 200);
  // k4 is the oldest (4600 s), then k3, k2; k0 and k1 are the newest.
  EXPECT_TRUE(fs::exists(f.dir / "k0.cubin"));
  EXPECT_TRUE(fs::exists(f.dir / "k1.cubin"));
  EXPECT_FALSE(fs::exists(f.dir / "k2.cubin"));
}

TEST(CubinFolder, AFileTouchedOnUseIsKeptOverNewerOnes) {
  Folder f;
  const fs::path old = f.file("old.cubin", 10, 1000);
  f.file("mid.cubin", 10, 2000);
  f.file("new.cubin", 10, 3000);
  touch_cubin(old);  // now: a read that hit the cache
  trim_cubin_folder(f.dir, {.max_files = 2, .max_bytes = 1 << 20});
  EXPECT_TRUE(fs::exists(old));
  EXPECT_FALSE(fs::exists(f.dir / "mid.cubin"));
  EXPECT_TRUE(fs::exists(f.dir / "new.cubin"));
}

TEST(CubinFolder, LinksFoldersAndOtherNamesAreNeitherCountedNorDeleted) {
  Folder f;
  Folder outside;
  const fs::path target = outside.file("precious.cubin", 1000, 10);
  fs::create_symlink(target, f.dir / "link.cubin");
  fs::create_directory(f.dir / "folder.cubin");
  f.file("notes.txt", 1000, 10);
  f.file("a.cubin", 100, 1000);
  f.file("b.cubin", 100, 2000);
  const CubinFolderTrim t = trim_cubin_folder(f.dir, {.max_files = 1, .max_bytes = 1 << 20});
  EXPECT_EQ(t.files_deleted, 1);  // a.cubin only: the link, the folder and notes.txt are not cache files
  EXPECT_EQ(t.files_kept, 1);
  EXPECT_EQ(t.bytes_kept, 100);
  EXPECT_TRUE(fs::exists(target));
  EXPECT_TRUE(fs::is_symlink(f.dir / "link.cubin"));
  EXPECT_TRUE(fs::is_directory(f.dir / "folder.cubin"));
  EXPECT_TRUE(fs::exists(f.dir / "notes.txt"));
  EXPECT_FALSE(fs::exists(f.dir / "a.cubin"));
}

TEST(CubinFolder, AFolderThatCannotBeListedIsLeftAlone) {
  const CubinFolderTrim t = trim_cubin_folder("/nonexistent/layoutscope-kernels", {});
  EXPECT_EQ(t.files_kept, 0);
  EXPECT_EQ(t.files_deleted, 0);
}

}  // namespace
}  // namespace layoutscope::agent
