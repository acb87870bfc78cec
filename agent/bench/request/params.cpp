#include "bench/request/params.hpp"

#include <algorithm>
#include <iterator>
#include <limits>
#include <random>
#include <set>

#include "about/build_info.hpp"
#include "bench/engine_calls.hpp"
#include "bench/kinds/convert_run.hpp"
#include "bench/kinds/reshard_run.hpp"
#include "bench/request/request_cost.hpp"
#include "layoutscope/parse.hpp"

namespace layoutscope::agent {
namespace {

using nlohmann::json;

struct Defaults {
  int64_t n;
  int64_t dim;
  int warmup;
  int min_samples;
  double max_time_s;
};

// The backend's defaults (BackendTraits: the GPU's are sized for an H200, the CPU's for a 2-core CI machine).
Defaults defaults_for(const BackendTraits& b) {
  return {b.default_n, b.default_dim, b.default_warmup, b.default_min_samples, b.default_max_time_s};
}

// The API's names of an enum's values, in enum order (benchmark.cpp's to_string).
template <class Enum>
std::vector<std::string> enum_names(int count) {
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) out.push_back(to_string(static_cast<Enum>(i)));
  return out;
}
const std::vector<std::string> kVariantNames = enum_names<TransposeVariant>(kTransposeVariantCount);
const std::vector<std::string> kLayoutNames = enum_names<AosSoaLayout>(kAosSoaLayoutCount);

Error field_error(const std::string& field, const std::string& message) {
  return make_error(field + ": " + message, 0, field);
}

// params.layouts / params.variants: a non-empty array of distinct names from `names`, as the enum values in
// the same order; absent: all of them.
template <class Enum>
Result<std::vector<Enum>> name_list(const json& p, const char* key, const std::vector<std::string>& names,
                                    const std::string& what) {
  std::vector<Enum> out;
  if (!p.contains(key)) {
    for (size_t i = 0; i < names.size(); ++i) out.push_back(static_cast<Enum>(i));
    return out;
  }
  const std::string field = std::string("params.") + key;
  const json& v = p[key];
  if (!v.is_array() || v.empty()) return field_error(field, "expected a non-empty array of names");
  if (v.size() > names.size())
    return field_error(field, "at most " + std::to_string(names.size()) + " names");
  std::string all;
  for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string f = field + "[" + std::to_string(i) + "]";
    if (!v[i].is_string()) return field_error(f, "expected a string");
    const auto it = std::find(names.begin(), names.end(), v[i].get<std::string>());
    if (it == names.end()) return field_error(f, "expected one of " + all);
    const auto e = static_cast<Enum>(it - names.begin());
    if (std::find(out.begin(), out.end(), e) != out.end()) return field_error(f, "duplicate " + what);
    out.push_back(e);
  }
  return out;
}

std::string type_name(const json& v) {
  if (v.is_number_integer()) return "integer";
  if (v.is_number_float()) return "number";
  return v.type_name();
}

// An integer in [lo, hi], or an error naming the field.
Result<int64_t> integer(const json& v, const std::string& field, int64_t lo, int64_t hi) {
  if (!v.is_number_integer()) return field_error(field, "expected an integer, got " + type_name(v));
  int64_t x;
  if (v.is_number_unsigned()) {
    const auto u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(hi)) return field_error(field, "must be at most " + std::to_string(hi));
    x = static_cast<int64_t>(u);
  } else {
    x = v.get<int64_t>();
  }
  if (x < lo || x > hi)
    return field_error(field, "must be between " + std::to_string(lo) + " and " + std::to_string(hi) +
                                  ", got " + std::to_string(x));
  return x;
}

// A number in [lo, hi], or an error naming the field.
Result<double> number(const json& v, const std::string& field, double lo, double hi) {
  if (!v.is_number()) return field_error(field, "expected a number, got " + type_name(v));
  const double x = v.get<double>();
  if (!(x >= lo && x <= hi))
    return field_error(field, "must be between " + std::to_string(lo) + " and " + std::to_string(hi));
  return x;
}

