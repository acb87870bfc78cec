#include "jobs/run_record.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <set>
#include <utility>

#include "bench/request/json_depth.hpp"

namespace layoutscope::agent {
namespace {

using nlohmann::json;

json optional_string(const std::optional<std::string>& s) { return s ? json(*s) : json(nullptr); }

}  // namespace

Result<RunRecord> parse_run_record_text(std::string_view text) {
  if (json_nesting_depth(text) > kMaxRecordDepth)
    return make_error("JSON nested deeper than " + std::to_string(kMaxRecordDepth) + " levels", 0, "file");
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) return make_error("not valid JSON", 0, "file");
  return parse_run_record(j);
}

Result<RunRecord> read_run_record_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return make_error("cannot be opened (a link, or unreadable)", 0, "file");
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return make_error("not a regular file", 0, "file");
  }
  if (static_cast<size_t>(st.st_size) > kMaxRecordBytes) {
    ::close(fd);
    return make_error("larger than " + std::to_string(kMaxRecordBytes) + " bytes", 0, "file");
  }
  std::string text(static_cast<size_t>(st.st_size), '\0');
  size_t off = 0;
  while (off < text.size()) {
    const ssize_t n = ::read(fd, text.data() + off, text.size() - off);
    if (n <= 0) break;
    off += static_cast<size_t>(n);
  }
  ::close(fd);
  text.resize(off);
  return parse_run_record_text(text);
}

json run_record_json(const RunRecord& r) {
  return {{"id", r.id},
          {"benchmark", r.benchmark},
          {"device", r.device},
          {"backend", r.backend},
          {"status", r.status},
          {"created_at", r.created_at},
          {"started_at", optional_string(r.started_at)},
          {"finished_at", optional_string(r.finished_at)},
          {"progress", r.progress},
          {"message", r.message},
          {"error", optional_string(r.error)},
          {"request", r.request},
          {"result", r.result}};
}

RunSummary summarize(const RunRecord& r) {
  return {r.id,      r.benchmark, r.backend,     r.status, r.created_at,
          r.message, r.device,    r.finished_at, r.error,  r.progress};
}

json run_summary_json(const RunSummary& s) {
  return {{"id", s.id},
          {"benchmark", s.benchmark},
          {"device", s.device},
          {"backend", s.backend},
          {"status", s.status},
          {"created_at", s.created_at},
          {"finished_at", optional_string(s.finished_at)},
          {"error", optional_string(s.error)}};
}

json progress_json(const RunSummary& s) {
  return {{"id", s.id},
          {"status", s.status},
          {"progress", s.progress},
          {"message", s.message},
          {"error", optional_string(s.error)}};
}

Result<RunRecord> parse_run_record(const json& j) {
  if (!j.is_object()) return make_error("a run record is a JSON object", 0, "record");
  RunRecord r;
  auto text = [&](const char* key, std::string& out) -> bool {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_string()) return false;
    out = it->get<std::string>();
    return true;
  };
  auto text_or_null = [&](const char* key, std::optional<std::string>& out) -> bool {
    const auto it = j.find(key);
    if (it == j.end()) return false;
    if (it->is_null()) return true;
    if (!it->is_string()) return false;
    out = it->get<std::string>();
    return true;
  };
  for (const auto& [key, out] : {std::pair{"id", &r.id}, std::pair{"benchmark", &r.benchmark},
                                 std::pair{"backend", &r.backend}, std::pair{"status", &r.status},
                                 std::pair{"created_at", &r.created_at}, std::pair{"message", &r.message}})
    if (!text(key, *out)) return make_error(std::string(key) + ": expected a string", 0, key);
  for (const auto& [key, out] : {std::pair{"started_at", &r.started_at},
                                 std::pair{"finished_at", &r.finished_at}, std::pair{"error", &r.error}})
    if (!text_or_null(key, *out)) return make_error(std::string(key) + ": expected a string or null", 0, key);
  static const std::set<std::string> kStatuses = {"queued", "running",   "succeeded",
                                                  "failed", "cancelled", "interrupted"};
  if (!kStatuses.count(r.status)) return make_error("status: not a run status", 0, "status");
  const auto device = j.find("device");
  if (device == j.end() || !device->is_number_integer() || device->get<int64_t>() < 0 ||
      device->get<int64_t>() > 1023)
    return make_error("device: expected an integer from 0 to 1023", 0, "device");
  r.device = device->get<int>();
  const auto progress = j.find("progress");
  if (progress == j.end() || !progress->is_number() || !(progress->get<double>() >= 0) ||
      progress->get<double>() > 1)
    return make_error("progress: expected a number from 0 to 1", 0, "progress");
  r.progress = progress->get<double>();
  const auto request = j.find("request");
  if (request == j.end() || !request->is_object())
    return make_error("request: expected an object", 0, "request");
  r.request = *request;
  const auto result = j.find("result");
  if (result == j.end() || !(result->is_null() || result->is_object()))
    return make_error("result: expected an object or null", 0, "result");
  if (result->is_object()) {
    // The results schema's required members (schemas/results.schema.json), with their types.
    if (!result->contains("schema_version") || !(*result)["schema_version"].is_string() ||
        !result->contains("meta") || !(*result)["meta"].is_object() || !result->contains("devices") ||
        !(*result)["devices"].is_array() || !result->contains("benchmarks") ||
        !(*result)["benchmarks"].is_array())
      return make_error("result: expected schema_version, meta, devices and benchmarks", 0, "result");
  }
  r.result = *result;
  return r;
}

}  // namespace layoutscope::agent
