// What the agent reads from others, fuzzed: a run record file from the results folder (parse_run_record_text:
// the depth scan, the JSON parser, the typed fields) and a request body (RequestPolicy::parse_json_body: NUL
// bytes, a byte order mark, the depth limit, duplicate keys). The first byte picks which. A crash, a
// sanitizer report, a hang, an error without a field, or a record accepted that does not print back to the
// same record is a finding.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "http/policy.hpp"
#include "jobs/run_record.hpp"

namespace agent = layoutscope::agent;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 0) {
    auto record = agent::parse_run_record_text(text);
    if (!record) {
      if (record.error().field.empty()) std::abort();
      return 0;
    }
    // An accepted record prints (as persist writes it) and reads back as the same record.
    const std::string printed =
        agent::run_record_json(*record).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    auto again = agent::parse_run_record_text(printed);
    if (!again || agent::run_record_json(*again) != agent::run_record_json(*record)) std::abort();
    (void)agent::summarize(*record);
    return 0;
  }
  static const agent::RequestPolicy policy(agent::PolicyConfig{});
  auto body = policy.parse_json_body(text);
  if (!body) {
    if (body.error().field.empty()) std::abort();
    const int status = agent::body_error_status(body.error());
    if (status != 400 && status != 422) std::abort();
    return 0;
  }
  if (text.find('\0') != std::string::npos) std::abort();  // a body with a NUL is never accepted
  return 0;
}
