// Access list routes at size (issue 28, item 4): p50/p99 of every list
// route, as an admin and as a non-admin, on 1,000,000 grants, 1,000,000
// appeals (one approval each) and 100,000 resources, over gRPC and through
// the gateway. Requests leave `size` unset, so each returns up to
// access.max_page_size (1000) rows with `total`, as a Guardian client that
// never pages gets them. Prints a table; no timed assertions.
//
// Data (bulk SQL with generate_series, then VACUUM ANALYZE):
//   resources  100,000 on one noop provider;
//   grants     1,000,000: account acct-(i % 100k), owner acct-(i+1 % 100k),
//              resource i % 100k, 80% active, a third expiring within 30 days;
//              4 in 5 from appeal i (source appeal, appeal_id set: a page
//              loads those appeals), the fifth imported;
//   appeals    1,000,000: account = creator acct-(i % 100k), resource
//              (7 i) % 100k, 25% pending; one approval each whose approver
//              is acct-((7919 n) % 100k).
// So a plain user acct-N holds 10 grants, owns 10, and approves 10 appeals
// (hence sees the ~100 grants of those resources), creates 10 appeals.
//
//   scripts/with-postgres.sh bazel run -c opt //bench:access_lists_bench
//   [-- --grants N --appeals N --resources N --calls N --only <route substring>
//       --hold S (after seeding, print the DSN and the server's pid, then wait
//                 S seconds: time to EXPLAIN the lists or attach perf)
//       --rest 0 (gRPC only)]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <thread>

#include <grpcpp/grpcpp.h>
#include <soci/postgresql/soci-postgresql.h>
#include <soci/soci.h>

#include "absl/strings/str_cat.h"
#include "integration/harness.h"
#include "proto/sluice/access/v1beta1/access.grpc.pb.h"
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

void MustPost(const Stack& s, const std::string& path, const std::string& body) {
  auto r = Http("POST", s.http_base() + "/api/v1beta1" + path, body,
                {"X-Auth-Email: bench@example.com"});
  if (r.status != 200) {
    std::fprintf(stderr, "setup %s failed: %ld %s\n", path.c_str(), r.status, r.body.c_str());
    std::exit(1);
  }
}

