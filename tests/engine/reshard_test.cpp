// The reshard planner: named cases whose steps follow PyTorch DTensor's redistribute rules (worked out by
// hand) and whose bytes follow nccl-tests' formulas, the errors, and a sweep that runs every plan between
// many mesh layouts on the host executor and checks every device's buffer element by element.
#include "layoutscope/plan/reshard.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "layoutscope/parse.hpp"

namespace layoutscope {
namespace {

const Mesh kMesh24 = {{"gpuid_x", 2}, {"gpuid_y", 4}};
const Mesh kMesh22 = {{"gpuid_x", 2}, {"gpuid_y", 2}};

Layout parse(const std::string& text) {
  auto l = parse_layout(text);
  EXPECT_TRUE(l.ok()) << text << ": " << (l ? "" : l.error().message);
  return l ? *l : Layout{};
}

Result<ReshardPlan> plan(const std::string& from, const std::string& to, const std::vector<int64_t>& shape,
                         const Mesh& mesh, DType dtype = DType::kF32) {
  return plan_reshard(parse(from), parse(to), shape, mesh, dtype);
}

std::vector<std::string> ops(const ReshardPlan& p) {
  std::vector<std::string> out;
  for (const ReshardStep& s : p.steps)
    out.push_back(std::string(to_string(s.op)) + (s.axis.empty() ? "" : " " + s.axis));
  return out;
}

void expect_runs(const ReshardPlan& p) {
  auto run = execute_reshard_host(p);
  ASSERT_TRUE(run.ok()) << to_string(p.from) << " -> " << to_string(p.to) << ": " << run.error().message;
  EXPECT_GT(run->elements_checked, 0);
}

// (S0 on x, S1 on y) -> replicated, an 8x8 fp32 tensor on 2x4: each device holds 4x2 = 8 elements. Two
// all_gathers (DTensor walks the inner mesh dim first): over y, S = 4 * 8 * 4 B = 128 B and each device sends
// (4-1) * 8 * 4 = 96 B; over x, L = 32, S = 256 B, sends 1 * 32 * 4 = 128 B. NCCL puts the gathered rank
// outermost, so the local tensor ends as (x, y, 4, 2) pieces and a permute makes it row-major.
TEST(Reshard, ShardShardToReplicateGathersInnerAxisFirst) {
  auto p = plan("S[(2,4,4,2):(1@gpuid_x,2,1@gpuid_y,1)]", "S[(8,8):(8,1)] + R[(2,4):(1@gpuid_x,1@gpuid_y)]",
                {8, 8}, kMesh24);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(ops(*p), (std::vector<std::string>{"all_gather gpuid_y", "all_gather gpuid_x", "permute"}));
  const ReshardStep& y = p->steps[0];
  EXPECT_EQ(y.local_before.elements, 8);
  EXPECT_EQ(y.size_bytes, 128);
  EXPECT_EQ(y.send_bytes, 96);
  EXPECT_EQ(y.recv_bytes, 96);
  EXPECT_DOUBLE_EQ(y.bus_factor, 0.75);
  EXPECT_EQ(y.groups, 2);
  EXPECT_EQ(y.local_before.shape, (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(y.local_after.shape, (std::vector<int64_t>{4, 8}));
  const ReshardStep& x = p->steps[1];
  EXPECT_EQ(x.size_bytes, 256);
  EXPECT_EQ(x.send_bytes, 128);
  EXPECT_EQ(x.local_after.elements, 64);
  // Predicted time: S * (n-1)/n / busbw, with the default 360 GB/s.
  EXPECT_DOUBLE_EQ(x.predicted_seconds, 256 * 0.5 / 360e9);
  EXPECT_EQ(p->send_bytes, 96 + 128);
  ASSERT_TRUE(p->steps[2].convert.has_value());
  EXPECT_EQ(p->steps[2].local_bytes, 2 * 64 * 4);
  expect_runs(*p);
}

// The header's worked example: gather x, y keeps its shard; the gathered piece lands outermost, which is
// where the destination wants it: no permute.
TEST(Reshard, HeaderExample) {
  auto p = plan("S[(2,4,8):(1@gpuid_x,1@gpuid_y,1)]", "S[(2,4,8):(8,1@gpuid_y,1)] + R[2:1@gpuid_x]",
                {2, 4, 8}, kMesh24);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(ops(*p), (std::vector<std::string>{"all_gather gpuid_x"}));
  EXPECT_EQ(p->steps[0].send_bytes, 32);
  EXPECT_EQ(to_string(p->steps[0].local_before.layout), "S[8:1]");
  EXPECT_EQ(to_string(p->steps[0].local_after.layout), "S[(2,8):(8,1)]");
  expect_runs(*p);
}

// Partial -> Replicate is one all_reduce: S = 64 * 4 = 256 B, a ring device sends 2 (n-1)/n S = 256 B on x.
TEST(Reshard, PartialToReplicateIsAllReduce) {
  auto p = plan("S[(8,8):(8,1)] + R[4:1@gpuid_y] + P[2:1@gpuid_x]",
                "S[(8,8):(8,1)] + R[(2,4):(1@gpuid_x,1@gpuid_y)]", {8, 8}, kMesh24);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(ops(*p), (std::vector<std::string>{"all_reduce gpuid_x"}));
  EXPECT_EQ(p->steps[0].size_bytes, 256);
  EXPECT_EQ(p->steps[0].send_bytes, 256);
  EXPECT_DOUBLE_EQ(p->steps[0].bus_factor, 1.0);
  EXPECT_EQ(p->steps[0].groups, 4);
  expect_runs(*p);
}

// Partial over both axes: one all_reduce per axis, the inner first. S = 256 B each; a ring device sends
// 2 (n-1)/n S: 2 * 3/4 * 256 = 384 B over y, 2 * 1/2 * 256 = 256 B over x. With a measured busbw of 100 GB/s
// the prediction is S * 2(n-1)/n / busbw.
TEST(Reshard, PartialOverBothAxesReducesEach) {
  ReshardBandwidths bw;
  bw.collective_busbw_gbps = 100;
  auto p = plan_reshard(parse("S[(8,8):(8,1)] + P[(2,4):(1@gpuid_x,1@gpuid_y)]"),
                        parse("S[(8,8):(8,1)] + R[(2,4):(1@gpuid_x,1@gpuid_y)]"), {8, 8}, kMesh24,
                        DType::kF32, bw);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(ops(*p), (std::vector<std::string>{"all_reduce gpuid_y", "all_reduce gpuid_x"}));
  EXPECT_EQ(p->steps[0].send_bytes, 384);
  EXPECT_EQ(p->steps[1].send_bytes, 256);
  EXPECT_DOUBLE_EQ(p->steps[0].predicted_seconds, 256 * 1.5 / 100e9);
  EXPECT_DOUBLE_EQ(p->predicted_seconds, (384 + 256) / 100e9);
  EXPECT_EQ(p->bandwidths.collective_busbw_gbps, 100);
  expect_runs(*p);
}

// A permute is predicted as its conversion plan's DRAM traffic at the local copy speed: (4, 2, 32) bf16 ->
// the 2 outermost keeps 64 B rows whole on both sides, whole sectors, so 256 x 2 B in and out = 1024 B; at
// 100 GB/s 1024 / 100e9 s.
TEST(Reshard, PermuteIsPredictedByItsConversionPlan) {
  ReshardBandwidths bw;
  bw.local_copy_gbps = 100;
  auto p = plan_reshard(parse("S[(2,4,64):(1@gpuid_x,64,1)]"), parse("S[(8,2,32):(32,1@gpuid_x,1)]"), {8, 64},
                        {{"gpuid_x", 2}}, DType::kBF16, bw);
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_EQ(p->steps[0].op, ReshardOp::kPermute);
  ASSERT_TRUE(p->steps[0].convert.has_value());
  EXPECT_EQ(convert_traffic_bytes(*p->steps[0].convert), 1024);
  EXPECT_DOUBLE_EQ(p->steps[0].predicted_seconds, 1024 / 100e9);
}

// A slice is a conversion too: Replicate -> Shard(1) of (8, 64) bf16 over gpuid_x=2 keeps 8 rows of 32
// columns per device, read at strides (64, 1) from the coordinate's column 32c and written at (32, 1). The 64
// B rows stay whole on both sides: 256 elements x 2 B in and out = 1024 B, at 100 GB/s 1024 / 100e9 s.
TEST(Reshard, SliceIsPlannedAsAConversion) {
  ReshardBandwidths bw;
  bw.local_copy_gbps = 100;
  auto p = plan_reshard(parse("S[(8,64):(64,1)] + R[2:1@gpuid_x]"), parse("S[(8,2,32):(32,1@gpuid_x,1)]"),
                        {8, 64}, {{"gpuid_x", 2}}, DType::kBF16, bw);
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_EQ(ops(*p), (std::vector<std::string>{"slice gpuid_x"}));
  const ReshardStep& s = p->steps[0];
  ASSERT_TRUE(s.convert.has_value());
  EXPECT_EQ(s.convert->elements, 8 * 32);
  EXPECT_EQ(s.convert->kind, ConvertKind::kVector);
  EXPECT_EQ(s.convert->common_vector, 32);
  EXPECT_EQ(s.local_bytes, 1024);
  EXPECT_DOUBLE_EQ(s.predicted_seconds, 1024 / 100e9);
  // The plan reads coordinate 1's part when given the buffer from its offset (column 32): element (r, c) of
  // the result is before's (r, 32 + c).
  std::vector<uint16_t> before(8 * 64), after(8 * 32, 0);
  for (size_t i = 0; i < before.size(); ++i) before[i] = static_cast<uint16_t>(i);
  auto moved = execute_convert_host(*s.convert, std::as_bytes(std::span<const uint16_t>(before)).subspan(64),
                                    std::as_writable_bytes(std::span<uint16_t>(after)));
  ASSERT_TRUE(moved.ok()) << moved.error().message;
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 32; ++c) ASSERT_EQ(after[r * 32 + c], r * 64 + 32 + c) << r << ", " << c;
}

// The local steps as strided copies (local_copy). The slice above: coordinate c reads 8 rows of 32 at strides
// (64, 1) from column 32c and writes them at (32, 1). The permute of PermuteIsPredictedByItsConversionPlan:
// the refinement of dim 0 = (2@x, 4) | 8 and dim 1 = 64 | (2@x, 32) gives pieces (2, 4, 2, 32); before, the
// local ones (4, 2, 32) sit at row-major strides (64, 32, 1); after, the to-side x piece (the 2) is
// outermost, so (4, 2, 32) sits at (32, 128, 1). A collective step is no local copy.
TEST(Reshard, LocalCopyOfASliceAndAPermute) {
  auto sl = plan("S[(8,64):(64,1)] + R[2:1@gpuid_x]", "S[(8,2,32):(32,1@gpuid_x,1)]", {8, 64},
                 {{"gpuid_x", 2}}, DType::kBF16);
  ASSERT_TRUE(sl.ok()) << sl.error().message;
  for (int64_t c : {0, 1}) {
    auto copy = local_copy(sl->steps[0], c);
    ASSERT_TRUE(copy.ok()) << copy.error().message;
    EXPECT_EQ(copy->extent, (std::vector<int64_t>{8, 32}));
    EXPECT_EQ(copy->src_stride, (std::vector<int64_t>{64, 1}));
    EXPECT_EQ(copy->dst_stride, (std::vector<int64_t>{32, 1}));
    EXPECT_EQ(copy->src_base, 32 * c);
  }
  auto pm = plan("S[(2,4,64):(1@gpuid_x,64,1)]", "S[(8,2,32):(32,1@gpuid_x,1)]", {8, 64}, {{"gpuid_x", 2}},
                 DType::kBF16);
  ASSERT_TRUE(pm.ok()) << pm.error().message;
  ASSERT_EQ(pm->steps[0].op, ReshardOp::kPermute);
  auto copy = local_copy(pm->steps[0], 0);
  ASSERT_TRUE(copy.ok()) << copy.error().message;
  EXPECT_EQ(copy->extent, (std::vector<int64_t>{4, 2, 32}));
  EXPECT_EQ(copy->src_stride, (std::vector<int64_t>{64, 32, 1}));
  EXPECT_EQ(copy->dst_stride, (std::vector<int64_t>{32, 128, 1}));
  EXPECT_EQ(copy->src_base, 0);
  auto gather =
      plan("S[(2,4,8):(1@gpuid_x,8,1)]", "S[(8,8):(8,1)] + R[2:1@gpuid_x]", {8, 8}, {{"gpuid_x", 2}});
  ASSERT_TRUE(gather.ok()) << gather.error().message;
  ASSERT_EQ(gather->steps[0].op, ReshardOp::kAllGather);
  auto none = local_copy(gather->steps[0], 0);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message, "local_copy: a all_gather step is no permute or slice");
}

// Partial -> Shard(0) is one reduce_scatter (S = 256 B, sends (n-1)/n S = 128 B); Partial -> Shard(1) first
// brings the scattered piece outermost in local memory.
TEST(Reshard, PartialToShardIsReduceScatter) {
  auto p0 = plan("S[(8,8):(8,1)] + R[4:1@gpuid_y] + P[2:1@gpuid_x]",
                 "S[(2,4,8):(1@gpuid_x,8,1)] + R[4:1@gpuid_y]", {8, 8}, kMesh24);
  ASSERT_TRUE(p0.ok()) << p0.error().message;
  EXPECT_EQ(ops(*p0), (std::vector<std::string>{"reduce_scatter gpuid_x"}));
  EXPECT_EQ(p0->steps[0].size_bytes, 256);
  EXPECT_EQ(p0->steps[0].send_bytes, 128);
  EXPECT_EQ(p0->steps[0].local_after.elements, 32);
  expect_runs(*p0);
  auto p1 = plan("S[(8,8):(8,1)] + R[4:1@gpuid_y] + P[2:1@gpuid_x]",
                 "S[(8,2,4):(4,1@gpuid_x,1)] + R[4:1@gpuid_y]", {8, 8}, kMesh24);
  ASSERT_TRUE(p1.ok()) << p1.error().message;
  EXPECT_EQ(ops(*p1), (std::vector<std::string>{"permute", "reduce_scatter gpuid_x"}));
  expect_runs(*p1);
}

// Shard(0) -> Shard(1) on x is one all_to_all: L = 32 elements, S = 128 B, sends (n-1)/n S = 64 B.
TEST(Reshard, ShardToOtherDimIsAllToAll) {
  auto p = plan("S[(2,4,8):(1@gpuid_x,8,1)] + R[4:1@gpuid_y]", "S[(8,2,4):(4,1@gpuid_x,1)] + R[4:1@gpuid_y]",
                {8, 8}, kMesh24);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(ops(*p), (std::vector<std::string>{"permute", "all_to_all gpuid_x"}));
  EXPECT_EQ(p->steps[1].size_bytes, 128);
  EXPECT_EQ(p->steps[1].send_bytes, 64);
  EXPECT_EQ(p->steps[1].recv_bytes, 64);
  expect_runs(*p);
}

// Replicate -> Shard is a local slice: nothing crosses a link.
TEST(Reshard, ReplicateToShardSlicesLocally) {
  auto p = plan("S[(8,8):(8,1)] + R[(2,4):(1@gpuid_x,1@gpuid_y)]", "S[(2,4,4,2):(1@gpuid_x,2,1@gpuid_y,1)]",
                {8, 8}, kMesh24);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(ops(*p), (std::vector<std::string>{"slice gpuid_y", "slice gpuid_x"}));
  EXPECT_EQ(p->send_bytes, 0);
  EXPECT_EQ(p->steps[1].local_after.elements, 8);
  expect_runs(*p);
}

// (R on x, S(1) on y) -> (S(0) on x, R on y). DTensor's greedy pass walks the inner mesh dim first and would
// gather y on the 8x2 local tensor (sends (4-1) * 16 * 4 B = 192 B) before x slices; slicing first halves
// what the gather moves: 8 elements, (4-1) * 8 * 4 B = 96 B.
TEST(Reshard, ShrinkingStepsRunBeforeGathers) {
  auto p = plan("S[(8,4,2):(2,1@gpuid_y,1)] + R[2:1@gpuid_x]", "S[(2,4,8):(1@gpuid_x,8,1)] + R[4:1@gpuid_y]",
                {8, 8}, kMesh24);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(ops(*p), (std::vector<std::string>{"slice gpuid_x", "all_gather gpuid_y", "permute"}));
  EXPECT_EQ(p->steps[1].local_before.elements, 8);
  EXPECT_EQ(p->send_bytes, 96);
  expect_runs(*p);
}

// An offset moves by send/recv (the whole 256 B from x = 1 to x = 0), and becomes a replica by broadcast.
TEST(Reshard, OffsetsMoveBySendRecvAndBroadcast) {
  auto p = plan("S[(8,8):(8,1)] + R[4:1@gpuid_y] + O[1@gpuid_x]", "S[(8,8):(8,1)] + R[4:1@gpuid_y]", {8, 8},
                kMesh24);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(ops(*p), (std::vector<std::string>{"send_recv gpuid_x"}));
  EXPECT_EQ(p->steps[0].root, 1);
  EXPECT_EQ(p->steps[0].target, 0);
  EXPECT_EQ(p->steps[0].send_bytes, 256);
  EXPECT_DOUBLE_EQ(p->steps[0].predicted_seconds, 256 / 360e9);
  expect_runs(*p);
  auto b = plan("S[(8,8):(8,1)] + R[4:1@gpuid_y]", "S[(8,8):(8,1)] + R[(2,4):(1@gpuid_x,1@gpuid_y)]", {8, 8},
                kMesh24);
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_EQ(ops(*b), (std::vector<std::string>{"broadcast gpuid_x"}));
  EXPECT_EQ(b->steps[0].root, 0);
  expect_runs(*b);
}

// Shard -> Partial has no direct rule: gather to a replica, then partition (coordinate 0 keeps the value).
TEST(Reshard, ShardToPartialGoesThroughReplicate) {
  auto p = plan("S[(2,4,8):(1@gpuid_x,8,1)] + R[4:1@gpuid_y]",
                "S[(8,8):(8,1)] + R[4:1@gpuid_y] + P[2:1@gpuid_x]", {8, 8}, kMesh24);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(ops(*p), (std::vector<std::string>{"all_gather gpuid_x", "partition gpuid_x"}));
  expect_runs(*p);
}

// Swapping which axis shards which dimension is a cycle (each target piece is held by the other axis): the
// inner axis gathers first (L = 4, sends 1 * 4 * 4 B = 16 B), x moves by all_to_all (L = 8, sends 16 B) and y
// slices its new piece.
TEST(Reshard, SwappedShardsBreakTheCycleThroughReplicate) {
  auto p = plan("S[(2,2,2,2):(1@gpuid_x,2,1@gpuid_y,1)]", "S[(2,2,2,2):(1@gpuid_y,2,1@gpuid_x,1)]", {4, 4},
                kMesh22);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(ops(*p), (std::vector<std::string>{"all_gather gpuid_y", "all_to_all gpuid_x", "slice gpuid_y"}));
  EXPECT_EQ(p->steps[0].send_bytes, 16);
  EXPECT_EQ(p->steps[1].local_before.elements, 8);
  EXPECT_EQ(p->steps[1].send_bytes, 16);
  expect_runs(*p);
}

// The same shard moved to the other axis (x: 2 ways -> y: 4 ways): y's target covers the piece x holds, so x
// gathers first (L = 4 x 8, sends 1 * 32 * 4 B) and y slices (a run of two pieces: dimension 0 is cut at 2
// and at 4 by the two layouts).
TEST(Reshard, ShardMovesBetweenAxesOfDifferentSizes) {
  auto p = plan("S[(2,4,8):(1@gpuid_x,8,1)] + R[4:1@gpuid_y]", "S[(4,2,8):(1@gpuid_y,8,1)] + R[2:1@gpuid_x]",
                {8, 8}, kMesh24);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(ops(*p), (std::vector<std::string>{"all_gather gpuid_x", "slice gpuid_y"}));
  EXPECT_EQ(p->steps[0].send_bytes, 1 * 32 * 4);
  EXPECT_EQ(p->steps[1].local_after.elements, 16);
  expect_runs(*p);
}

// A mesh axis of 3 over a 6x4 fp32 tensor (24 elements, 96 B): all_gather from 8 per device sends
// (3-1) * 8 * 4 = 64 B (S = 96 B, factor 2/3); reduce_scatter of the whole 96 B sends 2/3 of it, 64 B;
// all_reduce sends 2 * 2/3 * 96 = 128 B.
TEST(Reshard, AxisOfThree) {
  const Mesh dp = {{"dp", 3}};
  auto ag = plan("S[(3,2,4):(1@dp,4,1)]", "S[(6,4):(4,1)] + R[3:1@dp]", {6, 4}, dp);
  ASSERT_TRUE(ag.ok()) << ag.error().message;
  EXPECT_EQ(ops(*ag), (std::vector<std::string>{"all_gather dp"}));
  EXPECT_EQ(ag->steps[0].size_bytes, 96);
  EXPECT_EQ(ag->steps[0].send_bytes, 64);
  EXPECT_DOUBLE_EQ(ag->steps[0].bus_factor, 2.0 / 3.0);
  expect_runs(*ag);
  auto rs = plan("S[(6,4):(4,1)] + P[3:1@dp]", "S[(3,2,4):(1@dp,4,1)]", {6, 4}, dp);
  ASSERT_TRUE(rs.ok()) << rs.error().message;
  EXPECT_EQ(ops(*rs), (std::vector<std::string>{"reduce_scatter dp"}));
  EXPECT_EQ(rs->steps[0].send_bytes, 64);
  expect_runs(*rs);
  auto ar = plan("S[(6,4):(4,1)] + P[3:1@dp]", "S[(6,4):(4,1)] + R[3:1@dp]", {6, 4}, dp);
  ASSERT_TRUE(ar.ok()) << ar.error().message;
  EXPECT_EQ(ar->steps[0].send_bytes, 128);
  expect_runs(*ar);
}

TEST(Reshard, ErrorsNameTheProblem) {
  auto size = plan("S[(2,8):(1@gpuid_x,1)]", "S[(2,4):(1@gpuid_x,1)] + R[4:1@gpuid_y]", {16}, kMesh24);
  ASSERT_FALSE(size.ok());
  EXPECT_EQ(size.error().code, "size-mismatch");
  auto shape = plan("S[(2,8):(1@gpuid_x,1)]", "S[(2,8):(1@gpuid_x,1)]", {4, 8}, kMesh24);
  ASSERT_FALSE(shape.ok());
  EXPECT_EQ(shape.error().field, "shape");

  auto axis = plan("S[(2,8):(1@gpuid_z,1)]", "S[16:1]", {16}, kMesh24);
  ASSERT_FALSE(axis.ok());
  EXPECT_EQ(axis.error().code, "mesh-axis");
  EXPECT_EQ(axis.error().field, "from");
  EXPECT_NE(axis.error().message.find("gpuid_z"), std::string::npos) << axis.error().message;

  auto twice = plan("S[16:1]", "S[(2,8):(1@gpuid_x,1)] + R[2:1@gpuid_x]", {16}, kMesh24);
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().code, "mesh-axis");
  EXPECT_EQ(twice.error().field, "to");
  EXPECT_NE(twice.error().message.find("used twice"), std::string::npos) << twice.error().message;

