// The run store's device set logic (agent/jobs/device_holds.hpp): a run over several devices holds all of
// them, claims are all or none, and finishing a run frees exactly its devices.
#include "jobs/device_holds.hpp"

#include <gtest/gtest.h>

namespace layoutscope::agent {
namespace {

TEST(DeviceHolds, AReshardOverFourDevicesHoldsEachOfThem) {
  DeviceHolds h;
  ASSERT_TRUE(h.claim({0}));
  ASSERT_TRUE(h.claim({0, 1, 2, 3}, {0}));
  h.assign({0, 1, 2, 3}, "reshard-1");
  for (int d = 0; d < 4; ++d) {
    const auto t = h.taken({d});
    ASSERT_TRUE(t.has_value()) << "device " << d;
    EXPECT_EQ(t->device, d);
    EXPECT_EQ(t->run_id, "reshard-1");
  }
  EXPECT_FALSE(h.taken({4}).has_value());
  // A run on device 1 is refused; one on device 4 is not.
  EXPECT_FALSE(h.claim({1}));
  EXPECT_TRUE(h.claim({4}));
}

TEST(DeviceHolds, AClaimIsAllOrNone) {
  DeviceHolds h;
  ASSERT_TRUE(h.claim({2}));
  h.assign({2}, "run-on-2");
  ASSERT_TRUE(h.claim({0}));
  // Extending the claim on 0 to {0, 1, 2, 3} fails on device 2 and leaves 1 and 3 free.
  EXPECT_FALSE(h.claim({0, 1, 2, 3}, {0}));
  const auto t = h.taken({0, 1, 2, 3}, {0});
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->device, 2);
  EXPECT_EQ(t->run_id, "run-on-2");
  EXPECT_FALSE(h.taken({1}).has_value());
  EXPECT_FALSE(h.taken({3}).has_value());
  // Device 0 is still claimed (by a request being checked: no run id).
  const auto c = h.taken({0});
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->run_id, "");
}

TEST(DeviceHolds, FinishFreesExactlyTheRunsDevices) {
  DeviceHolds h;
  ASSERT_TRUE(h.claim({0, 1}));
  h.assign({0, 1}, "a");
  ASSERT_TRUE(h.claim({2, 3}));
  h.assign({2, 3}, "b");
  h.finish("a");
  EXPECT_FALSE(h.run_on(0).has_value());
  EXPECT_FALSE(h.run_on(1).has_value());
  EXPECT_EQ(h.run_on(2), "b");
  EXPECT_EQ(h.run_on(3), "b");
  EXPECT_TRUE(h.claim({0, 1}));
}

TEST(DeviceHolds, AReleasedClaimFreesItsDevices) {
  DeviceHolds h;
  ASSERT_TRUE(h.claim({0, 1, 2}));
  EXPECT_FALSE(h.claim({1}));
  h.release({0, 1, 2});
  EXPECT_TRUE(h.claim({1}));
  EXPECT_FALSE(h.taken({0, 2}).has_value());
}

}  // namespace
}  // namespace layoutscope::agent
