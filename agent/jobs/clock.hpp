// The wall-clock time stamps of a run's record and its results (created, started, finished), one writer so
// that the store and the execution stamp alike.
//
//   iso8601_now()  ->  "2026-12-02T14:03:07.512Z"  (UTC, milliseconds)
#pragma once

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>

namespace layoutscope::agent {

inline std::string iso8601_now() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

}  // namespace layoutscope::agent