  // Extent 4 on an axis of 2: elements 8..15 would sit on gpuid_x = 2, 3, devices the mesh does not have.
  auto outside = plan("S[(4,4):(1@gpuid_x,1)]", "S[16:1]", {16}, kMesh24);
  ASSERT_FALSE(outside.ok());
  EXPECT_EQ(outside.error().code, "coverage");
  EXPECT_NE(outside.error().message.find("gpuid_x = 3"), std::string::npos) << outside.error().message;
  // Two elements on one local slot.
  auto alias = plan("S[(2,8):(1@gpuid_x,0)] + R[4:1@gpuid_y]", "S[16:1]", {16}, kMesh24);
  ASSERT_FALSE(alias.ok());
  EXPECT_EQ(alias.error().code, "coverage");

  // A gap in local memory: stride 2 over 8 slots per device.
  auto gap = plan("S[(2,8):(1@gpuid_x,2)] + R[4:1@gpuid_y]", "S[16:1]", {16}, kMesh24);
  ASSERT_FALSE(gap.ok());
  EXPECT_EQ(gap.error().code, "coverage");
  EXPECT_NE(gap.error().message.find("unused"), std::string::npos) << gap.error().message;

  // Half of an axis, a stride on an axis, a swizzle: not a placement.
  auto half = plan("S[(2,8):(1@gpuid_y,1)]", "S[16:1]", {16}, kMesh24);
  ASSERT_FALSE(half.ok());
  EXPECT_EQ(half.error().code, "not-expressible");
  auto swz = plan("Swizzle<1,0,1> o S[16:1]", "S[16:1]", {16}, kMesh24);
  ASSERT_FALSE(swz.ok());
  EXPECT_EQ(swz.error().code, "not-expressible");
}

TEST(Reshard, ParseMesh) {
  auto m = parse_mesh("gpuid_x=2,gpuid_y=4");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(*m, kMesh24);
  auto bad = parse_mesh("gpuid_x=2,gpuid_y");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().column, 11);
  auto twice = parse_mesh("x=2,x=4");
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().column, 5);
  EXPECT_EQ(twice.error().code, "mesh-axis");
  auto zero = parse_mesh("x=0");
  ASSERT_FALSE(zero.ok());
}

