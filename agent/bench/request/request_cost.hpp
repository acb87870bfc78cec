// What a parsed run request will cost, bounded before any work starts: the values it names must be among the
// catalogue's (benchmark_catalogue, the one list a client reads), and the memory it touches on the host must
// be what it reads, not an unread span. Called once at the end of parse_run_request.
//
// Example: a convert with src = "S[(2,2):(4294967290,1)]" reads 4 bytes of u8 but spans 4,294,967,292
// elements: allocating the span would cost 4 GiB and its fill many seconds, so the request is refused with a
// 422 naming params.src (span / elements = 1,073,741,823 > kMaxSpanFactor). A params.dtype of "tf32", which
// the convert catalogue's enum leaves out, is refused naming params.dtype.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "bench/request/params.hpp"
#include "layoutscope/result.hpp"

namespace layoutscope::agent {

// A source may span at most this many times the elements it reads, past kSpanFloor elements: padded rows,
// strided slices and broadcasts stay well within it; a layout that jumps over gigabytes does not.
inline constexpr int64_t kMaxSpanFactor = 16;
inline constexpr int64_t kSpanFloor = int64_t{1} << 24;
// What one convert run may hold on the host with the CPU backend (its BackendTraits::convert_host_bytes): its
// source span, its destination and the copy ceilings' two buffers of the destination's size (the device
// budget counts only the first two), so that the peak RSS of any accepted request stays within 1 GB
// (measured: 650 MiB at this bound).
inline constexpr int64_t kCpuConvertHostBytes = int64_t{512} << 20;

// Nothing when the request is within bounds; otherwise the 422 error naming the field.
std::optional<Error> check_request_cost(const nlohmann::json& body, const RunRequest& request,
                                        const BackendTraits& backend);

}  // namespace layoutscope::agent