void Seed(const Stack& stack, int resources, int grants, int appeals) {
  MustPost(stack, "/policies",
           R"({"id":"bench-lists","steps":[{"name":"owner","strategy":"manual","approvers":["o@example.com"]}]})");
  MustPost(stack, "/providers",
           R"({"type":"noop","urn":"bench-lists","allowed_account_types":["user"],"resources":[{"type":"noop","policy":{"id":"bench-lists","version":1},"roles":[{"id":"viewer"}]}]})");
  auto start = Clock::now();
  soci::session sql(soci::postgresql, stack.database().dsn());
  const std::string users = "100000";
  sql << "INSERT INTO resources (provider_type, provider_urn, type, urn, name, created_at, "
         "updated_at) SELECT 'noop', 'bench-lists', 'noop', 'res-' || i, 'resource ' || i, "
         "now() - (i || ' seconds')::interval, now() - (i || ' seconds')::interval "
         "FROM generate_series(1, " << resources - 1 << ") AS i";
  sql << "CREATE TEMP TABLE bench_res AS SELECT id, (row_number() OVER (ORDER BY id) - 1)::int "
         "AS n FROM resources WHERE provider_urn = 'bench-lists'";
  sql << "CREATE INDEX ON bench_res (n)";
  sql << "INSERT INTO appeals (resource_id, policy_id, policy_version, status, account_id, "
         "account_type, role, created_by, created_at, updated_at) "
         "SELECT r.id, 'bench-lists', 1, CASE WHEN i % 4 = 0 THEN 'pending' ELSE 'approved' END, "
         "'acct-' || (i % " << users << ") || '@example.com', 'user', "
         "'seed-role-' || (i / " << users << "), 'acct-' || (i % " << users << ") || '@example.com', "
         "now() - (i || ' seconds')::interval, now() - (i || ' seconds')::interval "
         "FROM generate_series(0, " << appeals - 1 << ") AS i JOIN bench_res r ON r.n = (i * 7) % "
      << resources;
  // Appeals numbered as inserted: 4 grants in 5 come from appeal i (the
  // list then loads each page's appeals, as for grants made through Sluice).
  sql << "CREATE TEMP TABLE bench_app AS SELECT id, (row_number() OVER (ORDER BY created_at "
         "DESC) - 1)::int AS n FROM appeals";
  sql << "CREATE INDEX ON bench_app (n)";
  sql << "INSERT INTO grants (status, status_in_provider, account_id, account_type, resource_id, "
         "role, is_permanent, expiration_date, source, appeal_id, owner, created_at, updated_at) "
         "SELECT CASE WHEN i % 5 = 0 THEN 'inactive' ELSE 'active' END, 'active', "
         "'acct-' || (i % " << users << ") || '@example.com', 'user', r.id, "
         "'role-' || (i / " << users << "), i % 3 <> 0, "
         "CASE WHEN i % 3 = 0 THEN now() + ((i % 30) || ' days')::interval END, "
         "CASE WHEN i % 5 = 4 THEN 'import' ELSE 'appeal' END, "
         "CASE WHEN i % 5 = 4 THEN NULL ELSE ba.id END, 'acct-' || ((i + 1) % " << users << ") || '@example.com', "
         "now() - (i || ' seconds')::interval, now() - (i || ' seconds')::interval "
         "FROM generate_series(0, " << grants - 1 << ") AS i JOIN bench_res r ON r.n = i % "
      << resources << " LEFT JOIN bench_app ba ON ba.n = i";
  std::printf("seeded %d grants after %.1f s\n", grants, Ms(Clock::now() - start) / 1000);
  sql << "INSERT INTO approvals (appeal_id, step_index, name, status, approvers, policy_id, "
         "policy_version, created_at, updated_at) "
         "SELECT id, 0, 'owner', CASE WHEN status = 'pending' THEN 'pending' ELSE 'approved' END, "
         "jsonb_build_array('acct-' || ((n * 7919) % " << users << ") || '@example.com'), "
         "'bench-lists', 1, created_at, updated_at FROM (SELECT id, status, created_at, "
         "updated_at, row_number() OVER (ORDER BY id) AS n FROM appeals "
         "WHERE role LIKE 'seed-role-%') AS a";
  // As autovacuum leaves tables at rest: statistics and visibility maps.
  sql << "VACUUM ANALYZE";
  std::printf("seeded %d resources, %d grants, %d appeals + approvals in %.1f s\n", resources,
              grants, appeals, Ms(Clock::now() - start) / 1000);
}