// A mesh of size-1 axes is checked in one pass and bounded in length: 64 axes are a mesh, the 65th is refused
// at its own column (entry k of "a0=1,a1=1,..." starts after the k earlier entries), and so is a 51 KB
// mesh of 6,500 axes, at the same entry.
TEST(Reshard, ParseMeshBoundsTheAxes) {
  auto axes = [](int n) {
    std::string t;
    for (int k = 0; k < n; ++k) t += (k ? ",a" : "a") + std::to_string(k) + "=1";
    return t;
  };
  auto ok = parse_mesh(axes(64));
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->size(), 64u);
  const std::string first64 = axes(64);
  for (int n : {65, 6500}) {
    auto over = parse_mesh(axes(n));
    ASSERT_FALSE(over.ok());
    EXPECT_EQ(over.error().field, "mesh");
    EXPECT_EQ(over.error().code, "range");
    EXPECT_EQ(over.error().column, static_cast<int>(first64.size()) + 2);  // past "...,a63=1,"
  }
  // A name repeated after many others is still found (each name checked against all before it).
  auto twice = parse_mesh(axes(40) + ",a3=2");
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().code, "mesh-axis");
}

// ---- the sweep -------------------------------------------------------------------------------------------

// One mesh axis's placement in a generated layout of a 2-D tensor.
struct AxisSpec {
  char kind;  // 'S' shard, 'R', 'P', 'O'
  int dim = 0;
  int64_t coord = 0;
};

