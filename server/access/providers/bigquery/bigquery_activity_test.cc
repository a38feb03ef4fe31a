// The bigquery plugin's activity import: Guardian's entries.list filter,
// the LogEntry -> activity mapping, and GetActivities against
// integration/gcp_fake (paging, filters, related_permissions from IAM
// roles.get, an injected failure).
#include "server/access/providers/bigquery/bigquery_activity.h"

#include <google/protobuf/util/json_util.h>

#include "gtest/gtest.h"
#include "integration/gcp_fake/gcp_fake_process.h"
#include "server/access/providers/bigquery/bigquery_provider.h"

namespace sluice::access {
namespace {

using integration::GcpFake;
using Json = nlohmann::json;

v1beta1::Resource Res(const std::string& type, const std::string& urn) {
  v1beta1::Resource r;
  r.set_type(type);
  r.set_urn(urn);
  return r;
}

// A BigQuery data-access audit entry as Cloud Logging returns it.
Json Entry(const std::string& id, const std::string& ts, const std::string& who,
           const std::string& resource, const std::string& method,
           const std::vector<std::string>& perms, bool service_account = false) {
  Json auth = {{"principalEmail", who}};
  if (service_account) auth["serviceAccountKeyName"] = "//iam.googleapis.com/keys/1";
  Json authz = Json::array();
  for (const auto& p : perms) authz.push_back({{"resource", resource}, {"permission", p}, {"granted", true}});
  return {{"insertId", id},
          {"timestamp", ts},
          {"resource", {{"type", "bigquery_dataset"}, {"labels", {{"project_id", "proj"}}}}},
          {"protoPayload",
           {{"@type", "type.googleapis.com/google.cloud.audit.AuditLog"},
            {"serviceName", "bigquery.googleapis.com"},
            {"methodName", method},
            {"resourceName", resource},
            {"authenticationInfo", auth},
            {"authorizationInfo", authz}}}};
}

TEST(BigQueryActivityTest, FilterIsGuardians) {
  ActivityQuery q;
  q.account_ids = {"a@x.com", "b@x.com"};
  q.resources = {Res("dataset", "proj:sales"), Res("table", "proj:web.visits")};
  q.timestamp_gte = "2026-01-01T00:00:00Z";
  q.timestamp_lte = "2026-01-02T00:00:00Z";
  std::string f = bigquery::EntriesFilter(q);
  EXPECT_EQ(f.find(R"(protoPayload.serviceName="bigquery.googleapis.com" AND resource.type="bigquery_dataset" AND protoPayload.authenticationInfo.principalEmail=("a@x.com" OR "b@x.com") AND protoPayload.resourceName:("projects/proj/datasets/sales" OR "projects/proj/datasets/web/tables/visits") AND protoPayload.methodName=("google.cloud.bigquery.v2.TableService.InsertTable" OR )"),
            0u)
      << f;
  EXPECT_NE(f.find(R"("google.cloud.bigquery.v2.JobService.GetQueryResults") AND timestamp>="2026-01-01T00:00:00Z" AND timestamp<="2026-01-02T00:00:00Z")"),
            std::string::npos)
      << f;
  EXPECT_EQ(bigquery::EntriesFilter({}).find("principalEmail"), std::string::npos);
}

TEST(BigQueryActivityTest, EntryMapsAsGuardiansToDomainActivity) {
  auto a = bigquery::EntryToActivity(Entry("ins-1", "2026-01-01T10:00:00.123456Z", "sa@p.iam.gserviceaccount.com",
                                           "projects/proj/datasets/sales/tables/orders",
                                           "google.cloud.bigquery.v2.TableDataService.List",
                                           {"bigquery.tables.getData"}, true));
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->provider_activity_id(), "ins-1");
  EXPECT_EQ(a->type(), "google.cloud.bigquery.v2.TableDataService.List");
  EXPECT_EQ(a->account_id(), "sa@p.iam.gserviceaccount.com");
  EXPECT_EQ(a->account_type(), "serviceAccount");
  EXPECT_EQ(a->timestamp().seconds(), 1767261600);
  EXPECT_EQ(a->timestamp().nanos(), 123456000);
  ASSERT_EQ(a->authorizations_size(), 1);
  EXPECT_EQ(a->authorizations(0), "bigquery.tables.getData");
  EXPECT_EQ(a->resource().type(), "table");
  EXPECT_EQ(a->resource().urn(), "proj:sales.orders");
  EXPECT_EQ(a->resource().name(), "orders");
  const auto& entry = a->metadata().fields().at("logging_entry").struct_value().fields();
  EXPECT_EQ(entry.at("insert_id").string_value(), "ins-1");
  EXPECT_EQ(entry.at("payload").struct_value().fields().at("methodName").string_value(),
            "google.cloud.bigquery.v2.TableDataService.List");
  auto user = bigquery::EntryToActivity(Entry("ins-2", "2026-01-01T10:00:00Z", "u@x.com",
                                              "projects/proj/datasets/sales", "m", {}));
  ASSERT_TRUE(user.ok());
  EXPECT_EQ(user->account_type(), "user");
  EXPECT_EQ(user->resource().type(), "dataset");
  EXPECT_EQ(user->resource().urn(), "proj:sales");
  EXPECT_TRUE(absl::IsInvalidArgument(
      bigquery::EntryToActivity(Json{{"insertId", "x"}, {"timestamp", "yesterday"}}).status()));
}

class BigQueryActivityFakeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto f = GcpFake::Start();
    ASSERT_TRUE(f.ok()) << f.status();
    fake_ = std::move(*f);
    fake_->Seed({{"bigquery", {{"proj", {{"datasets", {{"sales", {{"tables", {{"orders", Json::object()}}}}}}}}}}}});
    Json config = {{"type", "bigquery"},
                   {"urn", "bq"},
                   {"credentials", fake_->Credentials("projects/proj", 2000)},
                   {"resources",
                    {{{"type", "dataset"},
                      {"roles",
                       {{{"id", "viewer"}, {"permissions", {"READER"}}},
                        {{"id", "owner"}, {"permissions", {"OWNER"}}}}}},
                     {{"type", "table"},
                      {"roles", {{{"id", "viewer"}, {"permissions", {"roles/bigquery.dataViewer"}}}}}}}}};
    ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(config.dump(), &config_).ok());
    provider_ = NewBigQueryProvider(std::shared_ptr<HttpClient>(NewCurlHttpClient()));
    Json entries = Json::array();
    for (int i = 0; i < 5; ++i) {
      entries.push_back(Entry("t" + std::to_string(i), "2026-01-0" + std::to_string(i + 1) + "T00:00:00Z",
                              i % 2 ? "b@x.com" : "a@x.com",
                              "projects/proj/datasets/sales/tables/orders",
                              "google.cloud.bigquery.v2.TableDataService.List",
                              {"bigquery.tables.getData"}));
    }
    entries.push_back(Entry("d0", "2026-01-03T12:00:00Z", "a@x.com", "projects/proj/datasets/sales",
                            "google.cloud.bigquery.v2.DatasetService.PatchDataset",
                            {"bigquery.datasets.update"}));
    entries.push_back(Entry("w0", "2026-01-03T12:00:00Z", "a@x.com", "projects/proj/datasets/web",
                            "google.cloud.bigquery.v2.JobService.InsertJob", {"bigquery.jobs.create"}));
    // Not BigQuery's audit methods: never imported (Guardian's methodName filter).
    entries.push_back(Entry("x0", "2026-01-03T12:00:00Z", "a@x.com", "projects/proj/datasets/sales",
                            "google.cloud.bigquery.v2.DatasetService.GetDataset", {}));
    fake_->LogEntries(entries, "proj");
    fake_->Configure({{"maxPageSize", 2}});  // paging is exercised
  }

  std::vector<std::string> Ids(const ActivityQuery& q) {
    auto got = provider_->GetActivities(config_, q);
    EXPECT_TRUE(got.ok()) << got.status();
    std::vector<std::string> out;
    if (got.ok()) {
      for (const auto& a : *got) out.push_back(a.provider_activity_id());
    }
    return out;
  }

  std::unique_ptr<GcpFake> fake_;
  v1beta1::ProviderConfig config_;
  std::unique_ptr<ProviderClient> provider_;
};

