#include "sink/source/kafka_properties.h"

#include <regex.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>

#include "librdkafka/rdkafka.h"

namespace sluice::sink {
namespace {

constexpr char kC[] = "SOURCE_KAFKA_CONSUMER_CONFIG_";
constexpr char kP[] = "DLQ_KAFKA_";

KafkaProperties Consumer(std::map<std::string, std::string> suffixes) {
  auto t = TranslateKafkaProperties(kC, suffixes, KafkaClient::kConsumer);
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? *t : KafkaProperties{};
}

absl::Status ConsumerError(std::map<std::string, std::string> suffixes) {
  return TranslateKafkaProperties(kC, suffixes, KafkaClient::kConsumer).status();
}

// librdkafka itself takes the properties and creates the client.
void ExpectLibrdkafkaCreates(const KafkaProperties& kp, rd_kafka_type_t type) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  std::map<std::string, std::string> all = kp.properties;
  all["bootstrap.servers"] = "127.0.0.1:1";
  if (type == RD_KAFKA_CONSUMER) all["group.id"] = "g";
  for (const auto& [k, v] : all) {
    ASSERT_EQ(rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof(err)), RD_KAFKA_CONF_OK)
        << k << ": " << err;
  }
  rd_kafka_t* rk = rd_kafka_new(type, conf, err, sizeof(err));
  ASSERT_NE(rk, nullptr) << err;
  rd_kafka_destroy(rk);
}

std::string Notes(const KafkaProperties& kp) {
  std::string s;
  for (const auto& n : kp.notes) {
    s += (n.kind == KafkaPropertyNote::Kind::kTranslated ? "T " : "I ") + n.variable + ": " +
         n.text + "\n";
  }
  return s;
}

bool Has(const KafkaProperties& kp, KafkaPropertyNote::Kind kind, const std::string& variable) {
  for (const auto& n : kp.notes) {
    if (n.kind == kind && n.variable == variable) return true;
  }
  return false;
}