// The layout text: each dimension split into its sharding axes (in mesh order, or reversed) and a local rest;
// the local rests row-major, or column-major when `transposed`.
std::string layout_text(const Mesh& mesh, const std::vector<int64_t>& shape,
                        const std::vector<AxisSpec>& spec, bool reversed, bool transposed) {
  std::vector<std::string> extents, strides;
  std::vector<int64_t> rest(shape);
  std::vector<std::vector<int>> by_dim(shape.size());
  for (size_t a = 0; a < mesh.size(); ++a) {
    if (spec[a].kind == 'S') {
      by_dim[spec[a].dim].push_back(static_cast<int>(a));
      rest[spec[a].dim] /= mesh[a].second;
    }
  }
  const int64_t local_stride0 = transposed ? 1 : rest[1];
  const int64_t local_stride1 = transposed ? rest[0] : 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    std::vector<int> axes = by_dim[d];
    if (reversed) std::reverse(axes.begin(), axes.end());
    for (int a : axes) {
      extents.push_back(std::to_string(mesh[a].second));
      strides.push_back("1@" + mesh[a].first);
    }
    extents.push_back(std::to_string(rest[d]));
    strides.push_back(std::to_string(d == 0 ? local_stride0 : local_stride1));
  }
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
    return s;
  };
  std::string text = "S[(" + join(extents) + "):(" + join(strides) + ")]";
  for (char k : {'R', 'P'}) {
    std::vector<std::string> e, s;
    for (size_t a = 0; a < mesh.size(); ++a) {
      if (spec[a].kind == k) {
        e.push_back(std::to_string(mesh[a].second));
        s.push_back("1@" + mesh[a].first);
      }
    }
    if (!e.empty()) text += std::string(" + ") + k + "[(" + join(e) + "):(" + join(s) + ")]";
  }
  for (size_t a = 0; a < mesh.size(); ++a) {
    if (spec[a].kind == 'O') text += " + O[" + std::to_string(spec[a].coord) + "@" + mesh[a].first + "]";
  }
  return text;
}