TEST_F(BigQueryActivityFakeTest, ReadsEveryPageWithGuardiansFilter) {
  ASSERT_TRUE(provider_->SupportsActivities());
  using V = std::vector<std::string>;
  EXPECT_EQ(Ids({}), (V{"t0", "t1", "t2", "d0", "w0", "t3", "t4"}));
  ActivityQuery who;
  who.account_ids = {"b@x.com"};
  EXPECT_EQ(Ids(who), (V{"t1", "t3"}));
  ActivityQuery where;
  where.resources = {Res("dataset", "proj:sales")};  // ':' also matches its tables
  EXPECT_EQ(Ids(where), (V{"t0", "t1", "t2", "d0", "t3", "t4"}));
  ActivityQuery when;
  when.timestamp_gte = "2026-01-02T00:00:00Z";
  when.timestamp_lte = "2026-01-03T00:00:00Z";
  EXPECT_EQ(Ids(when), (V{"t1", "t2"}));
}

TEST_F(BigQueryActivityFakeTest, RelatedPermissionsAreTheConfiguredRolesHoldingThem) {
  auto got = provider_->GetActivities(config_, {});
  ASSERT_TRUE(got.ok()) << got.status();
  for (const auto& a : *got) {
    std::vector<std::string> related(a.related_permissions().begin(), a.related_permissions().end());
    if (a.provider_activity_id() == "t0") {
      // getData is in dataViewer (the table's role, as configured).
      EXPECT_EQ(related, std::vector<std::string>{"roles/bigquery.dataViewer"});
    } else if (a.provider_activity_id() == "d0") {
      // datasets.update is in dataOwner only: the dataset role "OWNER".
      EXPECT_EQ(related, std::vector<std::string>{"OWNER"});
    } else if (a.provider_activity_id() == "w0") {
      EXPECT_TRUE(related.empty());
    }
  }
}

TEST_F(BigQueryActivityFakeTest, AFailedListIsTheProvidersError) {
  fake_->Fault({{"path", "/v2/entries:list"}, {"status", 403}, {"count", -1}});
  auto got = provider_->GetActivities(config_, {});
  EXPECT_EQ(got.status().code(), absl::StatusCode::kFailedPrecondition) << got.status();
  fake_->ClearFaults();
  fake_->Fault({{"path", "/v2/entries:list"}, {"status", 503}, {"count", 1}});
  EXPECT_TRUE(provider_->GetActivities(config_, {}).ok());  // retried
}

}  // namespace
}  // namespace sluice::access
