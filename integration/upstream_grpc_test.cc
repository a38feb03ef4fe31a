#include "integration/upstream_grpc.h"

#include <gtest/gtest.h>

namespace sluice::integration::upstream {
namespace {

using nlohmann::json;

TEST(CompareWithRest, EqualValuesAndUpstreamOnlyDefaultsPass) {
  json grpc = {{"provider", {{"id", "p1"}, {"urn", "u"}, {"labels", json::object()}, {"size", 0}}}};
  json rest = {{"provider", {{"id", "p1"}, {"urn", "u"}, {"extra", true}}}};
  EXPECT_TRUE(CompareWithRest(grpc, rest).empty());
}

TEST(CompareWithRest, NamesEachDifferenceByPath) {
  json grpc = {{"items", {{{"id", "a"}}, {{"id", "b"}}}}, {"only_grpc", "x"}};
  json rest = {{"items", {{{"id", "a"}}, {{"id", "c"}}}}};
  EXPECT_EQ(CompareWithRest(grpc, rest),
            (std::vector<std::string>{"items[1].id: grpc \"b\", rest \"c\"",
                                      "only_grpc: grpc \"x\", REST has no such field"}));
}

TEST(CompareWithRest, ARestAnswerThatIsNotJsonDiffers) {
  EXPECT_FALSE(CompareWithRest(json{{"id", "a"}}, json()).empty());
}

}  // namespace
}  // namespace sluice::integration::upstream