Result<Sampling> parse_sampling(const json& p, const Defaults& d) {
  Sampling s;
  s.repetitions = 0;
  s.warmup = d.warmup;
  s.min_samples = d.min_samples;
  s.max_samples = kDefaultMaxSamples;
  s.max_time_s = d.max_time_s;
  s.noise = kDefaultNoise;
  if (p.contains("repetitions") && !p["repetitions"].is_null()) {
    auto r = integer(p["repetitions"], "params.repetitions", 1, kMaxRepetitions);
    if (!r) return r.error();
    s.repetitions = static_cast<int>(*r);
  }
  if (p.contains("min_samples")) {
    auto r = integer(p["min_samples"], "params.min_samples", 1, kMaxMinSamples);
    if (!r) return r.error();
    s.min_samples = static_cast<int>(*r);
  }
  if (p.contains("max_samples")) {
    auto r = integer(p["max_samples"], "params.max_samples", 1, kMaxMaxSamples);
    if (!r) return r.error();
    s.max_samples = static_cast<int>(*r);
  }
  if (s.min_samples > s.max_samples)
    return field_error("params.min_samples", "must not exceed params.max_samples");
  if (p.contains("max_time_s")) {
    auto r = number(p["max_time_s"], "params.max_time_s", 0.0, kMaxTimeLimit);
    if (!r) return r.error();
    s.max_time_s = *r;
  }
  if (p.contains("noise")) {
    auto r = number(p["noise"], "params.noise", 0.0, kMaxNoise);
    if (!r) return r.error();
    s.noise = *r;
  }
  if (p.contains("warmup")) {
    auto r = integer(p["warmup"], "params.warmup", 0, kMaxWarmup);
    if (!r) return r.error();
    s.warmup = static_cast<int>(*r);
  }
  if (p.contains("raw_samples")) {
    if (!p["raw_samples"].is_boolean()) return field_error("params.raw_samples", "expected true or false");
    s.raw_samples = p["raw_samples"].get<bool>();
  }
  if (p.contains("cache")) {
    const json& c = p["cache"];
    if (!c.is_string() || (c != "cold" && c != "hot"))
      return field_error("params.cache", "expected \"cold\" or \"hot\"");
    s.cache = c == "hot" ? CacheMode::kHot : CacheMode::kCold;
  }
  if (p.contains("seed")) {
    auto r = integer(p["seed"], "params.seed", 0, kMaxSeed);
    if (!r) return r.error();
    s.seed = static_cast<uint64_t>(*r);
  } else {
    s.seed = std::random_device{}() & 0xffffffffu;  // fresh random input each run; echoed in the result
  }
  return s;
}

// An integer or a non-empty array of distinct integers, each in [lo, hi].
Result<std::vector<int64_t>> integer_list(const json& v, const std::string& field, int64_t lo, int64_t hi,
                                          size_t max_items) {
  std::vector<int64_t> out;
  if (v.is_array()) {
    if (v.empty()) return field_error(field, "must not be empty");
    if (v.size() > max_items) return field_error(field, "at most " + std::to_string(max_items) + " values");
    for (size_t i = 0; i < v.size(); ++i) {
      auto x = integer(v[i], field + "[" + std::to_string(i) + "]", lo, hi);
      if (!x) return x.error();
      if (std::find(out.begin(), out.end(), *x) != out.end())
        return field_error(field + "[" + std::to_string(i) + "]", "duplicate value " + std::to_string(*x));
      out.push_back(*x);
    }
    return out;
  }
  auto x = integer(v, field, lo, hi);
  if (!x) return x.error();
  return std::vector<int64_t>{*x};
}

Result<bool> check_known(const json& p, const std::set<std::string>& known) {
  for (auto it = p.begin(); it != p.end(); ++it)
    if (!known.count(it.key())) return field_error("params." + it.key(), "unknown parameter");
  return true;
}

std::string bytes_text(int64_t b) { return std::to_string(b) + " bytes"; }

json sampling_resolved(const Sampling& s) {
  return {{"repetitions", s.repetitions > 0 ? json(s.repetitions) : json(nullptr)},
          {"min_samples", s.min_samples},
          {"max_samples", s.max_samples},
          {"max_time_s", s.max_time_s},
          {"noise", s.noise},
          {"warmup", s.warmup},
          {"raw_samples", s.raw_samples},
          {"cache", s.cache == CacheMode::kCold ? "cold" : "hot"},
          {"seed", s.seed}};
}

// The parameters a benchmark takes: its own and the sampling ones, both as the request's schema lists them.
template <size_t N>
std::set<std::string> parameters(const char* const (&own)[N]) {
  std::set<std::string> out(std::begin(kSamplingParameters), std::end(kSamplingParameters));
  out.insert(std::begin(own), std::end(own));
  return out;
}

