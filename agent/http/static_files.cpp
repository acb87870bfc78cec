#include "http/static_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <utility>
#include <vector>

namespace layoutscope::agent {
namespace {

constexpr off_t kMaxFileBytes = 64 << 20;

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::string content_type_of(std::string_view name) {
  const auto dot = name.rfind('.');
  const std::string_view ext = dot == std::string_view::npos ? "" : name.substr(dot + 1);
  if (ext == "html") return "text/html; charset=utf-8";
  if (ext == "js" || ext == "mjs") return "text/javascript; charset=utf-8";
  if (ext == "css") return "text/css; charset=utf-8";
  if (ext == "json" || ext == "map") return "application/json; charset=utf-8";
  if (ext == "wasm") return "application/wasm";
  if (ext == "svg") return "image/svg+xml";
  if (ext == "png") return "image/png";
  if (ext == "ico") return "image/x-icon";
  if (ext == "woff2") return "font/woff2";
  if (ext == "woff") return "font/woff";
  if (ext == "webmanifest") return "application/manifest+json";
  if (ext == "jpg" || ext == "jpeg") return "image/jpeg";
  if (ext == "gif") return "image/gif";
  if (ext == "webp") return "image/webp";
  if (ext == "xml") return "application/xml";
  if (ext == "csv") return "text/csv; charset=utf-8";
  if (ext == "txt" || ext == "md") return "text/plain; charset=utf-8";
  return "application/octet-stream";
}

// Opens `name` in `dir` without following a symbolic link; a regular file of at most kMaxFileBytes only.
std::optional<std::string> read_regular(int dir, const std::string& name) {
  Fd fd(::openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) return std::nullopt;
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > kMaxFileBytes) return std::nullopt;
  std::string body(static_cast<size_t>(st.st_size), '\0');
  size_t off = 0;
  while (off < body.size()) {
    const ssize_t n = ::read(fd.get(), body.data() + off, body.size() - off);
    if (n <= 0) return std::nullopt;
    off += static_cast<size_t>(n);
  }
  return body;
}

}  // namespace

bool accepts_encoding(std::string_view header, std::string_view coding) {
  bool star = false;
  while (!header.empty()) {
    const auto comma = header.find(',');
    std::string_view item = header.substr(0, comma);
    header = comma == std::string_view::npos ? std::string_view{} : header.substr(comma + 1);
    const auto semi = item.find(';');
    const std::string_view name = trim(item.substr(0, semi));
    bool zero = false;
    if (semi != std::string_view::npos) {
      std::string_view q = trim(item.substr(semi + 1));
      if (q.size() >= 2 && (q[0] == 'q' || q[0] == 'Q') && q[1] == '=') {
        q = trim(q.substr(2));
        zero = !q.empty() && q.find_first_not_of("0.") == std::string_view::npos;
      }
    }
    if (iequals(name, coding)) return !zero;
    if (name == "*") star = !zero;
  }
  return star;
}

bool is_content_hashed_asset(std::string_view path) {
  if (path.rfind("/assets/", 0) != 0) return false;
  const std::string_view name = path.substr(8);
  if (name.find('/') != std::string_view::npos) return false;
  const auto dot = name.find('.');
  const auto dash = name.substr(0, dot).rfind('-');
  if (dot == std::string_view::npos || dash == std::string_view::npos) return false;
  const std::string_view hash = name.substr(dash + 1, dot - dash - 1);
  return hash.size() >= 8 && std::all_of(hash.begin(), hash.end(), [](unsigned char c) {
           return std::isalnum(c) || c == '_' || c == '-';
         });
}

std::optional<StaticFile> find_static_file(const std::string& root, std::string_view path,
                                           std::string_view accept_encoding) {
  if (path.empty() || path.front() != '/') return std::nullopt;
  std::vector<std::string> parts;
  for (size_t at = 1; at <= path.size();) {
    const auto slash = std::min(path.find('/', at), path.size());
    std::string part(path.substr(at, slash - at));
    at = slash + 1;
    if (part.empty()) continue;
    // Dotfiles, "." and ".." alike: nothing whose name starts with a dot is served.
    if (part.front() == '.' || part.find('\0') != std::string::npos) return std::nullopt;
    parts.push_back(std::move(part));
  }
  if (parts.empty() || path.back() == '/') parts.push_back("index.html");

  auto dir = std::make_unique<Fd>(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir->get() < 0) return std::nullopt;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    auto next = std::make_unique<Fd>(
        ::openat(dir->get(), parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (next->get() < 0) return std::nullopt;
    dir = std::move(next);
  }
  const std::string& name = parts.back();
  StaticFile file;
  file.content_type = content_type_of(name);
  file.cache_control = is_content_hashed_asset(path) ? "public, max-age=31536000, immutable" : "no-cache";
  // A variant is used only when the plain file exists too, so that every URL means one file.
  struct stat st {};
  if (::fstatat(dir->get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
    return std::nullopt;
  for (const auto& [coding, suffix] : {std::pair{"br", ".br"}, std::pair{"gzip", ".gz"}}) {
    if (!accepts_encoding(accept_encoding, coding)) continue;
    if (auto packed = read_regular(dir->get(), name + suffix)) {
      file.body = std::move(*packed);
      file.content_encoding = coding;
      return file;
    }
  }
  auto plain = read_regular(dir->get(), name);
  if (!plain) return std::nullopt;
  file.body = std::move(*plain);
  return file;
}

}  // namespace layoutscope::agent
