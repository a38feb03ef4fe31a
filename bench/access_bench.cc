// Access API benchmark (prints figures; no timed assertions). Brings up a
// fresh database + sluice-server + sluice-gateway (integration harness) and
// measures, with a C++ gRPC client:
//   1. CreateAppeal throughput (pending appeals, one manual step; 32 client
//      threads), with access events on (the default: each appeal also writes
//      its appeal.created outbox row and the dispatcher posts it to the
//      notification API) beside events off (every type in
//      access.notifications.disabled_events) from the same run; again with
//      grpc_threads=2, gRPC's default, for the ratio; and fully auto-approved
//      ones, which also grant in the noop provider and write the grant;
//   2. ListGrants p50/p99 on 1,000,000 grants (seeded with INSERT … SELECT
//      generate_series) filtered by account and status, over gRPC;
//   3. the same call through the gateway (HTTP/JSON) and the latency ratio.
//
//   scripts/with-postgres.sh bazel run //bench:access_bench [-- --grants 1000000]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <thread>

#include <grpcpp/grpcpp.h>
#include <soci/postgresql/soci-postgresql.h>
#include <soci/soci.h>

#include "absl/strings/str_cat.h"
#include "integration/harness.h"
#include "proto/sluice/access/v1beta1/appeal.grpc.pb.h"

namespace {

using sluice::integration::Http;
using sluice::integration::Stack;
namespace pb = ::sluice::access::v1beta1;
using Clock = std::chrono::steady_clock;

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
}

std::string Post(const Stack& s, const std::string& path, const std::string& body) {
  auto r = Http("POST", s.http_base() + "/api/v1beta1" + path, body, {"X-Auth-Email: bench@example.com"});
  if (r.status != 200) {
    std::fprintf(stderr, "setup %s failed: %ld %s\n", path.c_str(), r.status, r.body.c_str());
    std::exit(1);
  }
  return r.body;
}

// Creates a policy and a noop provider; returns the provider's resource id.
std::string Setup(const Stack& s, const std::string& name, const std::string& step) {
  Post(s, "/policies", R"({"id":")" + name + R"(","steps":[)" + step +
                           R"(],"appeal":{"allow_permanent_access":true,"allow_on_behalf":true}})");
  Post(s, "/providers", R"({"type":"noop","urn":")" + name +
                            R"(","allowed_account_types":["user"],"resources":[{"type":"noop","policy":{"id":")" +
                            name + R"(","version":1},"roles":[{"id":"viewer"}]}]})");
  auto r = Http("GET", s.http_base() + "/api/v1beta1/resources?urn=" + name, "",
                {"X-Auth-Email: bench@example.com"});
  return r.Json()["resources"][0]["id"];
}

// Creates `total` appeals from `threads` client threads; returns appeals/s.
double CreateThroughput(const Stack& s, const std::string& resource_id, const std::string& label,
                        int total, int threads) {
  auto channel = grpc::CreateChannel(s.grpc_target(), grpc::InsecureChannelCredentials());
  std::atomic<int> next{0}, errors{0};
  std::vector<std::thread> pool;
  auto start = Clock::now();
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      // One channel per few threads spreads work over HTTP/2 connections.
      grpc::ChannelArguments args;
      args.SetInt("bench_channel", t % 4);
      auto ch = grpc::CreateCustomChannel(s.grpc_target(), grpc::InsecureChannelCredentials(), args);
      auto stub = pb::AppealService::NewStub(ch);
      for (int i = next++; i < total; i = next++) {
        pb::CreateAppealRequest req;
        req.set_account_id(absl::StrCat(label, "-", i, "@example.com"));
        auto* r = req.add_resources();
        r->set_id(resource_id);
        r->set_role("viewer");
        grpc::ClientContext ctx;
        ctx.AddMetadata("x-auth-email", "bench@example.com");
        ctx.AddMetadata("x-sluice-proxy-token", s.proxy_token());
        pb::CreateAppealResponse resp;
        if (!stub->CreateAppeal(&ctx, req, &resp).ok()) ++errors;
      }
    });
  }
  for (auto& t : pool) t.join();
  double secs = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("create-appeal (%s): %d appeals in %.2f s = %.0f appeals/s over gRPC (%d threads, %d errors)\n",
              label.c_str(), total, secs, total / secs, threads, errors.load());
  return total / secs;
}

}  // namespace