// params.shape / params.perm: a non-empty array of at most max_items integers.
Result<std::vector<int64_t>> int_array(const json& p, const char* key, int64_t lo, int64_t hi,
                                       int max_items) {
  const std::string field = std::string("params.") + key;
  if (!p.contains(key)) return field_error(field, "required");
  const json& v = p[key];
  if (!v.is_array() || v.empty()) return field_error(field, "expected a non-empty array of integers");
  if (v.size() > static_cast<size_t>(max_items))
    return field_error(field, "at most " + std::to_string(max_items) + " values");
  std::vector<int64_t> out;
  for (size_t i = 0; i < v.size(); ++i) {
    auto x = integer(v[i], field + "[" + std::to_string(i) + "]", lo, hi);
    if (!x) return x.error();
    out.push_back(*x);
  }
  return out;
}

// Bytes a case needs on the device: the source and the destination, each its span (offset and swizzle in).
int64_t convert_need(const ConvertCase& c) {
  return (source_extent(c.plan) + destination_extent(c.plan)) * c.plan.elem_bytes;
}

// {"suite": "permutations"} | {"src", "dst", "shape", "dtype"} | {"shape", "perm", "dtype"}, planned here so
// that a planner error (different sizes, an aliasing destination) is a 422 naming the field.
Result<ConvertParams> parse_convert(const json& p, const Sampling& sampling, const BackendTraits& backend,
                                    int64_t budget) {
  if (auto k = check_known(p, parameters(kConvertParameters)); !k) return k.error();
  ConvertParams out;
  out.sampling = sampling;
  if (p.contains("suite")) {
    for (const char* k : {"src", "dst", "shape", "perm", "dtype"})
      if (p.contains(k)) return field_error(std::string("params.") + k, "not with params.suite");
    if (!p["suite"].is_string() || p["suite"] != "permutations")
      return field_error("params.suite", "expected \"permutations\"");
    out.suite = "permutations";
    auto cases = permutation_suite(backend.full_size_suite);
    if (!cases) return cases.error();
    out.cases = std::move(cases).value();
  } else {
    if (!p.contains("dtype"))
      return field_error("params.dtype", std::string("required (") + kConvertDtypesText + ")");
    if (!p["dtype"].is_string())
      return field_error("params.dtype", std::string("expected a string (") + kConvertDtypesText + ")");
    auto dtype = parse_dtype(p["dtype"].get<std::string>());
    if (!dtype) return field_error("params.dtype", dtype.error().message);
    auto shape = int_array(p, "shape", 1, kMaxConvertExtent, kMaxConvertRank);
    if (!shape) return shape.error();
    Result<ConvertCase> c = make_error("unreachable");
    if (p.contains("perm")) {
      for (const char* k : {"src", "dst"})
        if (p.contains(k))
          return field_error(std::string("params.") + k, "give src and dst, or perm, not both");
      auto perm = int_array(p, "perm", 0, kMaxPermIndex, kMaxConvertRank);
      if (!perm) return perm.error();
      c = permute_case("case0", *shape, *perm, *dtype);
    } else {
      for (const char* k : {"src", "dst"}) {
        const std::string f = std::string("params.") + k;
        if (!p.contains(k)) return field_error(f, "required (or params.shape with params.perm)");
        if (!p[k].is_string())
          return field_error(f, "expected a layout in the notation, e.g. \"S[(4,8):(8,1)]\"");
      }
      c = layout_case("case0", p["src"].get<std::string>(), p["dst"].get<std::string>(), *shape, *dtype);
    }
    if (!c) return c.error();
    out.cases.push_back(std::move(c).value());
  }
  for (size_t i = 0; i < out.cases.size(); ++i) {
    const int64_t need = convert_need(out.cases[i]);
    if (need > budget)
      return field_error(out.suite.empty() ? "params.shape" : "params.suite",
                         out.cases[i].name + " needs " + bytes_text(need) + " (source + destination), the " +
                             backend.name + " device has " + bytes_text(budget) + " available");
  }
  return out;
}

json convert_resolved(const ConvertParams& c) {
  if (!c.suite.empty()) return {{"suite", c.suite}};
  const ConvertCase& k = c.cases.front();
  json out = {{"shape", k.shape}, {"dtype", std::string(to_string(k.dtype))}};
  if (!k.perm.empty()) {
    out["perm"] = k.perm;
  } else {
    out["src"] = to_string(k.src);
    out["dst"] = to_string(k.dst);
  }
  return out;
}

