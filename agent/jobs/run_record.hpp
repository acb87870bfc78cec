// A run's record, typed, and its JSON form on disk and over HTTP. Records read from the results folder are
// untrusted input: a file is read only when it is a regular file (no link followed) of at most
// kMaxRecordBytes, its JSON no deeper than kMaxRecordDepth (a linear scan before any recursive parse), and
// every field present with its type.
#pragma once

#include <cstddef>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "jobs/clock.hpp"
#include "layoutscope/result.hpp"

namespace layoutscope::agent {

inline constexpr size_t kMaxRecordBytes = 16 << 20;
inline constexpr int kMaxRecordDepth = 64;

// A run id is 1-64 of [A-Za-z0-9-] (new_run_id makes "20261120T123456Z-1a2b3c4d"; the /v1/runs/{id} routes
// match the same alphabet): safe as a file name in the results folder and in a URL.
bool valid_run_id(const std::string& id);

// The run record, typed; JSON only where it meets HTTP and the disk (run_record_json, parse_run_record).
struct RunRecord {
  std::string id;
  std::string benchmark;
  int device = 0;
  std::string backend;
  std::string status;  // queued | running | succeeded | failed | cancelled | interrupted
  std::string created_at;
  std::optional<std::string> started_at, finished_at;
  double progress = 0;
  std::string message;
  std::optional<std::string> error;
  nlohmann::json request;  // the resolved request document
  nlohmann::json result;   // the results document (schemas/results.schema.json), null until there is one
};

// What a list, a progress event and the history index need of a run (no request, no result).
struct RunSummary {
  std::string id, benchmark, backend, status, created_at, message;
  int device = 0;
  std::optional<std::string> finished_at, error;
  double progress = 0;
};

nlohmann::json run_record_json(const RunRecord& r);
nlohmann::json run_summary_json(const RunSummary& s);
nlohmann::json progress_json(const RunSummary& s);  // id, status, progress, message, error
RunSummary summarize(const RunRecord& r);
// A record read from disk: every field present with its type, a result (when present) with the results
// document's required members. The error names the first field at fault.
Result<RunRecord> parse_run_record(const nlohmann::json& j);

// A record file's text (parse_run_record after the depth check), and a record file read as above.
Result<RunRecord> parse_run_record_text(std::string_view text);
Result<RunRecord> read_run_record_file(const std::filesystem::path& path);

}  // namespace layoutscope::agent
