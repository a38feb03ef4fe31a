#include <gtest/gtest.h>
#include "absl/status/status.h"
TEST(Smoke, Works) { EXPECT_TRUE(absl::OkStatus().ok()); }