// ---- reshard and collective ------------------------------------------------------------------------------

const std::vector<std::string> kCollectiveNames = enum_names<CollectiveOp>(kCollectiveOpCount);

std::string with_column(const Error& e) {
  return e.column > 0 ? "column " + std::to_string(e.column) + ": " + e.message : e.message;
}

// The request schema's reshard dtypes (u8, f16, bf16, f32, f64): those whose sums NCCL computes exactly for
// the verification's values.
Result<DType> reshard_dtype(const json& p) {
  const std::string text = p.contains("dtype") ? (p["dtype"].is_string() ? p["dtype"].get<std::string>() : "")
                                               : kDefaultReshardDtype;
  const bool listed = std::any_of(std::begin(kReshardDtypes), std::end(kReshardDtypes),
                                  [&](const char* name) { return text == name; });
  auto d = parse_dtype(text);
  if (!listed || !d) return field_error("params.dtype", std::string("expected one of ") + kReshardDtypesText);
  return *d;
}

// Elements times holders of a mesh layout: the rows its verification table has.
int64_t table_cells(const Layout& l) {
  auto n = layout_size(l);
  auto r = replica_count(l);
  auto q = partial_count(l);
  if (!n || !r || !q) return std::numeric_limits<int64_t>::max();
  return *n * *r * std::max<int64_t>(*q, 1);
}

// {"from", "to", "shape", "mesh", "dtype", "busbw_gbps"}, planned here so that a planner error is a 422
// naming the field; on the cuda backend the mesh must fit the machine's GPUs.
Result<ReshardParams> parse_reshard(const json& p, const Sampling& sampling, const BackendTraits& backend,
                                    int device_count, int64_t budget) {
  if (auto k = check_known(p, parameters(kReshardParameters)); !k) return k.error();
  ReshardParams out;
  out.sampling = sampling;
  for (const char* k : {"from", "to"}) {
    const std::string f = std::string("params.") + k;
    if (!p.contains(k)) return field_error(f, "required: a mesh layout, e.g. \"S[(8,64):(1@gpuid_x,1)]\"");
    if (!p[k].is_string()) return field_error(f, "expected a mesh layout in the notation");
  }
  auto from = parse_layout_counted(p["from"].get<std::string>());
  if (!from)
    return make_error("params.from: " + with_column(from.error()), from.error().column, "params.from");
  auto to = parse_layout_counted(p["to"].get<std::string>());
  if (!to) return make_error("params.to: " + with_column(to.error()), to.error().column, "params.to");
  auto shape = int_array(p, "shape", 1, kMaxReshardExtent, kMaxReshardRank);
  if (!shape) return shape.error();
  auto dtype = reshard_dtype(p);
  if (!dtype) return dtype.error();
  if (!p.contains("mesh")) return field_error("params.mesh", "required, e.g. \"gpuid_x=2,gpuid_y=4\"");
  if (!p["mesh"].is_string())
    return field_error("params.mesh", "expected a string like \"gpuid_x=2,gpuid_y=4\"");
  auto mesh = parse_mesh(p["mesh"].get<std::string>());
  if (!mesh)
    return make_error("params.mesh: " + with_column(mesh.error()), mesh.error().column, "params.mesh");
  if (p.contains("busbw_gbps")) {
    auto b = number(p["busbw_gbps"], "params.busbw_gbps", 0, kMaxBusbwGbps);
    if (!b) return b.error();
    if (*b <= 0) return field_error("params.busbw_gbps", "must be positive");
    out.busbw_gbps = *b;
  }
  int64_t devices = 1;
  for (const auto& [name, size] : *mesh) {
    devices *= size;
    if (devices > kMaxMeshDevices)
      return field_error("params.mesh", "at most " + std::to_string(kMaxMeshDevices) + " devices");
  }
  if (backend.mesh_on_devices && devices > device_count)
    return field_error("params.mesh", "needs " + std::to_string(devices) + " GPUs, this machine has " +
                                          std::to_string(device_count));
  ReshardBandwidths bw;
  if (out.busbw_gbps) bw.collective_busbw_gbps = bw.send_recv_gbps = *out.busbw_gbps;
  auto plan = plan_reshard(*from, *to, *shape, *mesh, *dtype, bw);
  if (!plan) {
    const std::string f =
        plan.error().field == "from" || plan.error().field == "to" || plan.error().field == "mesh"
            ? "params." + plan.error().field
            : "params.shape";
    return make_error(f + ": " + with_column(plan.error()), plan.error().column, f);
  }
  // Verification tables and device memory, before anything is allocated.
  const int64_t cells_limit = backend.reshard_cells_limit;
  int64_t cells = std::max(table_cells(plan->from), table_cells(plan->to));
  int64_t largest = plan->steps.empty() ? 0 : plan->steps.front().local_before.elements;
  for (const auto& s : plan->steps) {
    cells = std::max(cells, table_cells(s.after));
    largest = std::max({largest, s.local_before.elements, s.local_after.elements});
  }
  if (cells > cells_limit)
    return field_error("params.shape", "the verification tables would hold " + std::to_string(cells) +
                                           " (element, holder) rows; the " + backend.name +
                                           " backend checks at most " + std::to_string(cells_limit));
  const int64_t need = 2 * largest * dtype_bytes(*dtype);
  if (backend.mesh_on_devices && need > budget)
    return field_error("params.shape", "each device needs " + bytes_text(need) +
                                           " (two buffers of the largest local tensor), a device has " +
                                           bytes_text(budget) + " available");
  out.from = to_string(*from);
  out.to = to_string(*to);
  out.mesh_text = p["mesh"].get<std::string>();
  out.shape = *shape;
  out.dtype = *dtype;
  out.mesh = *mesh;
  out.devices = devices;
  out.plan = std::move(plan).value();
  return out;
}

