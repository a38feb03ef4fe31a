// Siren's alert fields and filters, and silences, on a real PostgreSQL.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/db/testing/test_database.h"
#include "server/notification/store/store.h"

namespace sluice::db {
const MigrationSet& CoreMigrations();
}  // namespace sluice::db

namespace sluice::notification {
namespace {

using nlohmann::json;

class AlertStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = db::TestDatabase::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = std::move(*db);
    auto pool = db::Pool::Create(db_->dsn(), 2);
    ASSERT_TRUE(pool.ok()) << pool.status();
    pool_ = std::move(*pool);
    auto applied = db::Migrate(*pool_, {db::CoreMigrations(), db::NotificationMigrations()});
    ASSERT_TRUE(applied.ok()) << applied.status();
    alerts_ = std::make_unique<PostgresAlertRepository>(pool_.get());
    silences_ = std::make_unique<PostgresSilenceRepository>(pool_.get());
  }
  static Alert Sample(const std::string& fingerprint, int64_t triggered, uint64_t ns,
                      const std::string& resource) {
    Alert a;
    a.provider_type = "cortex";
    a.provider_id = "3";
    a.status = "firing";
    a.labels = {{"severity", "CRITICAL"}};
    a.starts_at = absl::FromUnixSeconds(triggered);
    a.triggered_at = a.starts_at;
    a.fingerprint = fingerprint;
    a.namespace_id = ns;
    a.resource_name = resource;
    a.metric_name = "cpu";
    a.metric_value = "97";
    a.severity = "CRITICAL";
    a.rule = "CPU";
    return a;
  }
  std::vector<Alert> List(AlertFilter f) {
    f.provider_type = "cortex";
    f.provider_id = "3";
    int total = -1;
    auto out = alerts_->List(f, Page{}, &total);
    EXPECT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(total, static_cast<int>(out->size()));
    return *out;
  }
  std::unique_ptr<db::TestDatabase> db_;
  std::unique_ptr<db::Pool> pool_;
  std::unique_ptr<PostgresAlertRepository> alerts_;
  std::unique_ptr<PostgresSilenceRepository> silences_;
};

TEST_F(AlertStoreTest, SirenFieldsRoundTripAndFilter) {
  Alert a = Sample("f1", 1000, 5, "db-1");
  Alert b = Sample("f2", 2000, 6, "db-2");
  b.silence_status = "total";
  b.silence_ids = {"0b7c1f7e-1111-4a4a-9c9c-000000000001"};
  std::vector<uint64_t> ids;
  ASSERT_TRUE(alerts_->Insert({a, b}, &ids).ok());
  ASSERT_EQ(ids.size(), 2u);
  EXPECT_NE(ids[0], ids[1]);

  auto all = List({});
  ASSERT_EQ(all.size(), 2u);
  const Alert& got = all[0];  // newest first
  EXPECT_EQ(got.fingerprint, "f2");
  EXPECT_EQ(got.namespace_id, 6u);
  EXPECT_EQ(got.resource_name, "db-2");
  EXPECT_EQ(got.metric_name, "cpu");
  EXPECT_EQ(got.metric_value, "97");
  EXPECT_EQ(got.severity, "CRITICAL");
  EXPECT_EQ(got.rule, "CPU");
  EXPECT_EQ(got.triggered_at, absl::FromUnixSeconds(2000));
  EXPECT_EQ(got.silence_status, "total");
  EXPECT_EQ(got.silence_ids, b.silence_ids);
  EXPECT_EQ(all[1].silence_status, "");
  EXPECT_TRUE(all[1].silence_ids.empty());

  AlertFilter by_ns;
  by_ns.namespace_id = 5;
  EXPECT_EQ(List(by_ns).size(), 1u);
  AlertFilter by_resource;
  by_resource.resource_name = "db-2";
  ASSERT_EQ(List(by_resource).size(), 1u);
  EXPECT_EQ(List(by_resource)[0].fingerprint, "f2");
  AlertFilter by_silence;
  by_silence.silence_id = b.silence_ids[0];
  EXPECT_EQ(List(by_silence).size(), 1u);
  by_silence.silence_id = "other";
  EXPECT_EQ(List(by_silence).size(), 0u);
  AlertFilter by_time;
  by_time.from = absl::FromUnixSeconds(500);
  by_time.to = absl::FromUnixSeconds(1500);
  ASSERT_EQ(List(by_time).size(), 1u);
  EXPECT_EQ(List(by_time)[0].fingerprint, "f1");

  // A resend of the instance after a silence was created records it.
  a.silence_status = "partial";
  a.silence_ids = {"x"};
  std::vector<uint64_t> resent_ids;
  ASSERT_TRUE(alerts_->Insert({a}, &resent_ids).ok());
  EXPECT_EQ(resent_ids, std::vector<uint64_t>{ids[0]});  // the same row, updated
  by_resource.resource_name = "db-1";
  auto resent = List(by_resource);
  ASSERT_EQ(resent.size(), 1u);
  EXPECT_EQ(resent[0].silence_status, "partial");
}