std::string WriteFile(const std::string& name, const std::string& content) {
  std::string path = std::string(getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp") + "/" + name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

TEST(KafkaProperties, FirehoseConsumerNamesAreTranslated) {
  KafkaProperties kp = Consumer({
      {"FETCH_MAX_WAIT_MS", "100"},
      {"RECEIVE_BUFFER_BYTES", "65536"},
      {"SEND_BUFFER_BYTES", "-1"},
      {"PARTITION_ASSIGNMENT_STRATEGY", "org.apache.kafka.clients.consumer.CooperativeStickyAssignor"},
      {"SESSION_TIMEOUT_MS", "10000"},  // librdkafka's own name: passed as is
      {"METADATA_MAX_AGE_MS", "500"},
      {"LOG_LEVEL", "6"},
  });
  EXPECT_EQ(kp.properties.at("fetch.wait.max.ms"), "100");
  EXPECT_EQ(kp.properties.at("socket.receive.buffer.bytes"), "65536");
  EXPECT_EQ(kp.properties.at("socket.send.buffer.bytes"), "0") << "Java -1 is the OS default";
  EXPECT_EQ(kp.properties.at("partition.assignment.strategy"), "cooperative-sticky");
  EXPECT_EQ(kp.properties.at("session.timeout.ms"), "10000");
  EXPECT_EQ(kp.properties.at("topic.metadata.refresh.interval.ms"), "500")
      << "Java's metadata.max.age.ms is a refresh interval";
  EXPECT_EQ(kp.properties.count("metadata.max.age.ms"), 0u);
  EXPECT_EQ(kp.properties.at("log_level"), "6");
  EXPECT_EQ(kp.properties.count("fetch.max.wait.ms"), 0u);
  EXPECT_TRUE(Has(kp, KafkaPropertyNote::Kind::kTranslated,
                  "SOURCE_KAFKA_CONSUMER_CONFIG_FETCH_MAX_WAIT_MS")) << Notes(kp);
  ExpectLibrdkafkaCreates(kp, RD_KAFKA_CONSUMER);
}

TEST(KafkaProperties, AssignorClassesMapToLibrdkafkaNames) {
  const std::string pkg = "org.apache.kafka.clients.consumer.";
  for (auto [cls, name] : std::vector<std::pair<std::string, std::string>>{
           {pkg + "RangeAssignor", "range"},
           {pkg + "RoundRobinAssignor", "roundrobin"},
           {pkg + "CooperativeStickyAssignor", "cooperative-sticky"},
           {pkg + "RangeAssignor," + pkg + "RoundRobinAssignor", "range,roundrobin"},
           {"cooperative-sticky", "cooperative-sticky"}}) {
    KafkaProperties kp = Consumer({{"PARTITION_ASSIGNMENT_STRATEGY", cls}});
    EXPECT_EQ(kp.properties.at("partition.assignment.strategy"), name) << cls;
    ExpectLibrdkafkaCreates(kp, RD_KAFKA_CONSUMER);
  }
  // Eager sticky has no librdkafka counterpart: refused, saying what to set.
  absl::Status s = ConsumerError({{"PARTITION_ASSIGNMENT_STRATEGY", pkg + "StickyAssignor"}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("SOURCE_KAFKA_CONSUMER_CONFIG_PARTITION_ASSIGNMENT_STRATEGY"), std::string::npos);
  EXPECT_NE(s.message().find("CooperativeStickyAssignor"), std::string::npos) << s;
  s = ConsumerError({{"PARTITION_ASSIGNMENT_STRATEGY", pkg + "RangeAssignor," + pkg + "CooperativeStickyAssignor"}});
  EXPECT_NE(s.message().find("mixes"), std::string::npos) << s;
  s = ConsumerError({{"PARTITION_ASSIGNMENT_STRATEGY", "com.example.MyAssignor"}});
  EXPECT_NE(s.message().find("com.example.MyAssignor"), std::string::npos) << s;
}

TEST(KafkaProperties, NoOpJavaPropertiesAreWarnedOnce) {
  KafkaProperties kp = Consumer({{"DEFAULT_API_TIMEOUT_MS", "60000"},
                                 {"CLIENT_DNS_LOOKUP", "use_all_dns_ips"},
                                 {"AUTO_COMMIT_ENABLE", "false"},
                                 {"KEY_DESERIALIZER", "org.apache.kafka.common.serialization.ByteArrayDeserializer"}});
  EXPECT_TRUE(kp.properties.empty());
  ASSERT_EQ(kp.notes.size(), 4u) << Notes(kp);
  for (const auto& n : kp.notes) EXPECT_EQ(n.kind, KafkaPropertyNote::Kind::kIgnored) << n.text;
  EXPECT_TRUE(Has(kp, KafkaPropertyNote::Kind::kIgnored, "SOURCE_KAFKA_CONSUMER_CONFIG_DEFAULT_API_TIMEOUT_MS"));
  ExpectLibrdkafkaCreates(kp, RD_KAFKA_CONSUMER);
}

TEST(KafkaProperties, UnknownNamesAndBadValuesNameTheVariable) {
  absl::Status s = ConsumerError({{"NO_SUCH_THING", "1"}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("SOURCE_KAFKA_CONSUMER_CONFIG_NO_SUCH_THING"), std::string::npos) << s;
  s = ConsumerError({{"FETCH_MAX_WAIT_MS", "soon"}});
  EXPECT_NE(s.message().find("SOURCE_KAFKA_CONSUMER_CONFIG_FETCH_MAX_WAIT_MS"), std::string::npos) << s;
  EXPECT_NE(s.message().find("fetch.wait.max.ms"), std::string::npos) << s;
  s = ConsumerError({{"INTERCEPTOR_CLASSES", "com.example.Tracing"}});
  EXPECT_NE(s.message().find("SOURCE_KAFKA_CONSUMER_CONFIG_INTERCEPTOR_CLASSES"), std::string::npos) << s;
  s = ConsumerError({{"VALUE_DESERIALIZER", "org.apache.kafka.common.serialization.StringDeserializer"}});
  EXPECT_NE(s.message().find("ByteArrayDeserializer"), std::string::npos) << s;
}

TEST(KafkaProperties, EmptyValuesAreUnsetButEmptyHostnameCheckIsNone) {
  KafkaProperties kp = Consumer({{"FETCH_MAX_WAIT_MS", ""}, {"SSL_ENDPOINT_IDENTIFICATION_ALGORITHM", ""}});
  EXPECT_EQ(kp.properties.count("fetch.wait.max.ms"), 0u);
  EXPECT_EQ(kp.properties.at("ssl.endpoint.identification.algorithm"), "none");
}

TEST(KafkaProperties, DlqProducerNamesAreTranslated) {
  auto t = TranslateKafkaProperties(
      kP,
      {{"BUFFER_MEMORY", "33554432"},
       {"KEY_SERIALIZER", "org.apache.kafka.common.serialization.ByteArraySerializer"},
       {"VALUE_SERIALIZER", "org.apache.kafka.common.serialization.ByteArraySerializer"},
       {"BATCH_SIZE", "16384"},
       {"LINGER_MS", "0"},
       {"RETRIES", "2147483647"},
       {"MAX_REQUEST_SIZE", "1048576"},
       {"FETCH_MAX_WAIT_MS", "100"}},  // a consumer property: Java's producer ignores it too
      KafkaClient::kProducer);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->properties.at("queue.buffering.max.kbytes"), "32768");
  EXPECT_EQ(t->properties.at("message.max.bytes"), "1048576");
  EXPECT_EQ(t->properties.at("batch.size"), "16384");
  EXPECT_EQ(t->properties.count("key.serializer"), 0u);
  EXPECT_EQ(t->properties.count("fetch.wait.max.ms"), 0u);
  EXPECT_TRUE(Has(*t, KafkaPropertyNote::Kind::kIgnored, "DLQ_KAFKA_KEY_SERIALIZER"));
  EXPECT_TRUE(Has(*t, KafkaPropertyNote::Kind::kIgnored, "DLQ_KAFKA_FETCH_MAX_WAIT_MS"));
  EXPECT_TRUE(Has(*t, KafkaPropertyNote::Kind::kTranslated, "DLQ_KAFKA_BUFFER_MEMORY"));
  ExpectLibrdkafkaCreates(*t, RD_KAFKA_PRODUCER);
  auto small = TranslateKafkaProperties(kP, {{"BUFFER_MEMORY", "1000"}}, KafkaClient::kProducer);
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(small->properties.at("queue.buffering.max.kbytes"), "1") << "rounded up, never 0";
  auto bad = TranslateKafkaProperties(kP, {{"VALUE_SERIALIZER", "io.confluent.kafka.serializers.KafkaAvroSerializer"}},
                                      KafkaClient::kProducer);
  EXPECT_NE(bad.status().message().find("DLQ_KAFKA_VALUE_SERIALIZER"), std::string::npos) << bad.status();
}

TEST(KafkaProperties, JaasPlainAndScramBecomeLibrdkafkaSasl) {
  KafkaProperties plain = Consumer(
      {{"SECURITY_PROTOCOL", "SASL_PLAINTEXT"},
       {"SASL_JAAS_CONFIG",
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"alice\" "
        "password=\"s3\\\"cr\\\\et\";"}});
  EXPECT_EQ(plain.properties.at("sasl.mechanism"), "PLAIN");
  EXPECT_EQ(plain.properties.at("sasl.username"), "alice");
  EXPECT_EQ(plain.properties.at("sasl.password"), "s3\"cr\\et");
  EXPECT_EQ(plain.properties.at("security.protocol"), "sasl_plaintext");
  EXPECT_EQ(Notes(plain).find("s3"), std::string::npos) << "never log the password: " << Notes(plain);
  ExpectLibrdkafkaCreates(plain, RD_KAFKA_CONSUMER);

  for (const char* mech : {"SCRAM-SHA-256", "SCRAM-SHA-512"}) {
    KafkaProperties scram = Consumer(
        {{"SECURITY_PROTOCOL", "SASL_SSL"},
         {"SASL_MECHANISM", mech},
         {"SASL_JAAS_CONFIG",
          "org.apache.kafka.common.security.scram.ScramLoginModule required\n"
          "  username=bob password=pw;"}});
    EXPECT_EQ(scram.properties.at("sasl.mechanism"), mech);
    EXPECT_EQ(scram.properties.at("sasl.username"), "bob");
    EXPECT_EQ(scram.properties.at("sasl.password"), "pw");
    ExpectLibrdkafkaCreates(scram, RD_KAFKA_CONSUMER);
  }
  absl::Status s = ConsumerError(
      {{"SASL_JAAS_CONFIG", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"b\" password=\"p\";"}});
  EXPECT_NE(s.message().find("SOURCE_KAFKA_CONSUMER_CONFIG_SASL_MECHANISM=SCRAM-SHA-256"), std::string::npos) << s;
  s = ConsumerError({{"SASL_JAAS_CONFIG",
                      "com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true "
                      "keyTab=\"/k.keytab\" principal=\"kafka@EXAMPLE.COM\";"}});
  EXPECT_NE(s.message().find("com.sun.security.auth.module.Krb5LoginModule"), std::string::npos) << s;
  EXPECT_NE(s.message().find("SASL_KERBEROS_KEYTAB"), std::string::npos) << s;
  s = ConsumerError({{"SASL_JAAS_CONFIG",
                      "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;"}});
  EXPECT_NE(s.message().find("OAuthBearerLoginModule"), std::string::npos) << s;
  s = ConsumerError({{"SASL_JAAS_CONFIG", "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"a\" password=\"secretvalue\""}});
  EXPECT_NE(s.message().find("';'"), std::string::npos) << s;
  EXPECT_EQ(s.message().find("secretvalue"), std::string::npos) << s;
}

TEST(KafkaProperties, JaasParserFollowsJavaSyntax) {
  auto e = ParseJaasConfig(
      "/* c */ org.apache.kafka.common.security.plain.PlainLoginModule Required // x\n"
      " username='u' password=\"a\\tb\\101\" extra=word-1 ;  ");
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->flag, "required");
  EXPECT_EQ(e->options.at("username"), "u");
  EXPECT_EQ(e->options.at("password"), "a\tbA");
  EXPECT_EQ(e->options.at("extra"), "word-1");
  EXPECT_FALSE(ParseJaasConfig("M required a=\"b\"; N required;").ok()) << "one entry only";
  EXPECT_FALSE(ParseJaasConfig("M maybe;").ok());
  EXPECT_FALSE(ParseJaasConfig("M required a=\"unterminated;").ok());
}

TEST(KafkaProperties, PemTruststoreBecomesCaLocationJksIsRefused) {
  KafkaProperties typed = Consumer({{"SSL_TRUSTSTORE_LOCATION", "/etc/ca.pem"},
                                    {"SSL_TRUSTSTORE_TYPE", "PEM"},
                                    {"SSL_TRUSTSTORE_PASSWORD", "changeit"}});
  EXPECT_EQ(typed.properties.at("ssl.ca.location"), "/etc/ca.pem");
  EXPECT_EQ(typed.properties.size(), 1u);
  EXPECT_TRUE(Has(typed, KafkaPropertyNote::Kind::kIgnored, "SOURCE_KAFKA_CONSUMER_CONFIG_SSL_TRUSTSTORE_PASSWORD"));

  std::string pem = WriteFile("ca.pem", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
  KafkaProperties sniffed = Consumer({{"SSL_TRUSTSTORE_LOCATION", pem}});
  EXPECT_EQ(sniffed.properties.at("ssl.ca.location"), pem);

  std::string jks = WriteFile("trust.jks", std::string("\xFE\xED\xFE\xED\x00\x00\x00\x02", 8));
  absl::Status s = ConsumerError({{"SSL_TRUSTSTORE_LOCATION", jks}, {"SSL_TRUSTSTORE_PASSWORD", "changeit"}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("SOURCE_KAFKA_CONSUMER_CONFIG_SSL_TRUSTSTORE_LOCATION"), std::string::npos);
  EXPECT_NE(s.message().find("keytool -exportcert -rfc"), std::string::npos) << s;
  s = ConsumerError({{"SSL_TRUSTSTORE_LOCATION", "/x.p12"}, {"SSL_TRUSTSTORE_TYPE", "PKCS12"}});
  EXPECT_NE(s.message().find("openssl pkcs12"), std::string::npos) << s;
  s = ConsumerError({{"SSL_TRUSTSTORE_LOCATION", "/no/such/file"}});
  EXPECT_NE(s.message().find("SSL_TRUSTSTORE_TYPE"), std::string::npos) << s;
}

// KIP-651's inline PEM truststore: with SSL_TRUSTSTORE_TYPE=PEM, as Java
// requires, the type is part of it (no "set without a location" note).
TEST(KafkaProperties, InlinePemTruststoreCertificatesBecomeCaPem) {
  const std::string ca = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
  KafkaProperties kp =
      Consumer({{"SSL_TRUSTSTORE_CERTIFICATES", ca}, {"SSL_TRUSTSTORE_TYPE", "PEM"}});
  EXPECT_EQ(kp.properties.at("ssl.ca.pem"), ca);
  EXPECT_EQ(kp.properties.size(), 1u);
  EXPECT_FALSE(Has(kp, KafkaPropertyNote::Kind::kIgnored, "SOURCE_KAFKA_CONSUMER_CONFIG_SSL_TRUSTSTORE_TYPE"))
      << Notes(kp);
  EXPECT_EQ(Notes(kp).find("MIIB"), std::string::npos) << "certificates are not echoed";
  absl::Status s = ConsumerError({{"SSL_TRUSTSTORE_CERTIFICATES", ca}, {"SSL_TRUSTSTORE_TYPE", "JKS"}});
  EXPECT_NE(s.message().find("SOURCE_KAFKA_CONSUMER_CONFIG_SSL_TRUSTSTORE_TYPE: must be PEM"),
            std::string::npos)
      << s;
  s = ConsumerError({{"SSL_TRUSTSTORE_CERTIFICATES", ca}, {"SSL_TRUSTSTORE_LOCATION", "/etc/ca.pem"}});
  EXPECT_NE(s.message().find("not both"), std::string::npos) << s;
}

TEST(KafkaProperties, KeystorePkcs12PassesJksIsRefused) {
  KafkaProperties kp = Consumer({{"SSL_KEYSTORE_LOCATION", "/k.p12"},
                                 {"SSL_KEYSTORE_TYPE", "PKCS12"},
                                 {"SSL_KEYSTORE_PASSWORD", "pw"}});
  EXPECT_EQ(kp.properties.at("ssl.keystore.location"), "/k.p12");
  EXPECT_EQ(kp.properties.at("ssl.keystore.password"), "pw");
  absl::Status s = ConsumerError({{"SSL_KEYSTORE_LOCATION", "/k.jks"}, {"SSL_KEYSTORE_TYPE", "JKS"}});
  EXPECT_NE(s.message().find("keytool -importkeystore"), std::string::npos) << s;
}

// Whether librdkafka's regex (POSIX ERE, regcomp) matches `topic`.
bool Matches(const std::string& ere, const std::string& topic) {
  regex_t re;
  EXPECT_EQ(regcomp(&re, ere.c_str(), REG_EXTENDED | REG_NOSUB), 0) << ere;
  bool m = regexec(&re, topic.c_str(), 0, nullptr, 0) == 0;
  regfree(&re);
  return m;
}

TEST(TopicSubscription, JavaPatternsMatchWholeNames) {
  EXPECT_EQ(*TopicSubscription("orders"), "orders") << "a plain name is subscribed literally";
  EXPECT_EQ(*TopicSubscription("orders_v-1"), "orders_v-1");
  auto dot = TopicSubscription("orders.v1");
  ASSERT_TRUE(dot.ok());
  EXPECT_EQ(*dot, "^(orders.v1)$");
  EXPECT_TRUE(Matches(*dot, "orders.v1"));
  EXPECT_TRUE(Matches(*dot, "ordersXv1")) << "'.' is any character, as in Firehose";
  EXPECT_FALSE(Matches(*dot, "orders.v12")) << "whole names only (Java's matches())";
  EXPECT_FALSE(Matches(*dot, "my-orders.v1"));
  struct Case {
    std::string java;
    std::vector<std::string> yes, no;
  };
  for (const Case& c : std::vector<Case>{
           {"orders-\\d+", {"orders-1", "orders-42"}, {"orders-", "orders-x"}},
           {"orders\\.v\\w", {"orders.v1", "orders.v_"}, {"ordersXv1", "orders.v-"}},
           {"(?:a|b)-events", {"a-events", "b-events"}, {"c-events", "ab-events"}},
           {"(?<env>prod|stg)\\.logs", {"prod.logs", "stg.logs"}, {"dev.logs"}},
           {"[a-c\\.\\-]+x", {"a.b-x", "cx"}, {"dx", "\\x"}},
           {"[^\\d]x", {"ax"}, {"1x"}},
           {"t.*?z{1,2}", {"tz", "tabczz"}, {"tabc"}},
           {"^orders$", {"orders"}, {"orders2"}},
           {"\\Qa.b\\E.c", {"a.bXc"}, {"aXbXc"}},
           {"[]-]", {"]", "-"}, {"a"}},
       }) {
    auto ere = TopicSubscription(c.java);
    if (c.java == "[]-]") {
      EXPECT_FALSE(ere.ok()) << "a ']'-first class is refused: " << c.java;
      continue;
    }
    ASSERT_TRUE(ere.ok()) << c.java << ": " << ere.status();
    for (const auto& t : c.yes) EXPECT_TRUE(Matches(*ere, t)) << c.java << " -> " << *ere << " vs " << t;
    for (const auto& t : c.no) EXPECT_FALSE(Matches(*ere, t)) << c.java << " -> " << *ere << " vs " << t;
  }
}

TEST(TopicSubscription, ConstructsReadDifferentlyAreRefusedByName) {
  for (auto [java, construct] : std::vector<std::pair<std::string, std::string>>{
           {"orders(?=-v1)", "lookahead"},
           {"orders(?!-v1).*", "lookahead"},
           {"(?<=a)b", "lookbehind"},
           {"a++", "possessive"},
           {"(a)\\1", "back reference"},
           {"(?i)orders", "inline flags"},
           {"(?>a)", "atomic"},
           {"\\sorders", "\\s"},
           {"\\borders", "\\b"},
           {"[a-z&&[^x]]", "intersection"},
           {"[a[b]]", "nested class"},
           {"[a-z&&b]", "intersection"},
           {"\\p{Alpha}", "\\p"},
           {"*a", "nothing to repeat"},
           {"(a", "unbalanced"},
       }) {
    auto ere = TopicSubscription(java);
    ASSERT_FALSE(ere.ok()) << java << " -> " << *ere;
    EXPECT_EQ(ere.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(ere.status().message().find("SOURCE_KAFKA_TOPIC"), std::string::npos);
    EXPECT_NE(ere.status().message().find(construct), std::string::npos)
        << java << ": " << ere.status();
  }
}

}  // namespace
}  // namespace sluice::sink
