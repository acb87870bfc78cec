#include "http/policy.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>

#include "bench/request/json_depth.hpp"
#include "http/connections.hpp"

namespace layoutscope::agent {
namespace {

using nlohmann::json;

void put_header(httplib::Response& res, const std::string& key, const std::string& value) {
  res.headers.erase(key);  // Response::set_header appends (a multimap): replace instead
  res.headers.emplace(key, value);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

// frame-ancestors for the pages: this agent's own origin and the exact allowed origins (a CSP source cannot
// be an IPv6 literal, so "http://[::1]:port" is covered by 'self' alone).
std::string frame_ancestors(const std::vector<std::string>& origins) {
  std::string policy = "frame-ancestors 'self'";
  for (const auto& o : origins)
    if (o.find('[') == std::string::npos && o.find_first_of(" ;,'\"") == std::string::npos) policy += " " + o;
  return policy;
}

}  // namespace

std::string error_body(std::string_view code, std::string_view message, std::string_view field) {
  json e = {{"code", code}, {"message", message}};
  if (!field.empty()) e["field"] = field;
  return json{{"error", e}}.dump(-1, ' ', false, json::error_handler_t::replace);
}

void send_error(httplib::Response& res, int status, std::string_view code, std::string_view message,
                std::string_view field) {
  res.status = status;
  res.set_content(error_body(code, message, field), "application/json");
}

RequestPolicy::RequestPolicy(PolicyConfig config) : config_(std::move(config)) {}

bool RequestPolicy::constant_time_equal(std::string_view a, std::string_view b) {
  // Time depends only on the length of the presented value a, never on where the first difference is.
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i)
    diff |= static_cast<unsigned char>(a[i] ^ (b.empty() ? 0 : b[i % b.size()]));
  return diff == 0;
}

bool RequestPolicy::requires_token(const std::string& path) {
  return path == "/v1" || path.rfind("/v1/", 0) == 0;
}

bool RequestPolicy::origin_allowed(const std::string& origin) const {
  return std::find(config_.allowed_origins.begin(), config_.allowed_origins.end(), origin) !=
         config_.allowed_origins.end();
}

httplib::Server::HandlerResponse RequestPolicy::pre_route(const httplib::Request& req,
                                                          httplib::Response& res) const {
  using HR = httplib::Server::HandlerResponse;
  auto refuse = [&](int status, std::string_view code, std::string_view message) {
    send_error(res, status, code, message);
    decorate(req, res);
    return HR::Handled;
  };
  // cpp-httplib would compress a response itself when the client accepts it (brotli, per request, on every
  // JSON answer); the static files come precompressed instead, so the header is taken out of the request.
  // The request object is the server's own (non-const) local, handed to this hook by const reference.
  auto& headers = const_cast<httplib::Headers&>(req.headers);
  set_request_accept_encoding(req.get_header_value("Accept-Encoding"));
  headers.erase("Accept-Encoding");
  // 0. No NUL byte in any header value: code that reads a value as a C string would see only its start
  // ("Bearer TOKEN\0xyz", "Host: 127.0.0.1:PORT\0evil"), so a value with one is never looked at.
  for (const auto& [name, value] : req.headers)
    if (value.find('\0') != std::string::npos || name.find('\0') != std::string::npos)
      return refuse(400, "nul_in_header", "the header " + escape_for_log(name) + " holds a NUL byte");
  // 1. Host: exactly one (RFC 9112 section 3.2: several Host fields are a 400)
  if (req.get_header_value_count("Host") > 1)
    return refuse(400, "duplicate_host", "the request has more than one Host header");
  // The other fields a rule below reads: one of each, or which one a rule saw would be a guess.
  for (const char* name : {"Authorization", "Origin", "Content-Type", "Content-Length", "Transfer-Encoding",
                           "Content-Encoding", "Access-Control-Request-Private-Network", "Cookie"})
    if (req.get_header_value_count(name) > 1)
      return refuse(400, "duplicate_header",
                    std::string("the request has more than one ") + name + " header");
  const std::string host = req.get_header_value("Host");
  if (host.empty()) return refuse(403, "host_not_allowed", "the Host header is missing or empty");
  if (std::find(config_.allowed_hosts.begin(), config_.allowed_hosts.end(), lower(host)) ==
      config_.allowed_hosts.end())
    return refuse(403, "host_not_allowed", "Host is not one of the names this agent answers to");
  // 2. Origin (exact string)
  if (req.has_header("Origin") && !origin_allowed(req.get_header_value("Origin")))
    return refuse(403, "origin_not_allowed", "Origin is not in the allowlist (--allowed-origin)");
  // 3. Preflight
  if (req.method == "OPTIONS") {
    if (!req.has_header("Origin")) return refuse(403, "origin_not_allowed", "preflight without Origin");
    res.status = 204;
    decorate(req, res);
    put_header(res, "Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS");
    put_header(res, "Access-Control-Allow-Headers", "Authorization, Content-Type");
    put_header(res, "Access-Control-Max-Age", "600");
    // Chrome's Private Network Access preflight for a public page calling loopback.
    if (lower(req.get_header_value("Access-Control-Request-Private-Network")) == "true")
      put_header(res, "Access-Control-Allow-Private-Network", "true");
    return HR::Handled;
  }
  // 4. Body framing
  if (req.has_header("Transfer-Encoding"))
    return refuse(411, "length_required", "Transfer-Encoding is not accepted; send Content-Length");
  if (req.has_header("Content-Encoding"))
    return refuse(415, "unsupported_content_encoding", "Content-Encoding is not accepted; send plain JSON");
  if (req.has_header("Content-Length")) {
    const std::string cl = trim(req.get_header_value("Content-Length"));
    if (cl.empty() || cl.size() > 18 || cl.find_first_not_of("0123456789") != std::string::npos)
      return refuse(400, "bad_content_length", "Content-Length is not a number");
    if (std::stoull(cl) > config_.max_body_bytes)
      return refuse(413, "payload_too_large",
                    "the body is larger than " + std::to_string(config_.max_body_bytes) + " bytes");
  }
  // 5. Token
  if (requires_token(req.path)) {
    const std::string auth = req.get_header_value("Authorization");
    const std::string scheme = "Bearer ";
    const bool ok = auth.size() > scheme.size() && lower(auth.substr(0, scheme.size())) == "bearer " &&
                    constant_time_equal(auth.substr(scheme.size()), config_.token);
    if (!ok) {
      put_header(res, "WWW-Authenticate", "Bearer realm=\"layoutscope-agent\"");
      return refuse(401, "unauthorized",
                    "missing or wrong bearer token (it is in the URL the agent printed)");
    }
  }
  // 6. Methods the API has, before the body's type is looked at (405 before 415)
  if (req.method != "GET" && req.method != "HEAD" && req.method != "POST" && req.method != "DELETE") {
    put_header(res, "Allow", "GET, HEAD, POST, DELETE, OPTIONS");
    return refuse(405, "method_not_allowed", "method " + req.method + " is not allowed");
  }
  // 7. Content type of bodies
  if (req.method == "POST" || req.method == "PUT" || req.method == "PATCH") {
    std::string type = lower(req.get_header_value("Content-Type"));
    type = trim(type.substr(0, type.find(';')));
    if (type != "application/json")
      return refuse(415, "unsupported_media_type", "POST bodies must be Content-Type: application/json");
  }
  return HR::Unhandled;
}

void RequestPolicy::decorate(const httplib::Request& req, httplib::Response& res) const {
  // A page (text/html: the built page served with --web) may be framed only by this agent's origin and the
  // allowed origins (clickjacking). The pages' own CSP is a <meta> tag, where frame-ancestors is ignored, so
  // this part goes in a header; a handler that sets its own CSP (the built-in page) keeps it.
  if (lower(res.get_header_value("Content-Type")).rfind("text/html", 0) == 0 &&
      !res.has_header("Content-Security-Policy"))
    put_header(res, "Content-Security-Policy", frame_ancestors(config_.allowed_origins));
  put_header(res, "X-Content-Type-Options", "nosniff");
  // API answers are never cached; a handler that chose its own policy (static files) keeps it.
  if (!res.has_header("Cache-Control")) put_header(res, "Cache-Control", "no-store");
  const std::string vary = res.get_header_value("Vary");
  if (vary.find("Origin") == std::string::npos)
    put_header(res, "Vary", vary.empty() ? "Origin" : vary + ", Origin");
  put_header(res, "Referrer-Policy", "no-referrer");
  if (req.has_header("Origin") && origin_allowed(req.get_header_value("Origin"))) {
    put_header(res, "Access-Control-Allow-Origin", req.get_header_value("Origin"));
    put_header(res, "Access-Control-Expose-Headers", "Location, Retry-After");
  }
}

Result<json> RequestPolicy::parse_json_body(const std::string& body) const {
  if (body.size() > config_.max_body_bytes) return make_error("the body is too large", 0, "body");
  // RFC 8259 section 8.1: a sender must not add a byte order mark; nlohmann would skip it silently.
  // A NUL ends a C string: the parser would read the JSON before it and ignore the rest ("{...}\0garbage").
  if (const size_t nul = body.find('\0'); nul != std::string::npos)
    return make_error("the body holds a NUL byte at offset " + std::to_string(nul), static_cast<int>(nul) + 1,
                      "body");
  if (body.rfind("\xEF\xBB\xBF", 0) == 0)
    return make_error("the body starts with a UTF-8 byte order mark; send plain UTF-8 JSON", 1, "body");
  if (json_nesting_depth(body) > config_.max_json_depth)
    return make_error("JSON nested deeper than " + std::to_string(config_.max_json_depth) + " levels", 0,
                      "body");
  // Duplicate keys: the parser would keep the last one; which one a client meant is unknowable.
  std::vector<std::set<std::string>> keys;  // one set per open object or array
  std::optional<std::string> duplicate;
  auto callback = [&](int, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        keys.emplace_back();
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        if (!keys.empty()) keys.pop_back();
        break;
      case json::parse_event_t::key:
        if (!keys.empty() && !keys.back().insert(parsed.get<std::string>()).second && !duplicate)
          duplicate = parsed.get<std::string>();
        break;
      default:
        break;
    }
    return true;
  };
  json parsed = json::parse(body, callback, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return make_error("the body is not valid JSON", 0, "body");
  if (duplicate) return make_error("the key '" + *duplicate + "' appears twice in one object", 0, *duplicate);
  return parsed;
}

int body_error_status(const Error& e) { return e.field == "body" ? 400 : 422; }

std::string escape_for_log(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7f || c == '\\' || c >= 0x80) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

void RequestPolicy::install(httplib::Server& server) const {
  server.set_pre_routing_handler(
      [this](const httplib::Request& req, httplib::Response& res) { return pre_route(req, res); });
  server.set_post_routing_handler(
      [this](const httplib::Request& req, httplib::Response& res) { decorate(req, res); });
  // A status >= 400 with no body (unknown path, httplib's own 413/414/400): answer in the API's shape.
  server.set_error_handler(
      httplib::Server::HandlerWithResponse([this](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        const char* code = res.status == 404   ? "not_found"
                           : res.status == 413 ? "payload_too_large"
                           : res.status == 405 ? "method_not_allowed"
                                               : "bad_request";
        const char* message = res.status == 404   ? "no such endpoint or file"
                              : res.status == 413 ? "the body is too large"
                              : res.status == 405 ? "method not allowed"
                                                  : "the request could not be read";
        send_error(res, res.status, code, message);
        decorate(req, res);
        return httplib::Server::HandlerResponse::Handled;
      }));
  // cpp-httplib 0.11.4 would put what() in an EXCEPTION_WHAT header; log it here (no headers, no token)
  // and answer without internals.
  server.set_exception_handler(
      [this](const httplib::Request& req, httplib::Response& res, std::exception_ptr ep) {
        std::string what = "unknown exception";
        try {
          if (ep) std::rethrow_exception(ep);
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        std::fprintf(stderr, "layoutscope-agent: handler for %s %s threw: %s\n", req.method.c_str(),
                     escape_for_log(req.path).c_str(), escape_for_log(what).c_str());
        res.headers.clear();
        send_error(res, 500, "internal", "internal error");
        decorate(req, res);
      });
  server.set_keep_alive_max_count(1);
  server.set_payload_max_length(config_.max_body_bytes);
  server.set_read_timeout(config_.read_timeout_s, 0);
  server.set_write_timeout(config_.read_timeout_s, 0);
  server.set_logger([](const httplib::Request& req, const httplib::Response& res) {
    // Method, path and status only: never headers (the token) or bodies. The path is URL-decoded by then, so
    // its control bytes are escaped: no forged log lines, no terminal escape sequences.
    std::fprintf(stderr, "%s %s %d\n", req.method.c_str(), escape_for_log(req.path).c_str(), res.status);
  });
}

bool is_loopback_host(const std::string& host) {
  if (host == "localhost" || host == "::1") return true;
  in_addr v4{};
  return ::inet_pton(AF_INET, host.c_str(), &v4) == 1 && (ntohl(v4.s_addr) >> 24) == 127;
}

void allow_listener(PolicyConfig& config, const std::string& host, int port,
                    const std::vector<std::string>& hosts, const std::vector<std::string>& origins) {
  const std::string p = std::to_string(port);
  config.allowed_hosts = {"127.0.0.1:" + p, "localhost:" + p, "[::1]:" + p};
  // The bound address itself (the printed URL names it), unless it is a wildcard; an IPv6 literal in
  // brackets.
  if (host != "0.0.0.0" && host != "::" && host != "127.0.0.1" && host != "localhost" && host != "::1")
    config.allowed_hosts.push_back(lower(host.find(':') != std::string::npos ? "[" + host + "]" : host) +
                                   ":" + p);
  for (auto h : hosts) {
    for (auto& c : h) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    config.allowed_hosts.push_back(h);
  }
  config.allowed_origins = {"http://127.0.0.1:" + p, "http://localhost:" + p};
  if (host != "0.0.0.0" && host != "::" && host != "127.0.0.1" && host != "localhost" && host != "::1" &&
      host.find(':') == std::string::npos)
    config.allowed_origins.push_back("http://" + lower(host) + ":" + p);
  for (const auto& o : origins) config.allowed_origins.push_back(o);
}

}  // namespace layoutscope::agent
