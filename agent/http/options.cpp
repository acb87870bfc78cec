#include "http/options.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "http/policy.hpp"

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
  --threads N            most connections served at once, one thread each (default 256, 8..4096); later
                         connections wait for a thread
  --read-timeout S       seconds a connection may stay silent while sending a request (default 5, 1..60)
  --request-deadline S   seconds from a connection's start to the end of its request (default 10, 1..600)
  --max-streams N        progress streams (/events) open at once (default 128, 1..1024); more get 503
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

// CLI11 reads integers with strtoll base 0 ("0x10", "010"): only plain decimal digits are accepted here.
const CLI::Validator kDecimal(
    [](std::string& text) -> std::string {
      if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos)
        return "expects a decimal integer, got '" + text + "'";
      return {};
    },
    "DECIMAL");

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
  CLI::App app("layoutscope-agent");
  app.set_help_flag();  // --help prints kUsage (main.cpp)
  app.allow_extras(false);
  app.add_flag("--help,-h", o.help);
  app.add_flag("--version", o.version);
  app.add_flag("--test-endpoints", o.test_endpoints);
  app.add_flag("--allow-remote", o.allow_remote);
  app.add_option("--host", o.host);
  app.add_option("--port", o.port)->check(kDecimal)->check(CLI::Range(0, 65535));
  app.add_option("--allowed-origin", o.allowed_origins);
  app.add_option("--allowed-host", o.allowed_hosts);
  app.add_option("--token-file", o.token_file);
  app.add_option("--backend", o.backend)->check(CLI::IsMember({"auto", "cuda", "cpu"}));
  app.add_option("--device", o.device)->check(kDecimal)->check(CLI::Range(0, 1023));
  app.add_option("--results-dir", o.results_dir);
  std::string web_dir, run_request, profile_child;  // std::optional is not a CLI11 2.1 option type
  app.add_option("--web", web_dir);
  app.add_option("--threads", o.threads)->check(kDecimal)->check(CLI::Range(8, 4096));
  app.add_option("--read-timeout", o.read_timeout_s)->check(kDecimal)->check(CLI::Range(1, 60));
  app.add_option("--request-deadline", o.request_deadline_s)->check(kDecimal)->check(CLI::Range(1, 600));
  app.add_option("--max-streams", o.max_streams)->check(kDecimal)->check(CLI::Range(1, 1024));
  app.add_option("--run", run_request);
  app.add_option("--profile-child", profile_child);
  // One value per occurrence (--allowed-host a --allowed-host b), so that a stray word after the option is an
  // error rather than a second value.
  for (const char* repeatable : {"--allowed-origin", "--allowed-host"})
    app.get_option(repeatable)->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 consumes from the back
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    std::string message = e.what();
    if (message.empty()) message = e.get_name();
    return make_error(message + " (see --help)", 0, "");
  }
  if (app.count("--web")) o.web_dir = web_dir;
  if (app.count("--run")) o.run_request = run_request;
  if (app.count("--profile-child")) o.profile_child = profile_child;
  for (const auto& origin : o.allowed_origins)
    if (!valid_origin(origin))
      return make_error(
          "--allowed-origin expects an exact origin such as https://example.org:8443 (scheme, host, optional "
          "port; no path, no wildcard), got '" +
              origin + "'",
          0, "--allowed-origin");
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
