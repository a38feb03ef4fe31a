#include "server/access/core/provider_service.h"

#include <gtest/gtest.h>

#include "server/access/core/fakes.h"
#include "server/access/core/json.h"
#include "server/access/core/validation.h"

namespace sluice::access {
namespace {

class ProviderServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    pb::Policy p;
    p.set_id("pol");
    p.set_version(1);
    policies_.policies[{"pol", 1}] = p;
    auto client = std::make_unique<testing::FakeProviderClient>();
    client_ = client.get();
    std::vector<std::unique_ptr<ProviderClient>> clients;
    clients.push_back(std::move(client));
    registry_ = std::make_unique<ProviderRegistry>(std::move(clients));
    service_ = std::make_unique<ProviderService>(&providers_, &policies_, registry_.get(),
                                                 crypter_.get());
    for (const char* urn : {"keep-1", "drop-2", "keep-3"}) {
      pb::Resource r;
      r.set_type("bucket");
      r.set_urn(urn);
      client_->resources.push_back(r);
    }
    pb::Resource other;
    other.set_type("unconfigured");
    other.set_urn("x");
    client_->resources.push_back(other);
  }
  pb::ProviderConfig Config() {
    pb::ProviderConfig c;
    (void)JsonStringToProto(R"({
      "type": "fake", "urn": "f1", "allowed_account_types": ["user"],
      "credentials": {"host": "h", "password": "pw", "nested": {"api_key": "k"}},
      "resources": [{"type": "bucket", "policy": {"id": "pol", "version": 1},
                     "roles": [{"id": "viewer"}], "filter": "$resource.urn startsWith 'keep'"}]
    })", &c);
    return c;
  }
  testing::FakePolicyRepository policies_;
  testing::FakeProviderRepository providers_;
  testing::FakeProviderClient* client_ = nullptr;
  std::unique_ptr<ProviderRegistry> registry_;
  std::unique_ptr<Crypter> crypter_ = Crypter::Development();
  std::unique_ptr<ProviderService> service_;
};

TEST_F(ProviderServiceTest, CreateFiltersEncryptsAndMasks) {
  auto p = service_->Create(Config(), "alice@x.com");
  ASSERT_TRUE(p.ok()) << p.status();
  const auto& creds = p->config().credentials().fields();
  EXPECT_EQ(creds.at("host").string_value(), "h");
  EXPECT_EQ(creds.at("password").string_value(), kMaskedSecret);
  EXPECT_EQ(creds.at("nested").struct_value().fields().at("api_key").string_value(), kMaskedSecret);
  const auto& stored = providers_.providers.at(p->id());
  EXPECT_FALSE(stored.provider.config().has_credentials());
  EXPECT_TRUE(Crypter::IsEncrypted(stored.encrypted_credentials));
  const auto& rs = providers_.resources.at(p->id());
  ASSERT_EQ(rs.size(), 2u);  // filter + unconfigured type dropped
  EXPECT_EQ(rs[0].urn(), "keep-1");
  EXPECT_EQ(rs[0].provider_type(), "fake");
  EXPECT_EQ(rs[0].provider_urn(), "f1");
  EXPECT_TRUE(absl::IsAlreadyExists(service_->Create(Config(), "alice@x.com").status()));
  auto plain = service_->GetPlainConfig("fake", "f1");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->credentials().fields().at("password").string_value(), "pw");
}

TEST_F(ProviderServiceTest, CreateErrors) {
  auto c = Config();
  c.set_type("nope");
  auto st = service_->Create(c, "a@x.com").status();
  EXPECT_TRUE(absl::IsInvalidArgument(st));
  EXPECT_NE(st.message().find("known types: fake"), std::string::npos) << st;
  c = Config();
  c.mutable_resources(0)->mutable_policy()->set_version(2);
  EXPECT_TRUE(absl::IsNotFound(service_->Create(c, "a@x.com").status()));
  c = Config();
  c.set_allowed_account_types(0, "robot");
  EXPECT_TRUE(absl::IsInvalidArgument(service_->Create(c, "a@x.com").status()));
  client_->validate = absl::InvalidArgumentError("credentials.host: bad");
  EXPECT_EQ(service_->Create(Config(), "a@x.com").status(), client_->validate);
  client_->validate = absl::OkStatus();
  client_->fetch_error = absl::FailedPreconditionError("cannot reach");
  EXPECT_EQ(service_->Create(Config(), "a@x.com").status(), client_->fetch_error);
  EXPECT_TRUE(providers_.providers.empty());  // nothing stored
}

