#include "sink/control/masking.h"

#include <gtest/gtest.h>

namespace sluice::sink {
namespace {

// Review H6: GetStatus returned these variables in clear.
TEST(MaskSecrets, SecretNamesAreMaskedWhole) {
  EXPECT_EQ(MaskSecrets("SINK_JDBC_PASSWORD", "hunter2"), "****");
  EXPECT_EQ(MaskSecrets("SINK_HTTP_OAUTH2_CLIENT_SECRET", "s"), "****");
  EXPECT_EQ(MaskSecrets("SINK_CONTROL_TOKEN", "0123456789abcdef"), "****");
  EXPECT_EQ(MaskSecrets("SOURCE_KAFKA_CONSUMER_CONFIG_SASL_JAAS_CONFIG", "x"), "****");
}

TEST(MaskSecrets, UrlUserinfoKeepsTheUser) {
  EXPECT_EQ(MaskSecrets("SINK_JDBC_URL", "jdbc:postgresql://writer:s3cret@db:5432/analytics"),
            "jdbc:postgresql://writer:****@db:5432/analytics");
  EXPECT_EQ(MaskSecrets("SINK_HTTP_SERVICE_URL", "https://ghp_tok3n@api.example/x?a=1"),
            "https://****@api.example/x?a=1");
  EXPECT_EQ(MaskSecrets("SCHEMA_REGISTRY_STENCIL_URLS",
                        "http://u:p1@reg-a/s.desc,https://v:p2@reg-b/t.desc"),
            "http://u:****@reg-a/s.desc,https://v:****@reg-b/t.desc");
  // A password with an unencoded '/' or '@' is masked whole.
  EXPECT_EQ(MaskSecrets("SINK_HTTP_SERVICE_URL", "http://u:pa/ss@w@h/x"), "http://u:****@h/x");
  // No userinfo: unchanged, also with an '@' further on.
  EXPECT_EQ(MaskSecrets("SINK_HTTP_SERVICE_URL", "http://h/users/@me?mail=a@b.c"),
            "http://h/users/@me?mail=a@b.c");
  EXPECT_EQ(MaskSecrets("SOURCE_KAFKA_BROKERS", "kafka-0:9092,kafka-1:9092"),
            "kafka-0:9092,kafka-1:9092");
}

TEST(MaskSecrets, SecretParametersInJdbcUrlsAndDsns) {
  EXPECT_EQ(MaskSecrets("SINK_JDBC_URL",
                        "jdbc:postgresql://db:5432/a?user=writer&password=s3cret&sslmode=require"),
            "jdbc:postgresql://db:5432/a?user=writer&password=****&sslmode=require");
  EXPECT_EQ(MaskSecrets("SINK_JDBC_URL", "jdbc:sqlserver://db;user=w;Password=x;encrypt=true"),
            "jdbc:sqlserver://db;user=w;Password=****;encrypt=true");
  EXPECT_EQ(MaskSecrets("SINK_JDBC_URL", "host=db dbname=a password='a b c' user=w"),
            "host=db dbname=a password=**** user=w");
  EXPECT_EQ(MaskSecrets("SINK_JDBC_URL", "host=db sslpassword=k sslkey=/etc/k.pem"),
            "host=db sslpassword=**** sslkey=/etc/k.pem");
  EXPECT_EQ(MaskSecrets("SINK_HTTP_SERVICE_URL", "http://h/x?access_token=abc&id=1"),
            "http://h/x?access_token=****&id=1");
}

TEST(MaskSecrets, HeaderListsKeepNamesAndSchemes) {
  EXPECT_EQ(MaskSecrets("SINK_HTTP_HEADERS", "Authorization:Bearer eyJhbGc.x.y, X-Team:core"),
            "Authorization:Bearer ****, X-Team:core");
  EXPECT_EQ(MaskSecrets("SINK_HTTP_HEADERS", "proxy-authorization: Basic dXNlcjpwYXNz"),
            "proxy-authorization: Basic ****");
  EXPECT_EQ(MaskSecrets("SINK_HTTP_HEADERS", "Authorization:raw-key"), "Authorization:****");
  EXPECT_EQ(MaskSecrets("SINK_GRPC_METADATA", "authorization:bearer abc,x-tenant:t1"),
            "authorization:bearer ****,x-tenant:t1");
  EXPECT_EQ(MaskSecrets("SCHEMA_REGISTRY_STENCIL_FETCH_HEADERS",
                        "X-Api-Key:k123,Cookie:session=abc,X-Auth-Token:t,Accept:*/*"),
            "X-Api-Key:****,Cookie:****,X-Auth-Token:****,Accept:*/*");
  // Any header carrying bearer/basic credentials.
  EXPECT_EQ(MaskSecrets("SINK_HTTP_HEADERS", "X-Upstream-Auth:Bearer abc"),
            "X-Upstream-Auth:Bearer ****");
}

// Review R3-L1: the HTTPV2 templates (JSON objects) matched none of the rules
// above and were shown in clear.
TEST(MaskSecrets, JsonTemplatesMaskSecretMembers) {
  EXPECT_EQ(MaskSecrets("SINK_HTTPV2_HEADERS_TEMPLATE",
                        R"({"X-Api-Key":"header-template-secret-456","X-Team":"core"})"),
            R"({"X-Api-Key":"****","X-Team":"core"})");
  EXPECT_EQ(MaskSecrets("SINK_HTTPV2_QUERY_TEMPLATE",
                        R"({"api_key":"query-template-secret-789","id":"%s,order_number"})"),
            R"({"api_key":"****","id":"%s,order_number"})");
  // Authorization-like keys whatever their text; an auth scheme under any key.
  EXPECT_EQ(MaskSecrets("SINK_HTTPV2_HEADERS_TEMPLATE",
                        R"({"Authorization":"Bearer abc","Proxy-Authorization":"raw","X-Up":"Basic dXNlcg=="})"),
            R"({"Authorization":"Bearer ****","Proxy-Authorization":"****","X-Up":"Basic ****"})");
  // Nested members, arrays, numbers, URLs; members keep their order.
  EXPECT_EQ(
      MaskSecrets("SINK_HTTPV2_JSON_BODY_TEMPLATE",
                  R"({"id":"%s,order_number","creds":{"user":"u","password":"p"},"list":[{"token":"t"}],)"
                  R"("api_key":12345,"client_secret":{"a":"b"},"cb":"http://u:pw@h/x?access_token=z"})"),
      R"({"id":"%s,order_number","creds":{"user":"u","password":"****"},"list":[{"token":"****"}],)"
      R"("api_key":"****","client_secret":"****","cb":"http://u:****@h/x?access_token=****"})");
  EXPECT_EQ(MaskSecrets("SINK_HTTP_JSON_BODY_TEMPLATE", R"({"secret":"%s,order_number","n":1})"),
            R"({"secret":"****","n":1})");
  // JSON that does not parse is masked whole; a template that is not JSON
  // (a Redis key pattern) keeps the other rules.
  EXPECT_EQ(MaskSecrets("SINK_HTTPV2_HEADERS_TEMPLATE", R"({"X-Api-Key":"k")"), "****");
  EXPECT_EQ(MaskSecrets("SINK_REDIS_KEY_TEMPLATE", "order:%s,order_number"), "order:%s,order_number");
}

TEST(MaskedConfig, OnlySinkVariablesEachMasked) {
  Env env({{"SINK_HTTP_HEADERS", "Authorization:Bearer abc"},
           {"SINK_JDBC_PASSWORD", "p"},
           {"SOURCE_KAFKA_TOPIC", "orders"},
           {"HOME", "/root"}});
  auto m = MaskedConfig(env);
  EXPECT_EQ(m.at("SINK_HTTP_HEADERS"), "Authorization:Bearer ****");
  EXPECT_EQ(m.at("SINK_JDBC_PASSWORD"), "****");
  EXPECT_EQ(m.at("SOURCE_KAFKA_TOPIC"), "orders");
  EXPECT_EQ(m.count("HOME"), 0u);
}

}  // namespace
}  // namespace sluice::sink