std::vector<std::string> all_layouts(const Mesh& mesh, const std::vector<int64_t>& shape) {
  const std::vector<AxisSpec> options = {{'S', 0}, {'S', 1}, {'R'}, {'P'}, {'O', 0, 0}, {'O', 0, 1}};
  std::vector<std::string> out;
  for (const AxisSpec& ax : options) {
    for (const AxisSpec& ay : options) {
      for (int variant = 0; variant < 4; ++variant) {
        const bool reversed = variant & 1, transposed = variant & 2;
        if (reversed && !(ax.kind == 'S' && ay.kind == 'S' && ax.dim == ay.dim)) continue;
        out.push_back(layout_text(mesh, shape, {ax, ay}, reversed, transposed));
      }
    }
  }
  return out;
}

// Every pair of generated layouts on 2x4 over an 8x8 tensor: the plan exists, reaches the destination's
// placements, uses at most two steps per axis that changes plus permutes, and the host run matches the
// destination element by element (and every step's own mesh layout on the way).
TEST(Reshard, EveryPairRunsExactlyOnTwoByFour) {
  const std::vector<int64_t> shape = {8, 8};
  const std::vector<std::string> layouts = all_layouts(kMesh24, shape);
  // 6 placements per axis, squared, times two local orders; plus x and y both on one dimension in either
  // nesting order (2 dims x 2 local orders more).
  ASSERT_EQ(layouts.size(), 6u * 6u * 2u + 4u);
  int64_t pairs = 0, collectives = 0;
  for (const std::string& from : layouts) {
    for (const std::string& to : layouts) {
      auto p = plan(from, to, shape, kMesh24, DType::kBF16);
      ASSERT_TRUE(p.ok()) << from << " -> " << to << ": " << p.error().message;
      EXPECT_EQ(p->steps.empty() ? p->from_placements : p->steps.back().placements_after, p->to_placements)
          << from << " -> " << to;
      int changed = 0;
      for (size_t a = 0; a < kMesh24.size(); ++a)
        changed += p->from_placements[a] == p->to_placements[a] ? 0 : 1;
      int non_permute = 0;
      for (const ReshardStep& s : p->steps) {
        non_permute += s.op == ReshardOp::kPermute ? 0 : 1;
        collectives += is_collective(s.op) ? 1 : 0;
      }
      EXPECT_LE(non_permute, 2 * changed + 1) << from << " -> " << to;
      if (from == to) EXPECT_TRUE(p->steps.empty()) << from;
      expect_runs(*p);
      if (HasFatalFailure()) return;
      ++pairs;
    }
  }
  EXPECT_EQ(pairs, static_cast<int64_t>(layouts.size() * layouts.size()));
  EXPECT_GT(collectives, pairs);
}

