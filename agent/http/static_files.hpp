// The built page's files, served from --web DIR as the build wrote them.
//
//   GET /assets/index-3f2a9c1d.js, Accept-Encoding: br, gzip
//     -> DIR/assets/index-3f2a9c1d.js.br, Content-Encoding: br, Vary: Accept-Encoding,
//        Cache-Control: public, max-age=31536000, immutable
//   GET /            -> DIR/index.html (or .br/.gz), Cache-Control: no-cache
//   GET /.env, GET /link-to-etc -> 404 (dotfiles and symbolic links are never served)
//
// The page's build writes x.br and x.gz beside each file; one of them is sent as-is when the request accepts
// it, nothing is compressed per request. Every path component is opened with O_NOFOLLOW below the folder's
// descriptor, so no symbolic link (to /etc/passwd, to the token file) and no ".." leads out of it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace layoutscope::agent {

struct StaticFile {
  std::string body;
  std::string content_type;
  std::string content_encoding;  // "br", "gzip" or empty
  std::string cache_control;
};

// The file for URL path `path` (already percent-decoded, starting with '/') below `root`, choosing a
// precompressed variant that `accept_encoding` allows; nothing when no servable file exists.
std::optional<StaticFile> find_static_file(const std::string& root, std::string_view path,
                                           std::string_view accept_encoding);

// Whether an Accept-Encoding value accepts `coding` (q=0 refuses it; "*" accepts anything not named).
bool accepts_encoding(std::string_view accept_encoding, std::string_view coding);

// "/assets/name-<hash>.ext" with a hash of 8 or more characters from Vite's alphabet.
bool is_content_hashed_asset(std::string_view path);

}  // namespace layoutscope::agent
