// Facts about this build (reported in /version and in every result's meta.agent) and the documents that
// are compiled into the binary (the OpenAPI description with the schemas it refers to bundled in, the run
// request's schema, the fallback page).
#pragma once

#include <string>
#include <string_view>

namespace layoutscope::agent {

struct BuildInfo {
  std::string_view version;
  std::string_view git_sha;
  std::string_view build_type;
  std::string_view compiler;
  std::string_view cxx_flags;
  bool cuda = false;
  std::string_view cuda_architectures;
  std::string_view cuda_compiler_version;
};

const BuildInfo& build_info();
std::string_view openapi_document();
// schemas/run-request.schema.json: the catalogue and the request part of openapi_document() are read from it.
std::string_view request_schema_document();
std::string_view builtin_page();

}  // namespace layoutscope::agent
