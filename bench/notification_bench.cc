// Notification API throughput on this machine (prints figures; no timed
// assertions). Real PostgreSQL, sluice-server, gateway, and a local HTTP
// receiver in this process.
//
//   scripts/with-postgres.sh bazel test //bench:notification_bench --test_output=all
//
// 1. accepted/s: POST notifications (one http receiver each) over gRPC and
//    over REST through the gateway, 8 client threads, with delivery off.
// 2. delivered/s: restart the server with workers on and time until the
//    receiver got every queued message (each marked published).
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <thread>

#include "integration/fake_http_server.h"
#include "integration/notification_helpers.h"
#include "proto/sluice/notification/v1beta1/notification.grpc.pb.h"

namespace sluice::integration {
namespace {

namespace pb = ::sluice::notification::v1beta1;

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : fallback;
}

TEST(NotificationBench, AcceptAndDeliver) {
  const int kGrpc = EnvInt("BENCH_GRPC_NOTIFICATIONS", 4000);
  const int kRest = EnvInt("BENCH_REST_NOTIFICATIONS", 2000);
  const int kThreads = 8;
  Stack::Options opts;
  opts.config_yaml = "notification:\n  workers: 0\n";
  opts.server_env = {{"SLUICE_LOG_LEVEL", "warn"}, {"SLUICE_DB_POOL_SIZE", "16"}};
  auto stack = Stack::Start(opts);
  ASSERT_TRUE(stack.ok()) << stack.status();
  auto fake = FakeHttpServer::Start();
  NotificationApi api(stack->get());
  api.CreateReceiver({{"name", "bench"}, {"type", "http"}, {"labels", {{"bench", "yes"}}},
                      {"configurations", {{"url", fake->Url("/bench")}}}});

  // --- 1a. gRPC accept rate.
  auto channel = grpc::CreateChannel((*stack)->grpc_target(), grpc::InsecureChannelCredentials());
  auto stub = pb::NotificationService::NewStub(channel);
  pb::PostNotificationRequest req;
  (*req.add_receivers()->mutable_fields())["bench"].set_string_value("yes");
  (*req.mutable_data()->mutable_fields())["text"].set_string_value("benchmark message");
  std::atomic<int> next{0}, errors{0};
  absl::Time t0 = absl::Now();
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      while (next.fetch_add(1) < kGrpc) {
        grpc::ClientContext ctx;
        ctx.AddMetadata("x-auth-email", "bench@example.com");
        ctx.AddMetadata("x-sluice-proxy-token", (*stack)->proxy_token());
        pb::PostNotificationResponse resp;
        if (!stub->PostNotification(&ctx, req, &resp).ok()) ++errors;
      }
    });
  }
  for (auto& t : threads) t.join();
  double grpc_s = absl::ToDoubleSeconds(absl::Now() - t0);
  EXPECT_EQ(errors.load(), 0);

  // --- 1b. REST accept rate through the gateway.
  std::string body = R"({"receivers":[{"bench":"yes"}],"data":{"text":"benchmark message"}})";
  std::string url = api.Url("/notifications");
  next = 0;
  threads.clear();
  t0 = absl::Now();
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      while (next.fetch_add(1) < kRest) {
        // As a notification admin (the stack's kTestNotificationAdmins), like the gRPC part.
        if (Http("POST", url, body, {"X-Auth-Email: bench@example.com"}).status != 200) ++errors;
      }
    });
  }
  for (auto& t : threads) t.join();
  double rest_s = absl::ToDoubleSeconds(absl::Now() - t0);
  EXPECT_EQ(errors.load(), 0);

  // --- 2. Delivery rate: the queue holds kGrpc + kRest messages.
  const size_t total = kGrpc + kRest;
  ASSERT_TRUE((*stack)
                  ->RestartServer("notification:\n  workers: 8\n  batch_size: 32\n"
                                  "  poll_interval_ms: 50\n")
                  .ok());
  t0 = absl::Now();
  bool all = fake->WaitForRequests("/bench", total, absl::Minutes(5));
  double deliver_s = absl::ToDoubleSeconds(absl::Now() - t0);
  EXPECT_TRUE(all) << fake->Requests("/bench").size() << " of " << total;
  // Every message ends published.
  api.WaitSettled(1, absl::Seconds(30));

  std::printf("\n=== notification bench (%d client threads) ===\n", kThreads);
  std::printf("accepted via gRPC : %6d in %6.2f s = %8.0f notifications/s\n", kGrpc, grpc_s,
              kGrpc / grpc_s);
  std::printf("accepted via REST : %6d in %6.2f s = %8.0f notifications/s\n", kRest, rest_s,
              kRest / rest_s);
  std::printf("delivered (http)  : %6zu in %6.2f s = %8.0f messages/s (8 workers, batch 32,"
              " incl. server start)\n",
              total, deliver_s, total / deliver_s);
}

}  // namespace
}  // namespace sluice::integration