// Guardian's defaults: no allowed_account_types means the plugin's types, and
// its docs write durations in days ("7d").
TEST_F(ProviderServiceTest, GuardianDefaultsAccountTypesAndDayDurations) {
  auto c = Config();
  c.clear_allowed_account_types();
  c.mutable_appeal()->set_allow_active_access_extension_in("7d");
  auto p = service_->Create(c, "a@x.com");
  ASSERT_TRUE(p.ok()) << p.status();
  std::vector<std::string> types(p->config().allowed_account_types().begin(),
                                 p->config().allowed_account_types().end());
  EXPECT_EQ(types, client_->GetAccountTypes());
  EXPECT_EQ(*ParseDurationField("d", "7d"), absl::Hours(168));
  EXPECT_EQ(*ParseDurationField("d", "1d12h"), absl::Hours(36));
  EXPECT_FALSE(ParseDurationField("d", "0d").ok());
  EXPECT_FALSE(ParseDurationField("d", "d").ok());
  EXPECT_FALSE(ParseDurationField("d", "1h2d").ok());
}

// Guardian's UpdateProvider stores the request's config as it is
// (core/provider/service.go Update): what the request leaves out is gone.
TEST_F(ProviderServiceTest, UpdateReplacesTheConfigAndKeepsMaskedSecrets) {
  pb::ProviderConfig config = Config();
  (*config.mutable_labels())["old"] = "label";
  auto* routed = config.add_policies();
  routed->set_when("true");
  routed->set_policy("pol@1");
  auto p = service_->Create(config, "alice@x.com");
  ASSERT_TRUE(p.ok()) << p.status();

  pb::ProviderConfig change = Config();
  change.clear_urn();  // the provider's own
  change.clear_allowed_account_types();  // the plugin's, as on Create
  (*change.mutable_labels())["team"] = "data";
  auto& creds = *change.mutable_credentials()->mutable_fields();
  creds["password"].set_string_value(kMaskedSecret);
  (*creds["nested"].mutable_struct_value()->mutable_fields())["api_key"].set_string_value(
      kMaskedSecret);
  auto u = service_->Update(p->id(), change, "bob@x.com");
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_EQ(u->config().labels().size(), 1u);  // "old" is gone, as in Guardian
  EXPECT_EQ(u->config().labels().at("team"), "data");
  EXPECT_EQ(u->config().policies_size(), 0);  // no `when` routing left behind
  EXPECT_EQ(u->config().urn(), "f1");
  EXPECT_EQ(u->config().allowed_account_types_size(), client_->GetAccountTypes().size());
  EXPECT_EQ(client_->fetches, 2);
  auto plain = service_->GetPlainConfig("fake", "f1");
  EXPECT_EQ(plain->credentials().fields().at("password").string_value(), "pw");
  EXPECT_EQ(plain->credentials()
                .fields()
                .at("nested")
                .struct_value()
                .fields()
                .at("api_key")
                .string_value(),
            "k");
  EXPECT_EQ(plain->policies_size(), 0);

  // A key left out of credentials is dropped; a masked key with nothing
  // stored is refused by its path.
  creds.erase("nested");
  ASSERT_TRUE(service_->Update(p->id(), change, "bob@x.com").ok());
  EXPECT_EQ(service_->GetPlainConfig("fake", "f1")->credentials().fields().count("nested"), 0u);
  creds["token"].set_string_value(kMaskedSecret);
  auto refused = service_->Update(p->id(), change, "bob@x.com");
  EXPECT_TRUE(absl::IsInvalidArgument(refused.status()));
  EXPECT_NE(refused.status().message().find("credentials.token"), std::string::npos)
      << refused.status();
  creds.erase("token");

  // Leaving out resources is not "keep them": the plugin's rules apply.
  pb::ProviderConfig bare;
  EXPECT_FALSE(service_->Update(p->id(), bare, "b@x.com").ok());

  change.set_urn("other");
  EXPECT_TRUE(absl::IsInvalidArgument(service_->Update(p->id(), change, "b@x.com").status()));
  EXPECT_TRUE(absl::IsNotFound(service_->Update("missing", {}, "b@x.com").status()));
}

