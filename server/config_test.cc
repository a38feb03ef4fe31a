#include "server/config.h"

#include <gtest/gtest.h>

namespace sluice::server {
namespace {

TEST(Config, DefaultsMatchTheReadme) {
  Config c;
  EXPECT_EQ(c.grpc_port, 8081);
  EXPECT_EQ(c.metrics_port, 9091);
  EXPECT_TRUE(c.db.auto_migrate);
  EXPECT_EQ(c.grpc_threads, 64);
}

TEST(Config, GrpcThreadsIsReadAndMustBePositive) {
  auto c = ParseConfigYaml("grpc_threads: 8\ndb:\n  dsn: host=x\n");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->grpc_threads, 8);
  EXPECT_TRUE(Validate(*c).ok());
  c->grpc_threads = 0;
  EXPECT_NE(Validate(*c).message().find("grpc_threads"), std::string::npos);
}

TEST(Config, RpcDeadlineDefaultsTo30sAndIsBounded) {
  auto c = ParseConfigYaml("db:\n  dsn: host=x\n");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->rpc_deadline_seconds, 30);
  c = ParseConfigYaml("rpc_deadline_seconds: 5\ndb:\n  dsn: host=x\n");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->rpc_deadline_seconds, 5);
  EXPECT_TRUE(Validate(*c).ok());
  for (int bad : {0, 3601}) {
    c->rpc_deadline_seconds = bad;
    EXPECT_NE(Validate(*c).message().find("rpc_deadline_seconds"), std::string::npos) << bad;
  }
}

TEST(Config, YamlOverridesOnlyGivenKeys) {
  auto c = ParseConfigYaml("grpc_port: 9000\ndb:\n  dsn: postgres://u@h/db\n  pool_size: 3\n");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->grpc_port, 9000);
  EXPECT_EQ(c->metrics_port, 9091);
  EXPECT_EQ(c->db.dsn, "postgres://u@h/db");
  EXPECT_EQ(c->db.pool_size, 3);
  EXPECT_TRUE(Validate(*c).ok());
}

TEST(Config, DbTimeoutsHaveDefaultsAndAreChecked) {
  Config d;
  EXPECT_EQ(d.db.lease_timeout_seconds, 10);
  EXPECT_EQ(d.db.statement_timeout_ms, 30000);
  auto c = ParseConfigYaml(
      "db:\n  dsn: host=x\n  lease_timeout_seconds: 3\n  statement_timeout_ms: 0\n");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->db.lease_timeout_seconds, 3);
  EXPECT_EQ(c->db.statement_timeout_ms, 0);
  EXPECT_TRUE(Validate(*c).ok());
  c->db.lease_timeout_seconds = 0;
  EXPECT_NE(Validate(*c).message().find("db.lease_timeout_seconds"), std::string::npos);
  c->db.lease_timeout_seconds = 1;
  c->db.statement_timeout_ms = -1;
  EXPECT_NE(Validate(*c).message().find("db.statement_timeout_ms"), std::string::npos);
}

TEST(Config, ErrorsNameTheKey) {
  auto bad_type = ParseConfigYaml("grpc_port: lots\n");
  ASSERT_FALSE(bad_type.ok());
  EXPECT_NE(bad_type.status().message().find("grpc_port"), std::string::npos);
  auto unknown = ParseConfigYaml("db:\n  dns: x\n");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("db.dns"), std::string::npos);
  EXPECT_FALSE(ParseConfigYaml("[1, 2]").ok());
  EXPECT_FALSE(ParseConfigYaml("a: [").ok());
}

// Finding F-L3: auth.header.mtls_identity is read, and a wrong value is
// refused naming the key.
TEST(Config, MtlsIdentityIsReadAndChecked) {
  auto c = ParseConfigYaml("db:\n  dsn: host=x\n");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->auth.mtls_identity, auth::MtlsIdentity::kHeader);
  c = ParseConfigYaml("auth:\n  header:\n    mtls_identity: san_email\n");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->auth.mtls_identity, auth::MtlsIdentity::kSanEmail);
  c = ParseConfigYaml("auth:\n  header:\n    mtls_identity: cn\n");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->auth.mtls_identity, auth::MtlsIdentity::kCn);
  c = ParseConfigYaml("tls:\n  cert_file: s.pem\n  key_file: s.key\n  client_ca_file: ca.pem\n"
                      "  client_allowed_names: [gateway, proxy.sluice.svc]\n");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->auth.mtls_allowed_names, (std::vector<std::string>{"gateway", "proxy.sluice.svc"}));
  auto no_ca = ParseConfigYaml("tls:\n  client_allowed_names: [gateway]\n");
  ASSERT_FALSE(no_ca.ok());
  EXPECT_NE(no_ca.status().message().find("tls.client_allowed_names"), std::string::npos);
  auto bad = ParseConfigYaml("auth:\n  header:\n    mtls_identity: subject\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("auth.header.mtls_identity"), std::string::npos) << bad.status();
}

TEST(Config, ValidateRequiresDsnAndSanePorts) {
  Config c;
  EXPECT_NE(Validate(c).message().find("SLUICE_DB_DSN"), std::string::npos);
  c.db.dsn = "host=x";
  c.grpc_port = 70000;
  EXPECT_NE(Validate(c).message().find("grpc_port"), std::string::npos);
}

TEST(Config, EnvOverridesFile) {
  setenv("SLUICE_DB_DSN", "host=from-env", 1);
  setenv("SLUICE_DB_POOL_SIZE", "4", 1);
  auto c = ApplyEnv(*ParseConfigYaml("db:\n  dsn: host=from-file\n"));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->db.dsn, "host=from-env");
  EXPECT_EQ(c->db.pool_size, 4);
  setenv("SLUICE_DB_POOL_SIZE", "four", 1);
  EXPECT_FALSE(ApplyEnv(Config{}).ok());
  unsetenv("SLUICE_DB_DSN");
  unsetenv("SLUICE_DB_POOL_SIZE");
}

}  // namespace
}  // namespace sluice::server