// Review R3-M2: the namespace is part of an alert instance's key. The same
// label set (fingerprint) and startsAt posted to another namespace's hook
// is another alert; it never rewrites the first namespace's row.
TEST_F(AlertStoreTest, SameInstanceInAnotherNamespaceIsAnotherAlert) {
  Alert mine = Sample("f1", 1000, 5, "db-1");
  Alert other = Sample("f1", 1000, 6, "db-1");
  other.status = "resolved";
  other.silence_status = "total";
  std::vector<uint64_t> first, second;
  ASSERT_TRUE(alerts_->Insert({mine}, &first).ok());
  ASSERT_TRUE(alerts_->Insert({other}, &second).ok());
  ASSERT_EQ(first.size(), 1u);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_NE(first[0], second[0]);
  AlertFilter ns5;
  ns5.namespace_id = 5;
  auto kept = List(ns5);
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].id, first[0]);
  EXPECT_EQ(kept[0].status, "firing");
  EXPECT_EQ(kept[0].silence_status, "");
  EXPECT_EQ(List({}).size(), 2u);
  // A resend within the namespace still updates its own row.
  mine.status = "resolved";
  std::vector<uint64_t> resent;
  ASSERT_TRUE(alerts_->Insert({mine}, &resent).ok());
  EXPECT_EQ(resent, first);
  EXPECT_EQ(List(ns5)[0].status, "resolved");
}

