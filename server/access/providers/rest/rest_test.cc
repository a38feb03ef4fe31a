#include "server/access/providers/rest/rest.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "server/access/providers/testing/fake_rest_server.h"

namespace sluice::access::rest {
namespace {

using testing::FakeRequest;
using testing::FakeResponse;
using testing::FakeRestServer;

TEST(RestTest, JsonCallsAndFaults) {
  auto server = FakeRestServer::Start([](const FakeRequest& r) {
    return FakeResponse{200, {{"path", r.path}, {"q", r.Query("query")}, {"body", r.Json()}}};
  });
  ASSERT_NE(server, nullptr);
  auto http = NewCurlHttpClient();
  JsonCall call{
      "POST", server->base_url() + "/api/x?query=a%40b.com", {}, nlohmann::json{{"k", 1}}};
  auto r = DoJson(*http, call, {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body["path"], "/api/x");
  EXPECT_EQ(r->body["q"], "a@b.com");
  EXPECT_EQ(r->body["body"]["k"], 1);

  server->Inject({"POST", "/api/x", 503});
  r = DoJson(*http, call, {});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(absl::IsUnavailable(VendorError("x", *r)));
  server->Inject({"", "/api", 403});
  r = DoJson(*http, call, {});
  EXPECT_TRUE(absl::IsFailedPrecondition(VendorError("x", *r)));
  server->Inject({"", "/api", 0, nullptr, absl::Milliseconds(600)});
  CallLimits quick;
  quick.timeout = absl::Milliseconds(200);
  EXPECT_TRUE(absl::IsDeadlineExceeded(DoJson(*http, call, quick).status()));
  EXPECT_EQ(server->Count("POST", "/api/x"), 4);
}

TEST(RestTest, SessionsAreCachedAndRenewedOn401) {
  std::atomic<int> valid{1};
  auto server = FakeRestServer::Start([&](const FakeRequest& r) {
    if (r.Header("x-token") != std::to_string(valid.load())) return FakeResponse{401, nullptr};
    return FakeResponse{200, {{"ok", true}}};
  });
  auto http = NewCurlHttpClient();
  SessionCache cache;
  int next = 0;
  auto sign_in = [&]() -> absl::StatusOr<Session> { return Session{std::to_string(++next)}; };
  auto call = [&](const Session& s) {
    return DoJson(*http, {"GET", server->base_url() + "/x", {"X-Token: " + s.token}}, {});
  };
  for (int i = 0; i < 3; ++i) {
    auto r = cache.Call("k", sign_in, call);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->status, 200);
  }
  EXPECT_EQ(cache.sign_ins(), 1);
  valid = 2;  // the vendor ended session 1
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] { ok += cache.Call("k", sign_in, call)->status == 200; });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok, 8);
  EXPECT_EQ(cache.sign_ins(), 2);  // one renewal for the burst
  EXPECT_NE(SessionKey({"h", "u", "secret"}).find("h\nu\n"), std::string::npos);
  EXPECT_EQ(SessionKey({"h", "u", "secret"}).find("secret"), std::string::npos);
}

}  // namespace
}  // namespace sluice::access::rest
