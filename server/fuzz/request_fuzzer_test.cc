// The request fuzzer's coverage, in the normal build: its routes are the
// protos' write routes, each has a seed in corpus/, each seed names its
// route, and each seed runs through the fuzzer's dispatch without a failure
// (a failure aborts this test). A route added to a proto without a seed, or
// whose service grpc_routes.cc does not serve, fails here.
#include <dirent.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "server/fuzz/grpc_routes.h"
#include "server/fuzz/request_dispatch.h"
#include "server/fuzz/request_routes.h"
#include "server/fuzz/write_routes.h"

namespace sluice::fuzz {
namespace {

constexpr char kCorpus[] = "server/fuzz/corpus";

// name → content of every seed.
std::map<std::string, std::string> Seeds() {
  std::map<std::string, std::string> out;
  DIR* dir = opendir(kCorpus);
  if (dir == nullptr) return out;
  while (dirent* e = readdir(dir)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    std::ifstream in(std::string(kCorpus) + "/" + name, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    out[name] = ss.str();
  }
  closedir(dir);
  return out;
}

class RequestFuzzerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { InitRequestFuzzing(); }
};

TEST_F(RequestFuzzerTest, RoutesAreTheProtosWriteBindings) {
  std::set<std::string> keys;
  for (const WriteRoute& r : WriteRoutes()) {
    EXPECT_NE(r.key.rfind("GET ", 0), 0u) << r.key;
    EXPECT_TRUE(keys.insert(r.key).second) << "two bindings " << r.key;
    ASSERT_NE(r.method, nullptr);
  }
  // A sample across services, verbs and body kinds.
  for (const char* k : {"POST /api/v1beta1/appeals", "PUT /api/v1beta1/resources/{id}",
                        "DELETE /api/v1beta1/providers/{id}", "PATCH /api/v1beta1/grants/{id}",
                        "POST /api/v1beta1/appeals/revoke", "DELETE /api/v1beta1/templates/{name}",
                        "POST /api/v1beta1/alerts/{provider_type}/{provider_id}"}) {
    EXPECT_EQ(keys.count(k), 1u) << k;
  }
  EXPECT_GE(keys.size(), 31u);
}

TEST_F(RequestFuzzerTest, EveryRouteIsServed) {
  std::set<std::string> served(ServedApis::Get().services().begin(),
                               ServedApis::Get().services().end());
  for (const WriteRoute& r : WriteRoutes()) {
    EXPECT_EQ(served.count(r.method->service()->full_name()), 1u)
        << r.key << ": " << r.method->service()->full_name()
        << " is not served by server/fuzz/grpc_routes.cc";
  }
  std::set<std::string> keys;
  for (const WriteRoute& r : WriteRoutes()) keys.insert(r.key);
  for (const auto& [key, fn] : DeepRoutes()) EXPECT_EQ(keys.count(key), 1u) << key;
}

TEST_F(RequestFuzzerTest, EveryRouteHasASeedNamingIt) {
  std::map<std::string, int> per_route;
  for (const auto& [name, content] : Seeds()) {
    absl::string_view body;
    bool named = false;
    const WriteRoute& r = PickRoute(content, &body, &named);
    EXPECT_TRUE(named) << "seed " << name << " does not start with a route line";
    if (named) ++per_route[r.key];
  }
  for (const WriteRoute& r : WriteRoutes()) {
    EXPECT_GT(per_route[r.key], 0) << "no seed in " << kCorpus << " for " << r.key
                                   << " (first line: the route, then its JSON body; see "
                                      "server/fuzz/request_dispatch.h)";
  }
}

TEST_F(RequestFuzzerTest, EverySeedRunsAndGenericSeedsReachTheHandler) {
  // route → the codes its generic seeds ended with.
  std::map<std::string, std::vector<int>> codes;
  for (const auto& [name, content] : Seeds()) {
    Outcome out = RunInput(content);
    if (out.deep) continue;
    EXPECT_TRUE(out.parsed) << name << ": the body is not a " << out.route->method->input_type()->full_name();
    codes[out.route->key].push_back(out.code);
    std::printf("%-40s %-60s %d %s\n", name.c_str(), out.route->key.c_str(), out.code,
                out.message.c_str());
  }
  for (const WriteRoute& r : WriteRoutes()) {
    if (DeepRoutes().count(r.key) > 0) continue;
    bool reached = false;
    for (int c : codes[r.key]) {
      reached |= c != grpc::StatusCode::PERMISSION_DENIED && c != grpc::StatusCode::UNAUTHENTICATED;
    }
    EXPECT_TRUE(reached) << r.key << ": no seed gets past authentication and authorization";
  }
}

}  // namespace
}  // namespace sluice::fuzz
