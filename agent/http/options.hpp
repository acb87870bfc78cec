// Command line of layoutscope-agent (--help prints the same text as kUsage).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "layoutscope/result.hpp"

namespace layoutscope::agent {

struct Options {
  std::string host = "127.0.0.1";
  int port = 8765;  // 0: any free port (the printed URL says which)
  bool allow_remote = false;
  std::vector<std::string> allowed_origins;  // added to http://127.0.0.1:PORT and http://localhost:PORT
  std::vector<std::string> allowed_hosts;    // added to 127.0.0.1:PORT, localhost:PORT, [::1]:PORT
  std::string token_file = ".layoutscope/token";
  std::string backend = "auto";  // auto | cuda | cpu
  int device = 0;                // device used when a request names none
  std::string results_dir = ".layoutscope/results";
  std::optional<std::string> web_dir;
  int threads = 256;  // connection threads at most (connections.hpp)
  int read_timeout_s = 5;
  int request_deadline_s = 10;  // head and body must arrive within this time of the connection's start
  int max_streams = 128;        // open /events streams at most
  bool test_endpoints = false;  // GET /v1/_test/throw (tests of the exception handler)
  std::optional<std::string> run_request;    // --run JSON: in-process run, result JSON on stdout
  std::optional<std::string> profile_child;  // --profile-child JSON: one launch per state (under ncu)
  bool help = false;
  bool version = false;
};

extern const char* const kUsage;

Result<Options> parse_options(const std::vector<std::string>& args);

// Reads the token file, or creates it (mode 0600, 256 random bits as 64 hex digits) when it does not
// exist. Refuses a file that group or others can read or write.
Result<std::string> load_or_create_token(const std::string& path);

}  // namespace layoutscope::agent