int main(int argc, char** argv) {
  int grants = 1000000, creates = 6000, calls = 2000;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    if (k == "--grants") grants = std::atoi(argv[i + 1]);
    if (k == "--creates") creates = std::atoi(argv[i + 1]);
    if (k == "--calls") calls = std::atoi(argv[i + 1]);
  }
  const std::string config = "db:\n  pool_size: 16\naccess:\n  grant_expiry_interval: 1h\n";
  Stack::Options opts;
  opts.config_yaml = config;
  auto stack_or = Stack::Start(opts);
  if (!stack_or.ok()) {
    std::fprintf(stderr, "cannot start the stack: %s\n", std::string(stack_or.status().message()).c_str());
    return 1;
  }
  auto& stack = **stack_or;
  std::printf("cores: %u\n", std::thread::hardware_concurrency());

  // 1. Create-appeal throughput.
  std::string pending_rid = Setup(stack, "bench-manual",
                                  R"({"name":"owner","strategy":"manual","approvers":["o@example.com"]})");
  std::string auto_rid = Setup(stack, "bench-auto", R"({"name":"auto","strategy":"auto","approve_if":"true"})");
  CreateThroughput(stack, pending_rid, "warmup", 500, 16);
  double pending = CreateThroughput(stack, pending_rid, "pending, events on", creates, 32);
  // The same with every access event type disabled: no outbox row, no dispatch.
  const std::string events_off =
      config + "  notifications:\n    disabled_events: [appeal.created, appeal.step_approved, "
               "appeal.approved, appeal.rejected, grant.revoked, grant.restored, grant.owner_changed, "
               "grant.expiring, appeal.pending_reminder]\n";
  if (!stack.RestartServer(events_off).ok()) return 1;
  CreateThroughput(stack, pending_rid, "warmup, events off", 500, 16);
  double off = CreateThroughput(stack, pending_rid, "pending, events off", creates, 32);
  {
    soci::session sql(soci::postgresql, stack.database().dsn());
    long long written = 0, open = 0;
    sql << "SELECT count(*), count(*) FILTER (WHERE done_at IS NULL) FROM access_events",
        soci::into(written), soci::into(open);
    std::printf("create-appeal pending: events on %.0f appeals/s, events off %.0f appeals/s "
                "(on/off %.2f); %lld events written, %lld not yet dispatched\n",
                pending, off, pending / off, written, open);
  }
  // The same run with gRPC's default of 2 idle RPC threads, for the ratio.
  if (!stack.RestartServer("grpc_threads: 2\n" + config).ok()) return 1;
  CreateThroughput(stack, pending_rid, "warmup, grpc_threads=2", 500, 16);
  double two_threads = CreateThroughput(stack, pending_rid, "pending, grpc_threads=2", creates, 32);
  std::printf("  grpc_threads=64 vs 2: %.2fx\n", pending / two_threads);
  if (!stack.RestartServer(config).ok()) return 1;
  CreateThroughput(stack, auto_rid, "auto-approved+granted", creates / 2, 32);

  // 2. Seed grants: 100k accounts x 10 roles; 80% active.
  auto seed_start = Clock::now();
  const int accounts = std::max(1, grants / 10);
  {
    soci::session sql(soci::postgresql, stack.database().dsn());
    sql << "INSERT INTO grants (status, status_in_provider, account_id, account_type, resource_id, "
           "role, is_permanent, source, owner, created_at) "
           "SELECT CASE WHEN i % 5 = 0 THEN 'inactive' ELSE 'active' END, 'active', "
           "'acct-' || (i % " << accounts << ") || '@example.com', 'user', CAST(:r AS uuid), "
           "'role-' || (i / " << accounts << "), true, 'import', 'seed@example.com', "
           "now() - (i || ' seconds')::interval FROM generate_series(0, " << grants - 1 << ") AS i",
        soci::use(pending_rid);
    sql << "ANALYZE grants";
  }
  {
    soci::session sql(soci::postgresql, stack.database().dsn());
    long long n = 0;
    sql << "SELECT count(*) FROM grants WHERE account_id = 'acct-1@example.com' AND status = 'active'", soci::into(n);
    std::printf("acct-1 has %lld active grants\n", n);
  }
  std::printf("seeded %d grants in %.1f s\n", grants,
              std::chrono::duration<double>(Clock::now() - seed_start).count());

  // 3. ListGrants by account + status: gRPC vs gateway.
  std::mt19937 rng(42);
  std::vector<int> picks(calls);
  for (auto& p : picks) p = static_cast<int>(rng() % accounts);
  auto stub = pb::GrantService::NewStub(
      grpc::CreateChannel(stack.grpc_target(), grpc::InsecureChannelCredentials()));
  std::vector<double> grpc_ms, http_ms;
  int returned = 0;
  for (int round = 0; round < 2; ++round) {  // round 0 warms caches
    grpc_ms.clear();
    for (int a : picks) {
      pb::ListGrantsRequest req;
      req.add_account_ids(absl::StrCat("acct-", a, "@example.com"));
      req.add_statuses("active");
      grpc::ClientContext ctx;
      ctx.AddMetadata("x-auth-email", "bench@example.com");
      ctx.AddMetadata("x-sluice-proxy-token", stack.proxy_token());
      pb::ListGrantsResponse resp;
      auto t0 = Clock::now();
      auto st = stub->ListGrants(&ctx, req, &resp);
      grpc_ms.push_back(Ms(Clock::now() - t0));
      if (!st.ok()) std::fprintf(stderr, "ListGrants: %s\n", st.error_message().c_str());
      returned = std::max(returned, resp.total());
    }
  }
  for (int a : picks) {
    auto t0 = Clock::now();
    auto r = Http("GET", absl::StrCat(stack.http_base(), "/api/v1beta1/grants?account_ids=acct-", a,
                                      "@example.com&statuses=active"),
                  "", {"X-Auth-Email: bench@example.com"});
    http_ms.push_back(Ms(Clock::now() - t0));
    if (r.status != 200) std::fprintf(stderr, "GET /grants: %ld\n", r.status);
  }
  double g50 = Percentile(grpc_ms, 0.5), g99 = Percentile(grpc_ms, 0.99);
  double h50 = Percentile(http_ms, 0.5), h99 = Percentile(http_ms, 0.99);
  std::printf("ListGrants on %d grants (account+status, ~%d matches/account), %d calls:\n", grants,
              returned, calls);
  std::printf("  direct gRPC : p50 %.2f ms  p99 %.2f ms\n", g50, g99);
  std::printf("  via gateway : p50 %.2f ms  p99 %.2f ms\n", h50, h99);
  std::printf("  gateway/gRPC latency ratio: p50 %.2fx  p99 %.2fx\n", h50 / g50, h99 / g99);
  return 0;
}