json reshard_resolved(const ReshardParams& r) {
  json out = {{"from", r.from},
              {"to", r.to},
              {"shape", r.shape},
              {"mesh", r.mesh_text},
              {"dtype", std::string(to_string(r.dtype))}};
  out["busbw_gbps"] = r.busbw_gbps ? json(*r.busbw_gbps) : json(nullptr);
  return out;
}

// {"op", "sizes", "dtype", "gpus"}: sizes default to 1 MiB .. 4 GiB doubling; every size a multiple of
// gpus * dtype size (nccl-tests rounds the same way).
Result<CollectiveParams> parse_collective(const json& p, const Sampling& sampling,
                                          const BackendTraits& backend, int device_count, int64_t budget) {
  if (auto k = check_known(p, parameters(kCollectiveParameters)); !k) return k.error();
  CollectiveParams out;
  out.sampling = sampling;
  std::string all;
  for (const auto& n : kCollectiveNames) all += (all.empty() ? "\"" : ", \"") + n + "\"";
  if (!p.contains("op")) return field_error("params.op", "required: one of " + all);
  const json& op = p["op"];
  const auto it = op.is_string()
                      ? std::find(kCollectiveNames.begin(), kCollectiveNames.end(), op.get<std::string>())
                      : kCollectiveNames.end();
  if (it == kCollectiveNames.end()) return field_error("params.op", "expected one of " + all);
  out.op = static_cast<CollectiveOp>(it - kCollectiveNames.begin());
  auto dtype = reshard_dtype(p);
  if (!dtype) return dtype.error();
  out.dtype = *dtype;
  const int gpus = backend.no_collectives.empty() ? device_count : 0;
  if (p.contains("gpus")) {
    auto g = integer(p["gpus"], "params.gpus", 2, kMaxMeshDevices);
    if (!g) return g.error();
    out.gpus = static_cast<int>(*g);
  } else {
    out.gpus = std::max(gpus, 2);
  }
  if (out.gpus > gpus)
    return field_error(p.contains("gpus") ? "params.gpus" : "benchmark",
                       "needs " + std::to_string(out.gpus) + " GPUs, this machine has " +
                           std::to_string(gpus) +
                           (backend.no_collectives.empty() ? "" : " (" + backend.no_collectives + ")"));
  const int64_t unit = int64_t{out.gpus} * dtype_bytes(out.dtype);
  if (p.contains("sizes")) {
    auto s = integer_list(p["sizes"], "params.sizes", 1, kMaxCollectiveBytes, kMaxCollectiveSizes);
    if (!s) return s.error();
    for (size_t i = 0; i < s->size(); ++i)
      if ((*s)[i] % unit != 0)
        return field_error(p["sizes"].is_array() ? "params.sizes[" + std::to_string(i) + "]" : "params.sizes",
                           "must be a multiple of gpus x dtype size = " + std::to_string(unit));
    out.sizes = *s;
  } else {
    for (int64_t s = int64_t{1} << 20; s <= kMaxCollectiveBytes; s *= 2) out.sizes.push_back(s / unit * unit);
  }
  // Per device: the send and receive buffers (all_gather receives S, reduce_scatter sends S).
  const int64_t largest = *std::max_element(out.sizes.begin(), out.sizes.end());
  const int64_t need = out.op == CollectiveOp::kAllGather || out.op == CollectiveOp::kReduceScatter
                           ? largest + largest / out.gpus
                           : 2 * largest;
  if (need > budget)
    return field_error("params.sizes", "size " + std::to_string(largest) + " needs " + bytes_text(need) +
                                           " per device, a device has " + bytes_text(budget) + " available");
  return out;
}