// One list route: its gRPC call (returns the response's row count and
// total) and its REST path under /api/v1beta1.
struct Route {
  std::string name;
  std::function<grpc::Status(grpc::ClientContext*, int* rows, int* total)> call;
  std::string path;
};

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  int grants = 1000000, appeals = 1000000, resources = 100000, calls = 200;
  std::string only;  // --only: run the routes whose name contains it
  int hold = 0;      // --hold: seconds to wait after seeding
  bool rest = true;  // --rest 0: skip the gateway
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    if (k == "--grants") grants = std::atoi(argv[i + 1]);
    if (k == "--appeals") appeals = std::atoi(argv[i + 1]);
    if (k == "--resources") resources = std::atoi(argv[i + 1]);
    if (k == "--calls") calls = std::atoi(argv[i + 1]);
    if (k == "--only") only = argv[i + 1];
    if (k == "--hold") hold = std::atoi(argv[i + 1]);
    if (k == "--rest") rest = std::atoi(argv[i + 1]) != 0;
  }
  Stack::Options opts;
  opts.config_yaml = "db:\n  pool_size: 8\naccess:\n  grant_expiry_interval: 1h\n";
  auto stack_or = Stack::Start(opts);
  if (!stack_or.ok()) {
    std::fprintf(stderr, "cannot start the stack: %s\n",
                 std::string(stack_or.status().message()).c_str());
    return 1;
  }
  auto& stack = **stack_or;
  std::printf("cores: %u\n", std::thread::hardware_concurrency());
  Seed(stack, resources, grants, appeals);
  if (hold > 0) {
    std::printf("holding %d s: dsn '%s', sluice-server pid %d, gRPC %s, HTTP %s\n", hold,
                stack.database().dsn().c_str(), static_cast<int>(stack.server().pid()),
                stack.grpc_target().c_str(), stack.http_base().c_str());
    std::this_thread::sleep_for(std::chrono::seconds(hold));
  }

  auto channel = grpc::CreateChannel(stack.grpc_target(), grpc::InsecureChannelCredentials());
  auto grant_stub = pb::GrantService::NewStub(channel);
  auto appeal_stub = pb::AppealService::NewStub(channel);
  auto approval_stub = pb::ApprovalService::NewStub(channel);
  auto resource_stub = pb::ResourceService::NewStub(channel);
  auto provider_stub = pb::ProviderService::NewStub(channel);
  auto policy_stub = pb::PolicyService::NewStub(channel);
  // A list call with `req` on `stub`'s `method`, reporting rows and total.
  auto grants_call = [&](pb::ListGrantsRequest req, bool user) {
    return [&, req, user](grpc::ClientContext* ctx, int* rows, int* total) {
      pb::ListGrantsResponse resp;
      auto st = user ? grant_stub->ListUserGrants(ctx, req, &resp)
                     : grant_stub->ListGrants(ctx, req, &resp);
      *rows = resp.grants_size();
      *total = resp.total();
      return st;
    };
  };
  auto appeals_call = [&](pb::ListAppealsRequest req, bool user) {
    return [&, req, user](grpc::ClientContext* ctx, int* rows, int* total) {
      pb::ListAppealsResponse resp;
      auto st = user ? appeal_stub->ListUserAppeals(ctx, req, &resp)
                     : appeal_stub->ListAppeals(ctx, req, &resp);
      *rows = resp.appeals_size();
      *total = resp.total();
      return st;
    };
  };
  auto approvals_call = [&](pb::ListApprovalsRequest req, bool user) {
    return [&, req, user](grpc::ClientContext* ctx, int* rows, int* total) {
      pb::ListApprovalsResponse resp;
      auto st = user ? approval_stub->ListUserApprovals(ctx, req, &resp)
                     : approval_stub->ListApprovals(ctx, req, &resp);
      *rows = resp.approvals_size();
      *total = resp.total();
      return st;
    };
  };
  auto resources_call = [&](pb::ListResourcesRequest req) {
    return [&, req](grpc::ClientContext* ctx, int* rows, int* total) {
      pb::ListResourcesResponse resp;
      auto st = resource_stub->ListResources(ctx, req, &resp);
      *rows = resp.resources_size();
      *total = resp.total();
      return st;
    };
  };
  pb::ListGrantsRequest by_urn;
  by_urn.add_resource_urns("res-4242");
  pb::ListGrantsRequest by_updated;
  by_updated.add_order_by("updated_at:desc");
  pb::ListGrantsRequest expiring;
  expiring.add_statuses("active");
  expiring.set_expiring_in_days(7);
  pb::ListAppealsRequest pending;
  pending.add_statuses("pending");
  pb::ListAppealsRequest with_approvals;
  with_approvals.set_with_approvals(true);
  pb::ListApprovalsRequest pending_approvals;
  pending_approvals.add_statuses("pending");
  pb::ListResourcesRequest prefix;
  prefix.set_urn_starts_with("res-42");
  pb::ListResourcesRequest by_name;
  by_name.add_order_by("name:desc");
  pb::ListGrantsRequest grants100;
  grants100.set_size(100);
  pb::ListAppealsRequest appeals100;
  appeals100.set_size(100);
  pb::ListApprovalsRequest approvals100;
  approvals100.set_size(100);
  std::vector<Route> routes = {
      // The same lists with a page of 100: what the page's rows cost.
      {"GET /grants?size=100", grants_call(grants100, false), "/grants?size=100"},
      {"GET /appeals?size=100", appeals_call(appeals100, false), "/appeals?size=100"},
      {"GET /approvals?size=100", approvals_call(approvals100, false), "/approvals?size=100"},
      {"GET /grants", grants_call({}, false), "/grants"},
      {"GET /grants?resource_urns=res-4242", grants_call(by_urn, false),
       "/grants?resource_urns=res-4242"},
      {"GET /grants?order_by=updated_at:desc", grants_call(by_updated, false),
       "/grants?order_by=updated_at:desc"},
      {"GET /grants?statuses=active&expiring_in_days=7", grants_call(expiring, false),
       "/grants?statuses=active&expiring_in_days=7"},
      {"GET /me/grants", grants_call({}, true), "/me/grants"},
      {"GET /appeals", appeals_call({}, false), "/appeals"},
      {"GET /appeals?statuses=pending", appeals_call(pending, false), "/appeals?statuses=pending"},
      {"GET /appeals?with_approvals=true", appeals_call(with_approvals, false),
       "/appeals?with_approvals=true"},
      {"GET /me/appeals", appeals_call({}, true), "/me/appeals"},
      {"GET /approvals", approvals_call({}, false), "/approvals"},
      {"GET /approvals?statuses=pending", approvals_call(pending_approvals, false),
       "/approvals?statuses=pending"},
      {"GET /me/approvals", approvals_call({}, true), "/me/approvals"},
      {"GET /resources", resources_call({}), "/resources"},
      {"GET /resources?urn_starts_with=res-42", resources_call(prefix), "/resources?urn_starts_with=res-42"},
      {"GET /resources?order_by=name:desc", resources_call(by_name), "/resources?order_by=name:desc"},
      {"GET /providers",
       [&](grpc::ClientContext* ctx, int* rows, int* total) {
         pb::ListProvidersResponse resp;
         auto st = provider_stub->ListProviders(ctx, {}, &resp);
         *rows = resp.providers_size();
         *total = resp.total();
         return st;
       },
       "/providers"},
      {"GET /policies",
       [&](grpc::ClientContext* ctx, int* rows, int* total) {
         pb::ListPoliciesResponse resp;
         auto st = policy_stub->ListPolicies(ctx, {}, &resp);
         *rows = resp.policies_size();
         *total = resp.total();
         return st;
       },
       "/policies"},
  };

  std::mt19937 rng(42);
  std::printf("\n%d calls per route and caller; admin = bench@example.com, non-admin = a random "
              "acct-N@example.com per call; size unset (page = access.max_page_size 1000)\n",
              calls);
  std::printf("| route | caller | rows | total | gRPC p50 ms | gRPC p99 ms | REST p50 ms | REST p99 ms |\n");
  std::printf("|---|---|---:|---:|---:|---:|---:|---:|\n");
  for (const Route& route : routes) {
    if (!only.empty() && route.name.find(only) == std::string::npos) continue;
    for (bool admin : {true, false}) {
      std::vector<double> grpc_ms, rest_ms;
      long long rows_sum = 0, total_sum = 0;
      int errors = 0;
      for (int i = 0; i < calls + calls / 10; ++i) {  // the first tenth warms caches
        std::string who = admin ? "bench@example.com"
                                : absl::StrCat("acct-", rng() % 100000, "@example.com");
        grpc::ClientContext ctx;
        ctx.AddMetadata("x-auth-email", who);
        ctx.AddMetadata("x-sluice-proxy-token", stack.proxy_token());
        int rows = 0, total = 0;
        auto t0 = Clock::now();
        grpc::Status st = route.call(&ctx, &rows, &total);
        double g = Ms(Clock::now() - t0);
        if (!st.ok() && ++errors == 1) {
          std::fprintf(stderr, "%s: %s\n", route.name.c_str(), st.error_message().c_str());
        }
        double h = 0;
        if (rest) {
          auto t1 = Clock::now();
          auto r = Http("GET", absl::StrCat(stack.http_base(), "/api/v1beta1", route.path), "",
                        {"X-Auth-Email: " + who});
          h = Ms(Clock::now() - t1);
          if (r.status != 200 && ++errors == 1) {
            std::fprintf(stderr, "%s: HTTP %ld\n", route.path.c_str(), r.status);
          }
        }
        if (i < calls / 10) continue;
        grpc_ms.push_back(g);
        rest_ms.push_back(h);
        rows_sum += rows;
        total_sum += total;
      }
      std::printf("| %s | %s | %lld | %lld | %.2f | %.2f | %.2f | %.2f |%s\n", route.name.c_str(),
                  admin ? "admin" : "non-admin", rows_sum / calls, total_sum / calls,
                  Percentile(grpc_ms, 0.5), Percentile(grpc_ms, 0.99), Percentile(rest_ms, 0.5),
                  Percentile(rest_ms, 0.99), errors ? " errors" : "");
    }
  }
  return 0;
}