// Review C5: a new host never receives the stored password.
TEST_F(ProviderServiceTest, NewDestinationNeedsTheSecretAgain) {
  auto p = service_->Create(Config(), "alice@x.com");
  ASSERT_TRUE(p.ok());
  pb::ProviderConfig change = Config();
  change.clear_credentials();
  (*change.mutable_credentials()->mutable_fields())["host"].set_string_value("evil");
  for (bool masked : {false, true}) {
    if (masked) {
      (*change.mutable_credentials()->mutable_fields())["password"].set_string_value(kMaskedSecret);
    }
    auto refused = service_->Update(p->id(), change, "bob@x.com");
    EXPECT_TRUE(absl::IsInvalidArgument(refused.status())) << refused.status();
    EXPECT_NE(refused.status().message().find("credentials.password: must be supplied again when "
                                              "credentials.host changes"),
              std::string::npos)
        << refused.status();
  }
  EXPECT_EQ(client_->fetches, 1);  // never connected to "evil"
  // A ciphertext is not a secret supplied again (review M1).
  (*change.mutable_credentials()->mutable_fields())["password"].set_string_value("v2:AAAA");
  EXPECT_TRUE(absl::IsInvalidArgument(service_->Update(p->id(), change, "b@x.com").status()));
  (*change.mutable_credentials()->mutable_fields())["password"].set_string_value("pw-for-h2");
  (*change.mutable_credentials()->mutable_fields())["host"].set_string_value("h2");
  ASSERT_TRUE(service_->Update(p->id(), change, "bob@x.com").ok());
  auto plain = service_->GetPlainConfig("fake", "f1");
  EXPECT_EQ(plain->credentials().fields().at("password").string_value(), "pw-for-h2");
  EXPECT_EQ(plain->credentials().fields().at("host").string_value(), "h2");
}

TEST_F(ProviderServiceTest, RolesAndSyncAll) {
  auto p = service_->Create(Config(), "alice@x.com");
  ASSERT_TRUE(p.ok());
  auto roles = service_->ListRoles(p->id(), "bucket");
  ASSERT_TRUE(roles.ok());
  EXPECT_EQ((*roles)[0].id(), "viewer");
  EXPECT_TRUE(absl::IsNotFound(service_->ListRoles(p->id(), "table").status()));
  client_->resources.resize(1);
  auto synced = service_->SyncAll();
  EXPECT_EQ(synced.providers_failed, 0);
  EXPECT_EQ(synced.providers_synced, 1);
  EXPECT_EQ(synced.resources, 1);
  EXPECT_EQ(providers_.resources.at(p->id()).size(), 1u);
  EXPECT_EQ(providers_.audit.back().actor, "system");
  client_->fetch_error = absl::UnavailableError("down");
  auto failed = service_->SyncAll();
  EXPECT_EQ(failed.providers_failed, 1);
  EXPECT_EQ(failed.providers_synced, 0);
}

// Guardian's configs leave allowed_account_types out: every account type the
// plugin supports is allowed then.
TEST_F(ProviderServiceTest, MissingAllowedAccountTypesDefaultToThePlugins) {
  auto c = Config();
  c.clear_allowed_account_types();
  auto p = service_->Create(c, "alice@x.com");
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->config().allowed_account_types_size(), 2);
  EXPECT_EQ(p->config().allowed_account_types(0), "user");
  EXPECT_EQ(p->config().allowed_account_types(1), "serviceAccount");
}

