// Every security rule of the agent in one object (the local-agent lessons of Jupyter, Ollama, TensorBoard and
// Chrome). Route handlers hold business logic only; install() puts this object in the server's pre-routing
// hook, post-routing hook, error and exception handlers and knobs. What one connection may cost (bytes and
// time of the head and body) is enforced below, in connections.hpp.
//
// Order of the pre-routing checks, each answered before any handler runs and before the body is read:
//   0. No NUL byte in a header name or value (400); at most one Authorization, Origin, Content-Type,
//      Content-Length, Transfer-Encoding, Content-Encoding and Cookie field (400): every rule below reads
//      one.
//   1. Exactly one Host, one of the allowed host:port strings (403; empty or missing Host too: DNS rebinding,
//      Ollama CVE-2024-28224; two Host fields: 400, RFC 9112 section 3.2).
//   2. Origin, when present, must equal an allowed origin exactly (403; Jupyter's regex matching was
//      bypassed, so no patterns). Allowed origins get CORS headers; every response says Vary: Origin.
//   3. CORS preflight (OPTIONS) of an allowed origin -> 204, before authentication (preflights carry none).
//   4. Transfer-Encoding (chunked) -> 411: cpp-httplib 0.11.4 lets a chunked body bypass the payload limit.
//      Content-Encoding -> 415: it would decompress gzip/brotli bodies (a zip bomb). Content-Length over
//      64 KiB -> 413.
//   5. Bearer token on every /v1/ path, compared in constant time (401 + WWW-Authenticate).
//   6. A method the API has (405 + Allow), before the body's type is looked at.
//   7. POST needs Content-Type: application/json (415): a page cannot send that cross-origin without a
//      preflight, so a "simple" form post cannot start a run.
// The hook also takes Accept-Encoding out of the request, so that cpp-httplib never compresses an answer per
// request (static files come precompressed). Afterwards: the JSON body is parsed without a NUL byte (400) or
// a byte order mark, with a nesting limit (400) and without duplicate keys (422); API answers carry nosniff
// and no-store, pages (text/html) a CSP frame-ancestors of this origin and the allowed origins; an exception
// becomes a JSON 500 without internals; keep-alive is off (one request per connection); log lines escape
// control bytes.
#pragma once

#include <httplib.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "layoutscope/result.hpp"

namespace layoutscope::agent {

struct PolicyConfig {
  std::vector<std::string> allowed_hosts;    // "127.0.0.1:8765", "localhost:8765", "[::1]:8765", ...
  std::vector<std::string> allowed_origins;  // exact strings: "http://127.0.0.1:8765"
  std::string token;                         // bearer token (never logged)
  size_t max_body_bytes = 64 * 1024;
  int max_json_depth = 32;
  int read_timeout_s = 5;
};

// {"error": {"code": ..., "message": ..., "field": ...}}; field omitted when empty.
std::string error_body(std::string_view code, std::string_view message, std::string_view field = {});
void send_error(httplib::Response& res, int status, std::string_view code, std::string_view message,
                std::string_view field = {});

class RequestPolicy {
 public:
  explicit RequestPolicy(PolicyConfig config);

  void install(httplib::Server& server) const;

  // The pre-routing hook: Handled means the request was refused (or was a preflight) and answered.
  httplib::Server::HandlerResponse pre_route(const httplib::Request& req, httplib::Response& res) const;
  // Headers every response gets (nosniff, no-store, Vary: Origin, CORS for an allowed origin; frame-ancestors
  // on pages).
  void decorate(const httplib::Request& req, httplib::Response& res) const;

  // Parses a request body as JSON; nesting deeper than max_json_depth is refused before parsing, by a
  // linear scan, so no recursion ever sees a deep document.
  Result<nlohmann::json> parse_json_body(const std::string& body) const;

  // The built-in page's own CSP: inline script and style (it is one file), its API calls, no framing.
  static const char* builtin_page_csp() {
    return "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'unsafe-inline'; "
           "connect-src 'self'; img-src 'self'; base-uri 'none'; frame-ancestors 'none'";
  }

  static bool constant_time_equal(std::string_view a, std::string_view b);
  static bool requires_token(const std::string& path);

 private:
  bool origin_allowed(const std::string& origin) const;
  PolicyConfig config_;
};

// localhost, ::1, or a literal IPv4 address in 127.0.0.0/8 (not a name that merely starts with "127."). A
// --host that is not loopback needs --allow-remote (options.cpp).
bool is_loopback_host(const std::string& host);

// The Host and Origin allowlists of a listener bound to `host`:`port`: the loopback names with the port, the
// bound host itself when it is not loopback, and the user's --allowed-host (lower-cased) and --allowed-origin
// (exact).
void allow_listener(PolicyConfig& config, const std::string& host, int port,
                    const std::vector<std::string>& hosts, const std::vector<std::string>& origins);

// The HTTP status of a parse_json_body error: 400 for a body that is not JSON (field "body"), 422 for valid
// JSON the agent refuses to guess about (a duplicate key, named in field).
int body_error_status(const Error& e);

// Bytes below 0x20, 0x7f, '\\' and non-ASCII as \xNN: text from a request is safe on one log line.
std::string escape_for_log(std::string_view text);

}  // namespace layoutscope::agent
