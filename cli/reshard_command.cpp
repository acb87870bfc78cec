// reshard: the collectives and local steps that move a tensor from one mesh layout to another
// (shared/include/layoutscope/plan/reshard.hpp), checked by running the plan on host buffers.
#include <memory>

#include "cli_support.hpp"
#include "layoutscope/parse.hpp"
#include "layoutscope/plan/reshard.hpp"

namespace layoutscope::cli {
namespace {

struct ReshardArgs {
  Arg from, to, shape, mesh, dtype, busbw;
  bool no_check = false;
};

Json placements_json(const Mesh& mesh, const std::vector<Placement>& p) {
  Json j = Json::object();
  for (size_t i = 0; i < mesh.size() && i < p.size(); ++i) j[mesh[i].first] = to_string(p[i]);
  return j;
}

Json local_json(const LocalTensor& t) {
  return {{"layout", to_string(t.layout)}, {"shape", t.shape}, {"elements", t.elements}};
}

int run(const ReshardArgs& a) {
  if (!a.from.given() || !a.to.given()) fail("give --from and --to (the two mesh layouts)", "from");
  if (!a.mesh.given()) fail("give --mesh, e.g. --mesh gpuid_x=2,gpuid_y=4", "mesh");
  const Layout from = layout_arg(a.from.value);
  const Layout to = layout_arg(a.to.value);
  auto mesh = parse_mesh(a.mesh.value);
  if (!mesh) fail(mesh.error(), a.mesh.value);
  DType dtype = DType::kF32;
  if (a.dtype.given()) {
    auto d = parse_dtype(a.dtype.value);
    if (!d) fail(make_error(d.error().message, 0, "dtype"), a.dtype.value);
    dtype = *d;
  }
  ReshardBandwidths bw;
  if (a.busbw.given()) bw.collective_busbw_gbps = static_cast<double>(option_arg(a.busbw, 1, 100000));
  auto plan = plan_reshard(from, to, shape_arg(a.shape, from), *mesh, dtype, bw);
  if (!plan) fail(plan.error());
  Json steps = Json::array();
  for (const ReshardStep& s : plan->steps) {
    Json j = {{"op", std::string(to_string(s.op))},
              {"axis", s.axis},
              {"group", s.group},
              {"groups", s.groups},
              {"before", to_string(s.before)},
              {"after", to_string(s.after)},
              {"placements_after", placements_json(plan->mesh, s.placements_after)},
              {"local_before", local_json(s.local_before)},
              {"local_after", local_json(s.local_after)},
              {"size_bytes", s.size_bytes},
              {"send_bytes", s.send_bytes},
              {"recv_bytes", s.recv_bytes},
              {"local_bytes", s.local_bytes},
              {"predicted_seconds", s.predicted_seconds}};
    if (s.root >= 0) j["root"] = s.root;
    if (s.target >= 0) j["target"] = s.target;
    steps.push_back(j);
  }
  Json mesh_json = Json::object();
  for (const auto& [name, n] : plan->mesh) mesh_json[name] = n;
  Json out = {{"from", to_string(plan->from)},
              {"to", to_string(plan->to)},
              {"shape", plan->shape},
              {"mesh", mesh_json},
              {"dtype", std::string(to_string(plan->dtype))},
              {"from_placements", placements_json(plan->mesh, plan->from_placements)},
              {"to_placements", placements_json(plan->mesh, plan->to_placements)},
              {"steps", steps},
              {"send_bytes", plan->send_bytes},
              {"recv_bytes", plan->recv_bytes},
              {"predicted_seconds", plan->predicted_seconds},
              {"bandwidths_gbps",
               {{"collective_busbw", plan->bandwidths.collective_busbw_gbps},
                {"send_recv", plan->bandwidths.send_recv_gbps},
                {"local_copy", plan->bandwidths.local_copy_gbps}}}};
  if (!a.no_check) {
    auto check = execute_reshard_host(*plan);
    if (!check) fail(check.error());
    out["checked_on_host"] = {
        {"devices", check->devices}, {"steps", check->steps}, {"elements_checked", check->elements_checked}};
  }
  emit(out);
  return 0;
}

}  // namespace

void add_reshard_command(CLI::App& app) {
  auto a = std::make_shared<ReshardArgs>();
  CLI::App* command = add_command(
      app, "reshard",
      "Plan the collectives that move a tensor from one mesh layout to another, checked on host",
      "  layoutscope reshard --from 'S[(2,4,8):(1@gpuid_x,1@gpuid_y,1)]' \\\n"
      "      --to 'S[(2,4,8):(8,1@gpuid_y,1)] + R[2:1@gpuid_x]' --shape 2,4,8 --mesh gpuid_x=2,gpuid_y=4\n");
  add_arg(command, a->from, "from", "EXPR", "The mesh layout the tensor has");
  add_arg(command, a->to, "to", "EXPR", "The mesh layout it should have");
  add_arg(command, a->shape, "shape", "D0,D1,...", "Logical shape (default: one dimension of the size)");
  add_arg(command, a->mesh, "mesh", "x=2,y=4", "Mesh axes and sizes, outermost first");
  add_arg(command, a->dtype, "dtype", "TYPE", "Element type for the byte counts (default f32)");
  add_arg(command, a->busbw, "busbw", "GB/s",
          "Measured collective bus bandwidth for the time estimate (default 360)");
  command->add_flag("--no-check", a->no_check, "Skip running the plan on host buffers");
  on_run(command, [a] { return run(*a); });
}

}  // namespace layoutscope::cli