// The BI plugins' secrets: password, Grafana's api_key, a session token.
// Issue 28: dry_run validates (the plugin's config check included), fetches
// the resources and returns the provider that would be stored, masked;
// nothing is written.
TEST_F(ProviderServiceTest, DryRunFetchesButWritesNothing) {
  auto dry = service_->Create(Config(), "admin@x.com", /*dry_run=*/true);
  ASSERT_TRUE(dry.ok()) << dry.status();
  EXPECT_TRUE(dry->id().empty());
  EXPECT_EQ(dry->urn(), "f1");
  EXPECT_EQ(dry->config().credentials().fields().at("password").string_value(), kMaskedSecret);
  EXPECT_EQ(client_->fetches, 1);
  EXPECT_TRUE(providers_.providers.empty());
  EXPECT_TRUE(providers_.audit.empty());
  client_->validate = absl::InvalidArgumentError("credentials.host: unreachable");
  EXPECT_TRUE(absl::IsInvalidArgument(service_->Create(Config(), "a@x.com", true).status()));
  client_->validate = absl::OkStatus();
  auto created = service_->Create(Config(), "admin@x.com");
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_TRUE(absl::IsAlreadyExists(service_->Create(Config(), "a@x.com", true).status()));
  pb::ProviderConfig change = Config();
  (*change.mutable_labels())["team"] = "data";
  auto dry_update = service_->Update(created->id(), change, "admin@x.com", /*dry_run=*/true);
  ASSERT_TRUE(dry_update.ok()) << dry_update.status();
  EXPECT_EQ(dry_update->config().labels().at("team"), "data");
  auto stored = service_->Get(created->id());
  ASSERT_TRUE(stored.ok());
  EXPECT_TRUE(stored->config().labels().empty());
  EXPECT_EQ(providers_.audit.size(), 1u);
}

// Issue 28: ProviderConfig.policies is checked at create/update (when
// required and compiling, "<id>@<version>" naming an existing policy) and
// kept with the config.
TEST_F(ProviderServiceTest, PoliciesAreValidatedAndKept) {
  auto with = [&](const std::string& when, const std::string& policy) {
    pb::ProviderConfig c = Config();
    auto* entry = c.add_policies();
    entry->set_when(when);
    entry->set_policy(policy);
    return c;
  };
  auto expect = [&](const pb::ProviderConfig& c, absl::StatusCode code, const std::string& field) {
    auto st = service_->Create(c, "admin@x.com", /*dry_run=*/true).status();
    EXPECT_EQ(st.code(), code) << st;
    EXPECT_NE(st.message().find(field), std::string::npos) << st.message();
  };
  expect(with("", "pol@1"), absl::StatusCode::kInvalidArgument, "policies[0].when");
  expect(with("$appeal.role ==", "pol@1"), absl::StatusCode::kInvalidArgument,
         "policies[0].when");
  expect(with("true", "pol@x"), absl::StatusCode::kInvalidArgument, "policies[0].policy");
  expect(with("true", "bad id@1"), absl::StatusCode::kInvalidArgument, "policies[0].policy");
  expect(with("true", "pol@2"), absl::StatusCode::kNotFound, "policies[0].policy");
  expect(with("true", "other"), absl::StatusCode::kNotFound, "policies[0].policy");
  auto created = service_->Create(with("$appeal.role == 'editor'", "pol@latest"), "admin@x.com");
  ASSERT_TRUE(created.ok()) << created.status();
  auto got = service_->Get(created->id());
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->config().policies_size(), 1);
  EXPECT_EQ(got->config().policies(0).policy(), "pol@latest");
  EXPECT_EQ(got->config().policies(0).when(), "$appeal.role == 'editor'");
}

TEST(MaskCredentialsTest, MasksTheBiProvidersSecrets) {
  google::protobuf::Struct creds = JsonToStruct(
      {{"host", "http://h"}, {"username", "u"}, {"password", "p"}, {"api_key", "k"},
       {"content_url", "site"}, {"token", "t"}});
  MaskCredentials(&creds);
  for (const char* k : {"password", "api_key", "token"}) {
    EXPECT_EQ(creds.fields().at(k).string_value(), kMaskedSecret) << k;
  }
  for (const char* k : {"host", "username", "content_url"}) {
    EXPECT_NE(creds.fields().at(k).string_value(), kMaskedSecret) << k;
  }
}

// Tableau's permission objects reach appeals as Guardian's "name@type".
TEST(PermissionStringTest, StringsObjectsAndOthers) {
  pb::Role role;
  ASSERT_TRUE(JsonStringToProto(R"({"id": "r", "permissions": ["view", {"name": "Read:Allow"},
      {"name": "Viewer", "type": "site_role"}, {"name": "x", "extra": 1}, 3]})", &role).ok());
  std::vector<std::string> got;
  for (const auto& p : role.permissions()) got.push_back(PermissionString(p));
  EXPECT_EQ(got, (std::vector<std::string>{"view", "Read:Allow", "Viewer@site_role",
                                           R"({"extra":1,"name":"x"})", "3"}));
}

}  // namespace
}  // namespace sluice::access