json collective_resolved(const CollectiveParams& c) {
  return {{"op", to_string(c.op)},
          {"sizes", c.sizes},
          {"dtype", std::string(to_string(c.dtype))},
          {"gpus", c.gpus}};
}

// The run request's schema (schemas/run-request.schema.json, compiled in), parsed once.
const json& request_schema() {
  static const json schema = json::parse(request_schema_document());
  return schema;
}

// A node of the schema with its local reference ("#/$defs/name") followed.
const json& resolved(const json& node) {
  constexpr std::string_view kDefs = "#/$defs/";
  if (!node.is_object() || !node.contains("$ref")) return node;
  return resolved(request_schema()["$defs"][node["$ref"].get<std::string>().substr(kDefs.size())]);
}

// The catalogue's type words of a parameter's schema: "integer", "array of strings", "integer or array of
// integers" (a value, or an array of such values).
std::string type_words(const json& p) {
  if (p.contains("oneOf")) {
    const std::string one = type_words(resolved(p["oneOf"][0]));
    return one + " or array of " + one + "s";
  }
  if (p.contains("type")) {
    const std::string t =
        p["type"].is_array() ? p["type"][0].get<std::string>() : p["type"].get<std::string>();
    return t == "array" ? "array of " + type_words(resolved(p["items"])) + "s" : t;
  }
  if (p.contains("enum")) return p["enum"][0].is_string() ? "string" : "integer";
  return "string";
}

// One parameter as GET /v1/benchmarks lists it: its type words, default, the bounds and names of its values
// (of the value itself, its array form or the array's items) and its description.
json parameter_spec(const json& schema) {
  const json& p = resolved(schema);
  json spec = {{"type", type_words(p)},
               {"default", p.contains("default") ? p["default"] : json(nullptr)},
               {"description", p.value("description", "")}};
  std::vector<const json*> forms = {&p};
  if (p.contains("oneOf"))
    for (const json& f : p["oneOf"]) forms.push_back(&resolved(f));
  for (size_t i = 0, n = forms.size(); i < n; ++i)
    if (forms[i]->contains("items")) forms.push_back(&resolved((*forms[i])["items"]));
  for (const json* f : forms)
    for (const char* key : {"minimum", "maximum", "exclusiveMinimum", "maxItems", "enum"})
      if (f->contains(key) && !spec.contains(key)) spec[key] = (*f)[key];
  return spec;
}

// Every parameter of a benchmark's params schema, those of the schemas it includes (allOf: sampling) first.
json parameter_specs(const json& params) {
  json out = json::object();
  if (params.contains("allOf"))
    for (const json& part : params["allOf"]) out.update(parameter_specs(resolved(part)));
  for (auto it = params["properties"].begin(); it != params["properties"].end(); ++it)
    out[it.key()] = parameter_spec(it.value());
  return out;
}

}  // namespace

// The catalogue is the request schema read per benchmark; only the defaults that the backend sizes for its
// machine (BackendTraits) are filled in here.
json benchmark_catalogue(const BackendTraits& backend) {
  const Defaults d = defaults_for(backend);
  json benchmarks = json::array();
  for (const json& one : request_schema()["oneOf"]) {
    const json& request = resolved(one);
    json parameters = parameter_specs(resolved(request["properties"]["params"]));
    parameters["min_samples"]["default"] = d.min_samples;
    parameters["max_time_s"]["default"] = d.max_time_s;
    parameters["warmup"]["default"] = d.warmup;
    const std::string name = request["properties"]["benchmark"]["const"];
    if (name == "aos_soa") parameters["n"]["default"] = d.n;
    if (name == "transpose") parameters["dim"]["default"] = {d.dim};
    benchmarks.push_back({{"name", name},
                          {"title", request["title"]},
                          {"description", request["description"]},
                          {"parameters", std::move(parameters)}});
  }
  return {{"backend", backend.name}, {"benchmarks", std::move(benchmarks)}};
}

