#include "common/paging.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(ParsePageTest, DefaultsAndBounds) {
  auto d = ParsePage(0, 0);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->size, kDefaultPageSize);
  EXPECT_EQ(d->offset, 0);
  auto max = ParsePage(1000, 2147483647u);
  ASSERT_TRUE(max.ok());
  EXPECT_EQ(max->size, 1000);
  EXPECT_EQ(max->offset, 2147483647);
  EXPECT_TRUE(absl::IsInvalidArgument(ParsePage(1001, 0).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(ParsePage(1, 2147483648u).status()));
}

}  // namespace
}  // namespace sluice