// A 1-D mesh of 4 and a 2x2 mesh over tensors whose dimensions the axes split unevenly into pieces.
TEST(Reshard, SmallerMeshesRunExactly) {
  for (const Mesh& mesh : {Mesh{{"dp", 4}}, kMesh22}) {
    const std::vector<int64_t> shape = {4, 8};
    std::vector<std::string> layouts;
    const std::vector<AxisSpec> options = {{'S', 0}, {'S', 1}, {'R'}, {'P'}, {'O', 0, 1}};
    if (mesh.size() == 1) {
      for (const AxisSpec& a : options) {
        for (bool t : {false, true}) layouts.push_back(layout_text(mesh, shape, {a}, false, t));
      }
    } else {
      layouts = all_layouts(mesh, shape);
    }
    for (const std::string& from : layouts) {
      for (const std::string& to : layouts) {
        auto p = plan(from, to, shape, mesh, DType::kF16);
        ASSERT_TRUE(p.ok()) << from << " -> " << to << ": " << p.error().message;
        expect_runs(*p);
        if (HasFatalFailure()) return;
      }
    }
  }
}

}  // namespace
}  // namespace layoutscope

namespace layoutscope {
namespace {

// S[(2,4):(1@x,1)] on x=2, y=2: elements 0..3 on x = 0, 4..7 on x = 1 (the outer digit), each at @m = its
// inner digit; y is not named, so it sits at 0: devices 0 (x=0,y=0) and 2 (x=1,y=0), row-major over (x, y).
TEST(MeshPlacement, PutsEachHolderOnItsDevice) {
  auto l = parse_layout("S[(2,4):(1@x,1)]");
  ASSERT_TRUE(l.ok());
  const Mesh mesh = {{"x", 2}, {"y", 2}};
  auto p = place_on_mesh(*l, {8}, mesh, 1 << 10);
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_EQ(p->table.axes.size(), 2u);
  const size_t na = p->table.axes.size();
  for (int64_t x = 0; x < 8; ++x) {
    const int64_t* pos = &p->table.values[static_cast<size_t>(x) * na];
    EXPECT_EQ(mesh_device(*p, mesh, pos), x < 4 ? 0 : 2) << "element " << x;
    EXPECT_EQ(pos[p->m_axis], x % 4) << "element " << x;
  }
  EXPECT_EQ(p->mesh_of_axis[static_cast<size_t>(1 - p->m_axis)], 0);  // the other axis is x, mesh axis 0
}

}  // namespace
}  // namespace layoutscope
