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

TEST(ParseListPageTest, UnsetSizeIsTheMaximum) {
  auto d = ParseListPage(0, 0, 1000);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->size, 1000);
  auto small = ParseListPage(0, 5, 20);
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(small->size, 20);
  EXPECT_EQ(small->offset, 5);
  auto bad = ParseListPage(21, 0, 20);
  EXPECT_TRUE(absl::IsInvalidArgument(bad.status()));
  EXPECT_NE(bad.status().message().find("size: at most 20"), std::string::npos);
}

}  // namespace
}  // namespace sluice
