#include "options.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "policy.hpp"

namespace layoutscope::agent {

const char* const kUsage =
    R"(layoutscope-agent: runs the layoutscope benchmarks (B-09 AoS/SoA sweep, transpose) on this machine's
GPU, or on its CPU, behind a local HTTP/JSON API, and serves the layoutscope page.

usage: layoutscope-agent [options]

  --host ADDR            address to bind (default 127.0.0.1); a non-loopback address needs --allow-remote
  --port N               TCP port (default 8765; 0 picks a free port, the printed URL names it)
  --allow-remote         allow binding a non-loopback address (then also give --allowed-host)
  --allowed-origin URL   an exact origin (scheme://host[:port]) whose pages may call the API; repeatable.
                         http://127.0.0.1:PORT and http://localhost:PORT are always allowed
  --allowed-host NAME    an extra accepted Host header value (name:port); repeatable. 127.0.0.1:PORT,
                         localhost:PORT and [::1]:PORT are always accepted
  --token-file PATH      bearer token file (default .layoutscope/token); created with mode 0600 when
                         missing, refused when group or others can read it
  --backend KIND         auto | cuda | cpu (default auto: cuda when a CUDA device works, else cpu)
  --device N             device used when a run request names none (default 0)
  --results-dir DIR      where finished runs are stored as JSON (default .layoutscope/results)
  --web DIR              serve the built page from DIR (default: a built-in page that lists the API)
  --threads N            HTTP worker threads (default 8, 2..64)
  --read-timeout S       seconds a connection may stay silent while sending a request (default 5, 1..60)
  --test-endpoints       add GET /v1/_test/throw, whose handler throws (tests of the exception handler)
  --run JSON             run one request body ({"benchmark": ..., "params": ...}) in this process, without
                         HTTP, print the result JSON on stdout and exit (overhead comparison, scripts)
  --profile-child JSON   internal: run each state of a request once (no timing, no verification); the
                         agent starts itself this way under Nsight Compute for "profile": true
  --version              print the version and exit
  --help                 print this text and exit

On start the agent prints one URL; open it: the page takes the token from the URL fragment (#token=...),
which the browser never sends to a server. API: GET /openapi.json.
)";

namespace {

Result<int> int_arg(const std::string& flag, const std::string& text, int lo, int hi) {
  try {
    size_t used = 0;
    const long v = std::stol(text, &used);
    if (used != text.size() || v < lo || v > hi) throw std::out_of_range(flag);
    return static_cast<int>(v);
  } catch (const std::exception&) {
    return make_error(flag + " expects an integer between " + std::to_string(lo) + " and " +
                          std::to_string(hi) + ", got '" + text + "'",
                      0, flag);
  }
}

bool valid_origin(const std::string& o) {
  const auto scheme = o.find("://");
  if (scheme == std::string::npos || (o.substr(0, scheme) != "http" && o.substr(0, scheme) != "https"))
    return false;
  const std::string rest = o.substr(scheme + 3);
  return !rest.empty() && rest.find('/') == std::string::npos && rest.find('*') == std::string::npos;
}

}  // namespace

Result<Options> parse_options(const std::vector<std::string>& args) {
  Options o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> Result<std::string> {
      if (i + 1 >= args.size()) return make_error(a + " needs a value", 0, a);
      return args[++i];
    };
    if (a == "--help" || a == "-h") {
      o.help = true;
    } else if (a == "--version") {
      o.version = true;
    } else if (a == "--test-endpoints") {
      o.test_endpoints = true;
    } else if (a == "--allow-remote") {
      o.allow_remote = true;
    } else if (a == "--host" || a == "--port" || a == "--allowed-origin" || a == "--allowed-host" ||
               a == "--token-file" || a == "--backend" || a == "--device" || a == "--results-dir" ||
               a == "--web" || a == "--threads" || a == "--read-timeout" || a == "--run" ||
               a == "--profile-child") {
      auto v = value();
      if (!v) return v.error();
      if (a == "--host") o.host = *v;
      if (a == "--token-file") o.token_file = *v;
      if (a == "--results-dir") o.results_dir = *v;
      if (a == "--web") o.web_dir = *v;
      if (a == "--run") o.run_request = *v;
      if (a == "--profile-child") o.profile_child = *v;
      if (a == "--allowed-host") o.allowed_hosts.push_back(*v);
      if (a == "--allowed-origin") {
        if (!valid_origin(*v))
          return make_error(
              "--allowed-origin expects an exact origin such as https://example.org:8443 (scheme, "
              "host, optional port; no path, no wildcard), got '" +
                  *v + "'",
              0, a);
        o.allowed_origins.push_back(*v);
      }
      if (a == "--backend") {
        if (*v != "auto" && *v != "cuda" && *v != "cpu")
          return make_error("--backend expects auto, cuda or cpu, got '" + *v + "'", 0, a);
        o.backend = *v;
      }
      if (a == "--port" || a == "--device" || a == "--threads" || a == "--read-timeout") {
        const int lo = a == "--threads" ? 2 : a == "--read-timeout" ? 1 : 0;
        const int hi = a == "--port" ? 65535 : a == "--device" ? 1023 : a == "--threads" ? 64 : 60;
        auto n = int_arg(a, *v, lo, hi);
        if (!n) return n.error();
        if (a == "--port") o.port = *n;
        if (a == "--device") o.device = *n;
        if (a == "--threads") o.threads = *n;
        if (a == "--read-timeout") o.read_timeout_s = *n;
      }
    } else {
      return make_error("unknown option '" + a + "' (see --help)", 0, a);
    }
  }
  if (!o.allow_remote && !is_loopback_host(o.host))
    return make_error("--host " + o.host + " is not a loopback address; pass --allow-remote to bind it", 0,
                      "--host");
  return o;
}

Result<std::string> load_or_create_token(const std::string& path) {
  namespace fs = std::filesystem;
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode))
      return make_error("token file " + path + " is not a regular file", 0, "--token-file");
    if (st.st_mode & 077) {
      char mode[8];
      std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
      return make_error("token file " + path + " has mode " + mode +
                            "; it must be readable by its owner only (chmod 600 " + path + ")",
                        0, "--token-file");
    }
    std::ifstream in(path);
    std::string token;
    std::getline(in, token);
    while (!token.empty() && (token.back() == '\r' || token.back() == ' ')) token.pop_back();
    if (token.size() < 32 || token.find_first_not_of("0123456789abcdefABCDEF-_") != std::string::npos)
      return make_error(
          "token file " + path + " does not hold a token of at least 32 characters [0-9a-zA-Z_-]", 0,
          "--token-file");
    return token;
  }
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    if (!fs::exists(parent)) {
      fs::create_directories(parent, ec);
      if (!ec) fs::permissions(parent, fs::perms::owner_all, ec);
    }
  }
  unsigned char raw[32];
  std::ifstream urandom("/dev/urandom", std::ios::binary);
  if (!urandom.read(reinterpret_cast<char*>(raw), sizeof raw))
    return make_error("cannot read /dev/urandom to make a token", 0, "--token-file");
  std::string token;
  for (unsigned char c : raw) {
    char hex[3];
    std::snprintf(hex, sizeof hex, "%02x", c);
    token += hex;
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return make_error("cannot create token file " + path, 0, "--token-file");
  const std::string line = token + "\n";
  const bool ok = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  ::fchmod(fd, 0600);  // whatever the umask
  ::close(fd);
  if (!ok) return make_error("cannot write token file " + path, 0, "--token-file");
  return token;
}

}  // namespace layoutscope::agent