TEST_F(AlertStoreTest, SilencesCreateListGetExpire) {
  Silence m;
  m.type = kSilenceTypeMatchers;
  m.namespace_id = 5;
  m.target_expression = {{"team", "db"}, {"env", "prod"}};
  m.creator = "ops@x.com";
  m.comment = "maintenance";
  auto created = silences_->Create(m);
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ(created->id.size(), 36u);  // a UUID
  EXPECT_EQ(created->creator, "ops@x.com");
  EXPECT_EQ(created->comment, "maintenance");
  EXPECT_EQ(created->target_expression, m.target_expression);
  EXPECT_FALSE(created->deleted_at.has_value());
  EXPECT_LT(absl::Now() - created->created_at, absl::Minutes(1));

  Silence s;
  s.type = kSilenceTypeSubscription;
  s.target_id = 42;
  s.target_expression = {{"rule", "Type == 'slack'"}};
  auto sub = silences_->Create(s);
  ASSERT_TRUE(sub.ok()) << sub.status();

  EXPECT_EQ(silences_->List({})->size(), 2u);
  SilenceFilter ns;
  ns.namespace_id = 5;
  EXPECT_EQ(silences_->List(ns)->size(), 1u);
  SilenceFilter by_sub;
  by_sub.subscription_id = 42;
  ASSERT_EQ(silences_->List(by_sub)->size(), 1u);
  EXPECT_EQ((*silences_->List(by_sub))[0].id, sub->id);
  // Siren's match: silences whose matchers contain these pairs.
  SilenceFilter match;
  match.match = {{"team", "db"}};
  ASSERT_EQ(silences_->List(match)->size(), 1u);
  match.match = {{"team", "web"}};
  EXPECT_EQ(silences_->List(match)->size(), 0u);
  // subscription_match: silences whose matchers are contained in these labels.
  SilenceFilter within;
  within.subscription_match = {{"team", "db"}, {"env", "prod"}, {"x", "y"}};
  ASSERT_EQ(silences_->List(within)->size(), 1u);
  EXPECT_EQ((*silences_->List(within))[0].id, created->id);
  within.subscription_match = {{"team", "db"}};
  EXPECT_EQ(silences_->List(within)->size(), 0u);

  ASSERT_TRUE(silences_->Expire(created->id).ok());
  ASSERT_TRUE(silences_->Expire(created->id).ok());  // already expired: unchanged
  auto expired = silences_->Get(created->id);
  ASSERT_TRUE(expired.ok());
  ASSERT_TRUE(expired->deleted_at.has_value());
  EXPECT_EQ(silences_->List({})->size(), 1u);  // active ones only
  SilenceFilter everything;
  everything.include_expired = true;
  EXPECT_EQ(silences_->List(everything)->size(), 2u);
  EXPECT_EQ(silences_->Get("no-such-id").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(silences_->Expire("no-such-id").code(), absl::StatusCode::kNotFound);
}

// Migration 0008 on alerts stored before it: Siren's fields are filled from
// the stored labels and annotations, as the hook now derives them.
TEST(AlertFieldsMigrationTest, ExistingAlertsGetSirensFields) {
  auto db = db::TestDatabase::Create();
  ASSERT_TRUE(db.ok()) << db.status();
  auto pool = db::Pool::Create((*db)->dsn(), 1);
  ASSERT_TRUE(pool.ok()) << pool.status();
  db::MigrationSet before = db::NotificationMigrations();
  before.migrations.erase(std::remove_if(before.migrations.begin(), before.migrations.end(),
                                         [](const db::Migration& m) { return m.version >= 8; }),
                          before.migrations.end());
  ASSERT_TRUE(db::Migrate(**pool, {db::CoreMigrations(), before}).ok());
  ASSERT_TRUE((*pool)->Run([](soci::session& sql) {
                  sql << "INSERT INTO alerts (provider_type, provider_id, status, labels, "
                         "annotations, starts_at, fingerprint) VALUES ('cortex', '3', 'firing', "
                         "'{\"severity\": \"WARNING\"}', '{\"resource\": \"db-1\", "
                         "\"metric_name\": \"cpu\", \"metric_value\": \"81\", "
                         "\"template\": \"CPU\"}', to_timestamp(1000), 'f1')";
                  sql << "INSERT INTO alerts (provider_type, provider_id, status, labels, "
                         "starts_at, fingerprint) VALUES ('cortex', '3', 'resolved', "
                         "'{\"severity\": \"WARNING\"}', to_timestamp(2000), 'f2')";
                  return absl::OkStatus();
                }).ok());
  auto applied = db::Migrate(**pool, {db::CoreMigrations(), db::NotificationMigrations()});
  ASSERT_TRUE(applied.ok()) << applied.status();
  PostgresAlertRepository alerts(pool->get());
  AlertFilter f;
  f.provider_type = "cortex";
  f.provider_id = "3";
  auto all = alerts.List(f, Page{}, nullptr);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 2u);
  const Alert& resolved = (*all)[0];  // newest first
  EXPECT_EQ(resolved.severity, "resolved");
  EXPECT_EQ(resolved.resource_name, "");
  EXPECT_EQ(resolved.triggered_at, absl::FromUnixSeconds(2000));
  const Alert& firing = (*all)[1];
  EXPECT_EQ(firing.severity, "WARNING");
  EXPECT_EQ(firing.resource_name, "db-1");
  EXPECT_EQ(firing.metric_name, "cpu");
  EXPECT_EQ(firing.metric_value, "81");
  EXPECT_EQ(firing.rule, "CPU");
  EXPECT_EQ(firing.triggered_at, absl::FromUnixSeconds(1000));
  EXPECT_EQ(firing.silence_status, "");
  EXPECT_EQ(firing.namespace_id, 0u);
}

}  // namespace
}  // namespace sluice::notification
