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
//   3. the same call through the gateway (HTTP/JSON) and the latency ratio;
//   4. the non-admin read path (finding F-L1): GET /grants and GET /appeals
//      as plain users (not in kTestAccessAdmins), who see only the grants
//      they hold or own and those of resources whose appeals list them as
//      approver, on the same 1,000,000 grants spread over 1,000 resources,
//      with 200,000 appeals and approvals; p50/p99 over gRPC and through
//      the gateway, and the EXPLAIN ANALYZE of both counts.
//
//   scripts/with-postgres.sh bazel run //bench:access_bench [-- --grants 1000000]
//   [--lists_only 1] skips part 1; [--user_calls N] sets the calls of part 4.
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
#include "absl/strings/str_replace.h"
#include "integration/harness.h"
#include "proto/sluice/access/v1beta1/appeal.grpc.pb.h"

namespace {

using sluice::integration::Http;
using sluice::integration::Stack;
namespace pb = ::sluice::access::v1beta1;
using Clock = std::chrono::steady_clock;

// The non-admin visibility filters of ListGrants and ListAppeals, as the
// repository builds them with :v for the caller
// (postgres_appeal_repository.cc; keep in step).
constexpr char kVisibleGrantsSql[] =
    "g.id IN (SELECT id FROM grants WHERE account_id = :v UNION ALL SELECT id FROM grants WHERE "
    "owner = :v UNION ALL SELECT vg.id FROM grants vg WHERE vg.resource_id IN (SELECT "
    "va.resource_id FROM approvals vp JOIN appeals va ON va.id = vp.appeal_id WHERE vp.approvers ? "
    ":v))";
constexpr char kVisibleAppealsSql[] =
    "a.id IN (SELECT id FROM appeals WHERE created_by = :v UNION ALL SELECT id FROM appeals WHERE "
    "account_id = :v UNION ALL SELECT appeal_id FROM approvals WHERE approvers ? :v)";

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

// Part 4: GET /grants and GET /appeals (no filter) as plain users acct-N,
// over gRPC and through the gateway; prints p50/p99 and the plan of the
// grants count for one of them.
void UserLists(const Stack& stack, int accounts, int grants, int calls) {
  std::mt19937 rng(7);
  std::vector<int> picks(calls);
  for (auto& p : picks) p = static_cast<int>(rng() % accounts);
  auto channel = grpc::CreateChannel(stack.grpc_target(), grpc::InsecureChannelCredentials());
  auto grants_stub = pb::GrantService::NewStub(channel);
  auto appeals_stub = pb::AppealService::NewStub(channel);
  auto as = [&](grpc::ClientContext* ctx, int a) {
    ctx->AddMetadata("x-auth-email", absl::StrCat("acct-", a, "@example.com"));
    ctx->AddMetadata("x-sluice-proxy-token", stack.proxy_token());
  };
  int64_t seen_grants = 0, seen_appeals = 0;
  for (const char* what : {"grants", "appeals"}) {
    std::vector<double> grpc_ms, http_ms;
    bool is_grants = std::string(what) == "grants";
    for (int round = 0; round < 2; ++round) {  // round 0 warms caches
      grpc_ms.clear();
      for (int a : picks) {
        grpc::ClientContext ctx;
        as(&ctx, a);
        grpc::Status st;
        auto t0 = Clock::now();
        if (is_grants) {
          pb::ListGrantsResponse resp;
          st = grants_stub->ListGrants(&ctx, pb::ListGrantsRequest(), &resp);
          seen_grants += resp.total();
        } else {
          pb::ListAppealsResponse resp;
          st = appeals_stub->ListAppeals(&ctx, pb::ListAppealsRequest(), &resp);
          seen_appeals += resp.total();
        }
        grpc_ms.push_back(Ms(Clock::now() - t0));
        if (!st.ok()) std::fprintf(stderr, "List%s: %s\n", what, st.error_message().c_str());
      }
    }
    for (int a : picks) {
      auto t0 = Clock::now();
      auto r = Http("GET", absl::StrCat(stack.http_base(), "/api/v1beta1/", what), "",
                    {absl::StrCat("X-Auth-Email: acct-", a, "@example.com")});
      http_ms.push_back(Ms(Clock::now() - t0));
      if (r.status != 200) std::fprintf(stderr, "GET /%s: %ld\n", what, r.status);
    }
    std::printf("non-admin GET /%s on %d grants (plain users, no filter; ~%lld visible rows/user), %d calls:\n",
                what, grants, static_cast<long long>((is_grants ? seen_grants : seen_appeals) / (2 * calls)),
                calls);
    std::printf("  direct gRPC : p50 %.2f ms  p99 %.2f ms\n", Percentile(grpc_ms, 0.5),
                Percentile(grpc_ms, 0.99));
    std::printf("  via gateway : p50 %.2f ms  p99 %.2f ms\n", Percentile(http_ms, 0.5),
                Percentile(http_ms, 0.99));
  }
  // The plans of the non-admin counts as the repository issues them.
  soci::session sql(soci::postgresql, stack.database().dsn());
  std::string user = absl::StrCat("acct-", picks[0], "@example.com");
  for (auto [table, filter] : {std::pair{"grants g", kVisibleGrantsSql}, std::pair{"appeals a", kVisibleAppealsSql}}) {
    std::string plan;
    // The user is a literal here (acct-N@example.com: no quotes to escape).
    soci::rowset<std::string> rows =
        (sql.prepare << absl::StrCat("EXPLAIN (ANALYZE, COSTS OFF) SELECT count(*) FROM ", table, " WHERE ",
                                     absl::StrReplaceAll(filter, {{":v", "'" + user + "'"}})));
    for (const auto& line : rows) absl::StrAppend(&plan, "    ", line, "\n");
    std::printf("  plan of the %s count for %s:\n%s", table, user.c_str(), plan.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // figures show up as they are measured
  int grants = 1000000, creates = 6000, calls = 2000, user_calls = 500;
  bool lists_only = false;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    if (k == "--grants") grants = std::atoi(argv[i + 1]);
    if (k == "--creates") creates = std::atoi(argv[i + 1]);
    if (k == "--calls") calls = std::atoi(argv[i + 1]);
    if (k == "--user_calls") user_calls = std::atoi(argv[i + 1]);
    if (k == "--lists_only") lists_only = std::atoi(argv[i + 1]) != 0;
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
  if (!lists_only) {
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
  }  // !lists_only

  // 2. Seed grants: 100k accounts x 10 roles; 80% active; spread over 1,000
  // resources (copies of the bench-manual one); each account owns the 10
  // grants of the next account. Then 200k appeals (grants / 5) with one
  // approval step each, listing one account as approver, so that a plain
  // user holds 10 grants, owns 10 and approves appeals of ~2 resources.
  auto seed_start = Clock::now();
  const int accounts = std::max(1, grants / 10);
  const int resources = 1000;
  const int appeals = std::max(1, grants / 5);
  {
    soci::session sql(soci::postgresql, stack.database().dsn());
    sql << "INSERT INTO resources (provider_type, provider_urn, type, urn, name) "
           "SELECT provider_type, provider_urn, type, urn || '-' || i, name FROM resources, "
           "generate_series(1, " << resources - 1 << ") AS i WHERE id = CAST(:r AS uuid)",
        soci::use(pending_rid);
    sql << "CREATE TEMP TABLE bench_res AS SELECT array_agg(id ORDER BY id) AS ids FROM resources "
           "WHERE provider_urn = 'bench-manual'";
    sql << "INSERT INTO grants (status, status_in_provider, account_id, account_type, resource_id, "
           "role, is_permanent, source, owner, created_at) "
           "SELECT CASE WHEN i % 5 = 0 THEN 'inactive' ELSE 'active' END, 'active', "
           "'acct-' || (i % " << accounts << ") || '@example.com', 'user', "
           "(SELECT ids[1 + i % " << resources << "] FROM bench_res), "
           "'role-' || (i / " << accounts << "), true, 'import', "
           "'acct-' || ((i + 1) % " << accounts << ") || '@example.com', "
           "now() - (i || ' seconds')::interval FROM generate_series(0, " << grants - 1 << ") AS i";
    sql << "INSERT INTO appeals (resource_id, policy_id, policy_version, status, account_id, "
           "account_type, role, created_by, created_at) "
           "SELECT (SELECT ids[1 + i % " << resources << "] FROM bench_res), 'bench-manual', 1, "
           "CASE WHEN i % 4 = 0 THEN 'pending' ELSE 'approved' END, "
           "'acct-' || (i % " << accounts << ") || '@example.com', 'user', 'seed-role-' || i, "
           "'acct-' || (i % " << accounts << ") || '@example.com', "
           "now() - (i || ' seconds')::interval FROM generate_series(0, " << appeals - 1 << ") AS i";
    sql << "INSERT INTO approvals (appeal_id, step_index, name, status, approvers, policy_id, "
           "policy_version) "
           "SELECT id, 0, 'owner', CASE WHEN status = 'pending' THEN 'pending' ELSE 'approved' END, "
           "jsonb_build_array('acct-' || ((n * 7919) % " << accounts << ") || '@example.com'), "
           "'bench-manual', 1 FROM (SELECT id, status, row_number() OVER (ORDER BY id) AS n "
           "FROM appeals WHERE role LIKE 'seed-role-%') AS a";
    // As autovacuum leaves a table at rest: statistics and the visibility
    // map (index-only scans skip the heap only for all-visible pages).
    sql << "VACUUM ANALYZE";
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

  // 4. The non-admin path: plain users list what they may see (no filter).
  UserLists(stack, accounts, grants, user_calls);
  return 0;
}