Result<RunRequest> parse_run_request_impl(const json& body, const BackendTraits& backend, int device_count,
                                          const std::function<int64_t(int)>& memory_budget) {
  if (!body.is_object()) return field_error("body", "expected a JSON object");
  for (auto it = body.begin(); it != body.end(); ++it)
    if (it.key() != "benchmark" && it.key() != "params" && it.key() != "device" && it.key() != "profile")
      return it.key().empty() ? field_error("body", "unknown field \"\" (an empty key)")
                              : field_error(it.key(), "unknown field");
  constexpr const char* kNames =
      "\"aos_soa\", \"transpose\", \"convert\", \"smem_access\", \"global_access\", \"reshard\" or "
      "\"collective\"";
  if (!body.contains("benchmark")) return field_error("benchmark", std::string("required (") + kNames + ")");
  const json& b = body["benchmark"];
  if (!b.is_string() || (b != "aos_soa" && b != "transpose" && b != "convert" && b != "smem_access" &&
                         b != "global_access" && b != "reshard" && b != "collective"))
    return field_error("benchmark", std::string("expected ") + kNames);
  RunRequest req;
  req.benchmark = b.get<std::string>();
  req.kind = req.benchmark == "aos_soa"         ? BenchmarkKind::kAosSoa
             : req.benchmark == "transpose"     ? BenchmarkKind::kTranspose
             : req.benchmark == "smem_access"   ? BenchmarkKind::kSmemAccess
             : req.benchmark == "global_access" ? BenchmarkKind::kGlobalAccess
             : req.benchmark == "reshard"       ? BenchmarkKind::kReshard
             : req.benchmark == "collective"    ? BenchmarkKind::kCollective
                                                : BenchmarkKind::kConvert;
  if (body.contains("device")) {
    if (device_count <= 0) return field_error("device", "no device is available");
    auto d = integer(body["device"], "device", 0, device_count - 1);
    if (!d) return d.error();
    req.device = static_cast<int>(*d);
  } else if (device_count <= 0) {
    return field_error("device", "no device is available");
  }
  if (body.contains("profile")) {
    if (!body["profile"].is_boolean()) return field_error("profile", "expected true or false");
    req.profile = body["profile"].get<bool>();
  }
  const json empty = json::object();
  const json& p = body.contains("params") ? body["params"] : empty;
  if (!p.is_object()) return field_error("params", "expected a JSON object");
  const Defaults d = defaults_for(backend);
  auto sampling = parse_sampling(p, d);
  if (!sampling) return sampling.error();

  if (req.kind == BenchmarkKind::kReshard || req.kind == BenchmarkKind::kCollective) {
    if (req.profile) return field_error("profile", "not available for " + req.benchmark + " (NCCL kernels)");
    json resolved;
    if (req.kind == BenchmarkKind::kReshard) {
      auto r = parse_reshard(p, *sampling, backend, device_count, memory_budget(req.device));
      if (!r) return r.error();
      req.reshard = std::move(r).value();
      resolved = reshard_resolved(req.reshard);
    } else {
      auto c = parse_collective(p, *sampling, backend, device_count, memory_budget(req.device));
      if (!c) return c.error();
      req.collective = std::move(c).value();
      resolved = collective_resolved(req.collective);
    }
    req.resolved = {{"benchmark", req.benchmark}, {"device", req.device}, {"params", resolved}};
    req.resolved["params"].update(sampling_resolved(*sampling));
  } else if (req.kind == BenchmarkKind::kSmemAccess || req.kind == BenchmarkKind::kGlobalAccess) {
    auto a = parse_access_params(p, req.benchmark, *sampling);
    if (!a) return a.error();
    req.access = std::move(a).value();
    req.resolved = {{"benchmark", req.benchmark}, {"device", req.device}, {"params", req.access.input}};
    req.resolved["params"].update(sampling_resolved(req.access.sampling));
  } else if (req.kind == BenchmarkKind::kConvert) {
    auto c = parse_convert(p, *sampling, backend, memory_budget(req.device));
    if (!c) return c.error();
    req.convert = std::move(c).value();
    req.resolved = {
        {"benchmark", req.benchmark}, {"device", req.device}, {"params", convert_resolved(req.convert)}};
    req.resolved["params"].update(sampling_resolved(req.convert.sampling));
  } else if (req.kind == BenchmarkKind::kAosSoa) {
    if (auto k = check_known(p, parameters(kAosSoaParameters)); !k) return k.error();
    AosSoaParams& a = req.aos_soa;
    a.sampling = *sampling;
    a.ns = {d.n};
    if (p.contains("n")) {
      auto n = integer_list(p["n"], "params.n", kMinElements, kMaxElements, kMaxDims);
      if (!n) return n.error();
      a.ns = *n;
    }
    auto chosen = name_list<AosSoaLayout>(p, "layouts", kLayoutNames, "layout");
    if (!chosen) return chosen.error();
    a.layouts = *chosen;
    if (p.contains("touch_fields")) {
      auto t = integer_list(p["touch_fields"], "params.touch_fields", 1, 8, 4);
      if (!t) return t.error();
      for (size_t i = 0; i < t->size(); ++i) {
        const int64_t v = (*t)[i];
        if (v != 1 && v != 2 && v != 4 && v != 8)
          return field_error(p["touch_fields"].is_array() ? "params.touch_fields[" + std::to_string(i) + "]"
                                                          : "params.touch_fields",
                             "must be one of 1, 2, 4, 8, got " + std::to_string(v));
        a.touch_fields.push_back(static_cast<int>(v));
      }
    } else {
      a.touch_fields = {1, 2, 4, 8};
    }
    const int64_t largest = *std::max_element(a.ns.begin(), a.ns.end());
    const int64_t need = largest * 32 * 2;  // the structs + the destination of the copy ceilings
    const int64_t budget = memory_budget(req.device);
    if (need > budget)
      return field_error("params.n", std::to_string(largest) + " elements need " + bytes_text(need) +
                                         " (data + copy ceiling), the " + backend.name + " device has " +
                                         bytes_text(budget) + " available");
    json layouts = json::array();
    for (auto l : a.layouts) layouts.push_back(to_string(l));
    req.resolved = {{"benchmark", req.benchmark},
                    {"device", req.device},
                    {"params",
                     {{"n", a.ns.size() == 1 ? json(a.ns[0]) : json(a.ns)},
                      {"touch_fields", a.touch_fields},
                      {"layouts", layouts}}}};
    req.resolved["params"].update(sampling_resolved(a.sampling));
  } else {
    if (auto k = check_known(p, parameters(kTransposeParameters)); !k) return k.error();
    TransposeParams& t = req.transpose;
    t.sampling = *sampling;
    t.dims = {d.dim};
    if (p.contains("dim")) {
      auto dims = integer_list(p["dim"], "params.dim", 1, kMaxDim, kMaxTransposeDims);
      if (!dims) return dims.error();
      t.dims = *dims;
    }
    auto chosen = name_list<TransposeVariant>(p, "variants", kVariantNames, "variant");
    if (!chosen) return chosen.error();
    t.variants = *chosen;
    const int64_t largest = *std::max_element(t.dims.begin(), t.dims.end());
    const int64_t need = 2 * largest * largest * 4;
    const int64_t budget = memory_budget(req.device);
    if (need > budget)
      return field_error("params.dim", "dim " + std::to_string(largest) + " needs " + bytes_text(need) +
                                           ", the " + backend.name + " device has " + bytes_text(budget) +
                                           " available");
    json variants = json::array();
    for (auto v : t.variants) variants.push_back(to_string(v));
    req.resolved = {{"benchmark", req.benchmark},
                    {"device", req.device},
                    {"params", {{"dim", t.dims}, {"variants", variants}}}};
    req.resolved["params"].update(sampling_resolved(t.sampling));
  }
  req.resolved["profile"] = req.profile;
  if (auto e = check_request_cost(body, req, backend)) return *e;
  return req;
}

std::vector<int> run_devices(const RunRequest& request, const BackendTraits& backend) {
  std::vector<int> out{request.device};
  int64_t n = 0;
  if (backend.mesh_on_devices && request.kind == BenchmarkKind::kReshard) n = request.reshard.devices;
  if (backend.mesh_on_devices && request.kind == BenchmarkKind::kCollective) n = request.collective.gpus;
  for (int d = 0; d < n; ++d)
    if (d != request.device) out.push_back(d);
  return out;
}

}  // namespace layoutscope::agent
