#include "sink/config.h"

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"

namespace sluice::sink {
namespace {

std::map<std::string, std::string> Base() {
  return {{"SINK_TYPE", "LOG"},
          {"SOURCE_KAFKA_BROKERS", "localhost:9092"},
          {"SOURCE_KAFKA_TOPIC", "t"},
          {"SOURCE_KAFKA_CONSUMER_GROUP_ID", "g"},
          {"INPUT_SCHEMA_PROTO_CLASS", "com.example.Foo"},
          {"SCHEMA_REGISTRY_STENCIL_URLS", "file:///tmp/x.desc"}};
}

TEST(Config, DefaultsAreFirehoses) {
  auto c = ParseSinkConfig(Env(Base()));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->sink_type, "log");
  EXPECT_EQ(c->source.max_poll_records, 500);
  EXPECT_TRUE(c->source.async_commit);
  EXPECT_EQ(c->source.auto_offset_reset, "latest");
  EXPECT_EQ(c->source.thread_count, 1);
  // goto Firehose's ErrorConfig default: a 429 (SINK_RETRYABLE_ERROR) is
  // retried, not dead-lettered.
  EXPECT_EQ(c->errors.retry,
            (std::set<ErrorType>{ErrorType::kDefaultError, ErrorType::kSinkRetryableError}));
  EXPECT_TRUE(c->errors.dlq.empty());
  EXPECT_EQ(c->errors.failing.size(), 3u);
  EXPECT_EQ(c->errors.backoff_initial_ms, 10);
  EXPECT_EQ(c->errors.backoff_rate, 2);
  EXPECT_EQ(c->errors.backoff_max_ms, 60000);
  EXPECT_FALSE(c->errors.dlq_enable);
  EXPECT_EQ(c->metrics.statsd_host, "localhost");
  EXPECT_EQ(c->metrics.statsd_port, 8125);
  EXPECT_EQ(c->control.port, 8082);
  EXPECT_EQ(c->control.host, "127.0.0.1") << "loopback unless told otherwise";
  EXPECT_FALSE(c->control.has_token());
  EXPECT_FALSE(c->filter.jexl);
  EXPECT_FALSE(c->schema.parse_key);
  // Firehose's KafkaConsumerConfig and Stencil AppConfig defaults.
  EXPECT_EQ(c->source.kafka_properties.at("session.timeout.ms"), "10000");
  EXPECT_EQ(c->source.kafka_properties.at("topic.metadata.refresh.interval.ms"), "5000");
  EXPECT_EQ(c->source.kafka_properties.at("partition.assignment.strategy"), "cooperative-sticky")
      << "Firehose's CooperativeStickyAssignor: a rolling swap shares the group protocol";
  EXPECT_EQ(c->source.manual_commit_min_interval_ms, -1);
  EXPECT_EQ(c->source.subscription, "t");
  EXPECT_TRUE(c->kafka_notes.empty());
  EXPECT_TRUE(c->source.group_instance_id.empty());
  EXPECT_FALSE(c->schema.stencil_enable);
  EXPECT_EQ(c->schema.fetch_timeout_ms, 10000);
  EXPECT_EQ(c->schema.fetch_retries, 4);
  EXPECT_EQ(c->schema.fetch_backoff_min_ms, 60000);
  EXPECT_FALSE(c->schema.cache_auto_refresh);
  EXPECT_EQ(c->schema.cache_ttl_ms, 900000);
  EXPECT_TRUE(c->schema.version_based_refresh);
  EXPECT_TRUE(c->schema.fetch_headers.empty());
}

TEST(Config, ConsumerDefaultsYieldToTheVariablesAndTheInstanceIdIsPerWorker) {
  auto vars = Base();
  vars["SOURCE_KAFKA_CONSUMER_CONFIG_SESSION_TIMEOUT_MS"] = "6000";
  vars["SOURCE_KAFKA_CONSUMER_CONFIG_GROUP_INSTANCE_ID"] = "sink-a";
  auto c = ParseSinkConfig(Env(vars));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->source.kafka_properties.at("session.timeout.ms"), "6000");
  EXPECT_EQ(c->source.kafka_properties.at("topic.metadata.refresh.interval.ms"), "5000");
  EXPECT_EQ(c->source.group_instance_id, "sink-a");
  EXPECT_EQ(c->source.kafka_properties.count("group.instance.id"), 0u)
      << "one id shared by every worker would fence them against each other";
}

TEST(Config, StencilBearerTokenBecomesAnAuthorizationHeader) {
  auto vars = Base();
  vars["SCHEMA_REGISTRY_STENCIL_FETCH_AUTH_BEARER_TOKEN"] = "s3cret";
  vars["SCHEMA_REGISTRY_STENCIL_REFRESH_STRATEGY"] = "long_polling";
  auto c = ParseSinkConfig(Env(vars));
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->schema.fetch_headers.size(), 1u);
  EXPECT_EQ(c->schema.fetch_headers[0].first, "Authorization");
  EXPECT_EQ(c->schema.fetch_headers[0].second, "Bearer s3cret");
  EXPECT_FALSE(c->schema.version_based_refresh);
}

TEST(Config, AnUnknownEnumValueNamesTheVariableAndTheChoices) {
  auto vars = Base();
  vars["SCHEMA_REGISTRY_STENCIL_REFRESH_STRATEGY"] = "sometimes";
  auto c = ParseSinkConfig(Env(vars));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(),
            "SCHEMA_REGISTRY_STENCIL_REFRESH_STRATEGY must be LONG_POLLING or "
            "VERSION_BASED_REFRESH, got \"SOMETIMES\"");
  vars = Base();
  vars["METRIC_PROMETHEUS_PORT"] = "70000";
  c = ParseSinkConfig(Env(vars));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(), "METRIC_PROMETHEUS_PORT out of range");
}

TEST(Config, MissingRequiredVariableIsNamed) {
  for (const char* name : {"SINK_TYPE", "SOURCE_KAFKA_BROKERS", "SOURCE_KAFKA_TOPIC",
                           "SOURCE_KAFKA_CONSUMER_GROUP_ID", "INPUT_SCHEMA_PROTO_CLASS"}) {
    auto vars = Base();
    vars.erase(name);
    auto c = ParseSinkConfig(Env(vars));
    ASSERT_FALSE(c.ok()) << name;
    EXPECT_NE(c.status().message().find(name), std::string::npos) << c.status();
  }
}

TEST(Config, KafkaPropertiesAreTranslatedAndMappedOnesSkipped) {
  auto vars = Base();
  vars["SOURCE_KAFKA_CONSUMER_CONFIG_SASL_MECHANISM"] = "PLAIN";
  vars["SOURCE_KAFKA_CONSUMER_CONFIG_FETCH_MIN_BYTES"] = "1";
  vars["SOURCE_KAFKA_CONSUMER_CONFIG_MAX_POLL_RECORDS"] = "20";
  vars["SOURCE_KAFKA_CONSUMER_CONFIG_AUTO_OFFSET_RESET"] = "EARLIEST";
  vars["SOURCE_KAFKA_CONSUMER_CONFIG_MANUAL_COMMIT_MIN_INTERVAL_MS"] = "30000";
  vars["SOURCE_KAFKA_CONSUMER_CONFIG_FETCH_MAX_WAIT_MS"] = "200";
  vars["SOURCE_KAFKA_CONSUMER_CONFIG_DEFAULT_API_TIMEOUT_MS"] = "60000";
  vars["SOURCE_KAFKA_CONSUMER_CONFIG_PARTITION_ASSIGNMENT_STRATEGY"] =
      "org.apache.kafka.clients.consumer.RangeAssignor";
  auto c = ParseSinkConfig(Env(vars));
  ASSERT_TRUE(c.ok()) << c.status();
  std::map<std::string, std::string> want = {{"sasl.mechanism", "PLAIN"},
                                             {"fetch.min.bytes", "1"},
                                             {"fetch.wait.max.ms", "200"},
                                             {"partition.assignment.strategy", "range"},
                                             {"session.timeout.ms", "10000"},
                                             {"topic.metadata.refresh.interval.ms", "5000"}};
  EXPECT_EQ(c->source.kafka_properties, want);
  EXPECT_EQ(c->source.max_poll_records, 20);
  EXPECT_EQ(c->source.auto_offset_reset, "earliest");
  EXPECT_EQ(c->source.manual_commit_min_interval_ms, 30000);
  ASSERT_EQ(c->kafka_notes.size(), 3u);
  EXPECT_EQ(c->kafka_notes[0].variable, "SOURCE_KAFKA_CONSUMER_CONFIG_DEFAULT_API_TIMEOUT_MS");
  EXPECT_EQ(c->kafka_notes[0].kind, KafkaPropertyNote::Kind::kIgnored);
  EXPECT_EQ(c->kafka_notes[1].variable, "SOURCE_KAFKA_CONSUMER_CONFIG_FETCH_MAX_WAIT_MS");
  EXPECT_EQ(c->kafka_notes[1].kind, KafkaPropertyNote::Kind::kTranslated);
}

TEST(Config, JavaOnlyKafkaPropertiesAreRefusedNamingTheVariable) {
  auto vars = Base();
  vars["SOURCE_KAFKA_CONSUMER_CONFIG_SSL_TRUSTSTORE_LOCATION"] = "/etc/kafka/truststore.jks";
  vars["SOURCE_KAFKA_CONSUMER_CONFIG_SSL_TRUSTSTORE_TYPE"] = "JKS";
  auto c = ParseSinkConfig(Env(vars));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("SOURCE_KAFKA_CONSUMER_CONFIG_SSL_TRUSTSTORE_LOCATION"),
            std::string::npos) << c.status();
  vars = Base();
  vars["SOURCE_KAFKA_TOPIC"] = "orders(?=-v1)";
  c = ParseSinkConfig(Env(vars));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("SOURCE_KAFKA_TOPIC"), std::string::npos) << c.status();
  vars = Base();
  vars["SOURCE_KAFKA_TOPIC"] = "orders.v1";
  c = ParseSinkConfig(Env(vars));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->source.subscription, "^(orders.v1)$") << "a Java regex, as Firehose's Pattern.compile";
}

TEST(Config, DlqKafkaPropertiesAreTranslatedOnlyForTheKafkaWriter) {
  auto vars = Base();
  vars["DLQ_KAFKA_BUFFER_MEMORY"] = "33554432";
  vars["DLQ_KAFKA_KEY_SERIALIZER"] = "org.apache.kafka.common.serialization.StringSerializer";
  auto c = ParseSinkConfig(Env(vars));
  ASSERT_TRUE(c.ok()) << "DLQ off: DLQ_KAFKA_* are not used " << c.status();
  EXPECT_TRUE(c->errors.dlq_kafka_properties.empty());
  vars["DLQ_SINK_ENABLE"] = "true";
  vars["DLQ_WRITER_TYPE"] = "KAFKA";
  vars["DLQ_KAFKA_BROKERS"] = "b:1";
  c = ParseSinkConfig(Env(vars));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("DLQ_KAFKA_KEY_SERIALIZER"), std::string::npos) << c.status();
  vars["DLQ_KAFKA_KEY_SERIALIZER"] = "org.apache.kafka.common.serialization.ByteArraySerializer";
  c = ParseSinkConfig(Env(vars));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->errors.dlq_kafka_properties.at("queue.buffering.max.kbytes"), "32768");
  EXPECT_EQ(c->errors.dlq_kafka_properties.count("key.serializer"), 0u);
}

TEST(Config, JexlNamesEachMissingVariable) {
  auto vars = Base();
  vars["FILTER_ENGINE"] = "JEXL";
  vars["FILTER_DATA_SOURCE"] = "MESSAGE";
  auto c = ParseSinkConfig(Env(vars));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("FILTER_JEXL_EXPRESSION"), std::string::npos);
  EXPECT_NE(c.status().message().find("FILTER_SCHEMA_PROTO_CLASS"), std::string::npos);
  EXPECT_EQ(c.status().message().find("FILTER_DATA_SOURCE"), std::string::npos);
  vars["FILTER_JEXL_EXPRESSION"] = "x.getA() == 1";
  vars["FILTER_SCHEMA_PROTO_CLASS"] = "com.example.Foo";
  c = ParseSinkConfig(Env(vars));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->filter.jexl);
  EXPECT_FALSE(c->filter.data_source_key);
}

TEST(Config, JsonFilterNeedsItsSchemaAndDefaultsTheFormatToTheInput) {
  auto vars = Base();
  vars["FILTER_ENGINE"] = "json";
  auto c = ParseSinkConfig(Env(vars));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("FILTER_ENGINE=JSON requires FILTER_DATA_SOURCE, FILTER_JSON_SCHEMA"),
            std::string::npos)
      << c.status();
  vars["FILTER_DATA_SOURCE"] = "message";
  vars["FILTER_JSON_SCHEMA"] = R"({"properties":{"a":{"const":1}}})";
  c = ParseSinkConfig(Env(vars));
  ASSERT_FALSE(c.ok()) << "protobuf input: the JSON filter prints records with the filter class";
  EXPECT_NE(c.status().message().find("FILTER_SCHEMA_PROTO_CLASS"), std::string::npos);
  vars["FILTER_SCHEMA_PROTO_CLASS"] = "com.example.Foo";
  c = ParseSinkConfig(Env(vars));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->filter.engine, FilterConfig::Engine::kJson);
  EXPECT_TRUE(c->filter.esb_protobuf);
  EXPECT_FALSE(c->filter.jexl);

  vars["INPUT_SCHEMA_DATA_TYPE"] = "json";
  vars.erase("FILTER_SCHEMA_PROTO_CLASS");
  c = ParseSinkConfig(Env(vars));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_FALSE(c->filter.esb_protobuf);
  vars["FILTER_ESB_MESSAGE_FORMAT"] = "PROTOBUF";
  c = ParseSinkConfig(Env(vars));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("INPUT_SCHEMA_DATA_TYPE=protobuf"), std::string::npos);
}

TEST(Config, JexlOverJsonNeedsNoProtoClass) {
  auto vars = Base();
  vars["INPUT_SCHEMA_DATA_TYPE"] = "json";
  vars["FILTER_ENGINE"] = "JEXL";
  vars["FILTER_DATA_SOURCE"] = "MESSAGE";
  vars["FILTER_JEXL_EXPRESSION"] = "message.driver.name == 'ana'";
  auto c = ParseSinkConfig(Env(vars));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->filter.jexl);
  EXPECT_TRUE(c->filter.jexl_json);
}

TEST(Config, FilterDropDeserializationErrorDefaultsToFirehosesFalse) {
  auto vars = Base();
  vars["INPUT_SCHEMA_DATA_TYPE"] = "json";
  vars["FILTER_ENGINE"] = "JEXL";
  vars["FILTER_DATA_SOURCE"] = "MESSAGE";
  vars["FILTER_JEXL_EXPRESSION"] = "message.a == 1";
  auto c = ParseSinkConfig(Env(vars));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_FALSE(c->filter.drop_deserialization_error);
  vars["FILTER_DROP_DESERIALIZATION_ERROR"] = "true";
  c = ParseSinkConfig(Env(vars));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->filter.drop_deserialization_error);
  vars["FILTER_DROP_DESERIALIZATION_ERROR"] = "maybe";
  c = ParseSinkConfig(Env(vars));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("FILTER_DROP_DESERIALIZATION_ERROR"), std::string::npos);
}

TEST(Config, BlobStorageDlqOnS3NamesEachMissingVariable) {
  auto vars = Base();
  vars["DLQ_SINK_ENABLE"] = "true";
  vars["DLQ_WRITER_TYPE"] = "BLOB_STORAGE";
  vars["DLQ_BLOB_STORAGE_TYPE"] = "S3";
  auto c = ParseSinkConfig(Env(vars));
  for (const char* name : {"DLQ_S3_REGION", "DLQ_S3_BUCKET_NAME", "DLQ_S3_ACCESS_KEY", "DLQ_S3_SECRET_KEY"}) {
    c = ParseSinkConfig(Env(vars));
    ASSERT_FALSE(c.ok());
    EXPECT_NE(c.status().message().find(name), std::string::npos) << c.status();
    vars[name] = "x";
  }
  c = ParseSinkConfig(Env(vars));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->errors.dlq_s3.endpoint, "https://s3.x.amazonaws.com");
  EXPECT_EQ(c->errors.dlq_s3.directory_prefix, "") << "Firehose's default: none";
  vars["DLQ_S3_ENDPOINT_URL"] = "file:///tmp";
  EXPECT_FALSE(ParseSinkConfig(Env(vars)).ok());
}

TEST(Config, DlqDirectoryPrefixIsNormalisedOrRefusedNamingTheVariable) {
  auto vars = Base();
  vars["DLQ_SINK_ENABLE"] = "true";
  vars["DLQ_WRITER_TYPE"] = "BLOB_STORAGE";
  for (const char* name : {"DLQ_GCS_GOOGLE_CLOUD_PROJECT_ID", "DLQ_GCS_BUCKET_NAME",
                           "DLQ_GCS_CREDENTIAL_PATH", "DLQ_S3_REGION", "DLQ_S3_BUCKET_NAME",
                           "DLQ_S3_ACCESS_KEY", "DLQ_S3_SECRET_KEY"}) {
    vars[name] = "x";
  }
  for (const char* type : {"S3", "GCS"}) {
    const std::string name = absl::StrCat("DLQ_", type, "_DIRECTORY_PREFIX");
    auto prefix = [&](const SinkConfig& c) {
      return std::string(type) == "S3" ? c.errors.dlq_s3.directory_prefix
                                       : c.errors.dlq_gcs.directory_prefix;
    };
    auto v = vars;
    v["DLQ_BLOB_STORAGE_TYPE"] = type;
    // Repeated and trailing '/' collapse, as java.nio Paths.get in Firehose.
    for (auto [given, want] : {std::pair{"dlq", "dlq"}, std::pair{"dlq/a/", "dlq/a"},
                               std::pair{"dlq//a", "dlq/a"}, std::pair{"", ""}}) {
      v[name] = given;
      auto c = ParseSinkConfig(Env(v));
      ASSERT_TRUE(c.ok()) << c.status();
      EXPECT_EQ(prefix(*c), want) << type << " " << given;
    }
    for (const char* bad : {"/dlq", "dlq/../other", "./dlq", ".."}) {
      v[name] = bad;
      auto c = ParseSinkConfig(Env(v));
      ASSERT_FALSE(c.ok()) << type << " " << bad;
      EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_NE(c.status().message().find(name), std::string::npos) << c.status();
    }
  }
}

TEST(Config, BlobStorageDlqOnGcsIsTheDefaultWithFirehoseRetrySettings) {
  auto vars = Base();
  vars["DLQ_SINK_ENABLE"] = "true";
  vars["DLQ_WRITER_TYPE"] = "BLOB_STORAGE";
  for (const char* name :
       {"DLQ_GCS_GOOGLE_CLOUD_PROJECT_ID", "DLQ_GCS_BUCKET_NAME", "DLQ_GCS_CREDENTIAL_PATH"}) {
    auto c = ParseSinkConfig(Env(vars));
    ASSERT_FALSE(c.ok());
    EXPECT_NE(c.status().message().find(name), std::string::npos) << c.status();
    vars[name] = "x";
  }
  auto c = ParseSinkConfig(Env(vars));
  ASSERT_TRUE(c.ok()) << c.status();
  const ErrorConfig::Gcs& g = c->errors.dlq_gcs;
  EXPECT_EQ(c->errors.dlq_blob_type, "GCS");
  EXPECT_EQ(g.api_base_url, "https://storage.googleapis.com");
  // Firehose's documented defaults (docs/advance/dlq.md).
  EXPECT_EQ(g.retry_max_attempts, 10);
  EXPECT_EQ(g.retry_total_timeout_ms, 120000);
  EXPECT_EQ(g.retry_initial_delay_ms, 1000);
  EXPECT_EQ(g.retry_max_delay_ms, 30000);
  EXPECT_EQ(g.retry_delay_multiplier, 2);
  EXPECT_EQ(g.initial_rpc_timeout_ms, 5000);
  EXPECT_EQ(g.rpc_timeout_multiplier, 1);
  EXPECT_EQ(g.rpc_max_timeout_ms, 5000);
  vars["DLQ_GCS_RETRY_MAX_ATTEMPTS"] = "3";
  vars["DLQ_GCS_API_BASE_URL"] = "http://127.0.0.1:9/";
  c = ParseSinkConfig(Env(vars));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->errors.dlq_gcs.retry_max_attempts, 3);
  EXPECT_EQ(c->errors.dlq_gcs.api_base_url, "http://127.0.0.1:9");
  for (auto [name, bad] : {std::pair{"DLQ_GCS_API_BASE_URL", "gs://bucket"},
                           std::pair{"DLQ_GCS_RETRY_DELAY_MULTIPLIER", "0.5"},
                           std::pair{"DLQ_GCS_RETRY_MAX_ATTEMPTS", "0"}}) {
    auto v = vars;
    v[name] = bad;
    auto bad_config = ParseSinkConfig(Env(v));
    ASSERT_FALSE(bad_config.ok()) << name;
    EXPECT_NE(bad_config.status().message().find(name), std::string::npos) << bad_config.status();
  }
}

TEST(Config, ErrorTypesAndDlq) {
  auto vars = Base();
  vars["ERROR_TYPES_FOR_RETRY"] = "SINK_5XX_ERROR, SINK_RETRYABLE_ERROR";
  vars["DLQ_SINK_ENABLE"] = "true";
  vars["DLQ_WRITER_TYPE"] = "kafka";
  auto c = ParseSinkConfig(Env(vars));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("DLQ_KAFKA_BROKERS"), std::string::npos);
  vars["DLQ_KAFKA_BROKERS"] = "b:1";
  vars["DLQ_KAFKA_LINGER_MS"] = "5";
  c = ParseSinkConfig(Env(vars));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->errors.retry,
            (std::set<ErrorType>{ErrorType::kSink5xxError, ErrorType::kSinkRetryableError}));
  EXPECT_EQ(c->errors.dlq_writer, "KAFKA");
  EXPECT_EQ(c->errors.dlq_kafka_topic, "firehose-retry-topic");
  EXPECT_EQ(c->errors.dlq_kafka_properties.at("linger.ms"), "5");
  vars["ERROR_TYPES_FOR_DLQ"] = "NOPE";
  c = ParseSinkConfig(Env(vars));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("ERROR_TYPES_FOR_DLQ"), std::string::npos);
}

TEST(Config, MetricsTagsAndSchema) {
  auto vars = Base();
  vars["METRIC_STATSD_TAGS"] = "team=data,env=dev";
  vars["SCHEMA_REGISTRY_STENCIL_URLS"] = "http://a/x.desc, file:///b.desc";
  vars["SCHEMA_REGISTRY_STENCIL_REFRESH_STRATEGY"] = "VERSION_BASED_REFRESH";
  vars["SCHEMA_REGISTRY_STENCIL_FETCH_HEADERS"] = "Authorization:Bearer x";
  vars["KAFKA_RECORD_PARSER_MODE"] = "key";
  auto c = ParseSinkConfig(Env(vars));
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->metrics.statsd_tags.size(), 2u);
  EXPECT_EQ(c->metrics.statsd_tags[1].first, "env");
  ASSERT_EQ(c->schema.urls.size(), 2u);
  EXPECT_EQ(c->schema.urls[1], "file:///b.desc");
  EXPECT_TRUE(c->schema.version_based_refresh);
  EXPECT_EQ(c->schema.fetch_headers[0].second, "Bearer x");
  EXPECT_TRUE(c->schema.parse_key);
  vars["SOURCE_KAFKA_CONSUMER_CONFIG_MAX_POLL_RECORDS"] = "0";
  EXPECT_FALSE(ParseSinkConfig(Env(vars)).ok());
}

// Review H6: the control API listened on 0.0.0.0 without authentication.
TEST(Config, ControlApiOffLoopbackNeedsATokenOrMtls) {
  for (const char* host : {"0.0.0.0", "10.1.2.3", "::", "sink.example"}) {
    auto vars = Base();
    vars["SINK_CONTROL_HOST"] = host;
    auto c = ParseSinkConfig(Env(vars));
    ASSERT_FALSE(c.ok()) << host;
    EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
    for (const char* name : {"SINK_CONTROL_HOST", "SINK_CONTROL_TOKEN_FILE", "SINK_CONTROL_TOKEN",
                             "SINK_CONTROL_TLS_CERT_FILE", "SINK_CONTROL_TLS_KEY_FILE",
                             "SINK_CONTROL_TLS_CLIENT_CA_FILE"}) {
      EXPECT_NE(c.status().message().find(name), std::string::npos) << name << ": " << c.status();
    }
  }
  for (std::map<std::string, std::string> extra :
       std::vector<std::map<std::string, std::string>>{
           {{"SINK_CONTROL_TOKEN_FILE", "/run/secrets/token"}},
           {{"SINK_CONTROL_TOKEN", "0123456789abcdef"}},
           {{"SINK_CONTROL_TLS_CERT_FILE", "c.pem"},
            {"SINK_CONTROL_TLS_KEY_FILE", "k.pem"},
            {"SINK_CONTROL_TLS_CLIENT_CA_FILE", "ca.pem"}},
           {{"SINK_CONTROL_PORT", "0"}}}) {
    auto vars = Base();
    vars["SINK_CONTROL_HOST"] = "0.0.0.0";
    for (auto& [k, v] : extra) vars[k] = v;
    auto c = ParseSinkConfig(Env(vars));
    EXPECT_TRUE(c.ok()) << extra.begin()->first << ": " << c.status();
  }
  // TLS without client certificates authenticates nobody.
  auto vars = Base();
  vars["SINK_CONTROL_HOST"] = "0.0.0.0";
  vars["SINK_CONTROL_TLS_CERT_FILE"] = "c.pem";
  vars["SINK_CONTROL_TLS_KEY_FILE"] = "k.pem";
  EXPECT_FALSE(ParseSinkConfig(Env(vars)).ok());
  // Loopback in any spelling is fine without a credential.
  for (const char* host : {"127.0.0.1", "localhost", "::1", "[::1]", "127.0.0.2"}) {
    vars = Base();
    vars["SINK_CONTROL_HOST"] = host;
    EXPECT_TRUE(ParseSinkConfig(Env(vars)).ok()) << host;
  }
}

TEST(Config, ControlCredentialsMustBeConsistent) {
  auto check = [](std::map<std::string, std::string> extra, const char* name) {
    auto vars = Base();
    for (auto& [k, v] : extra) vars[k] = v;
    auto c = ParseSinkConfig(Env(vars));
    ASSERT_FALSE(c.ok()) << name;
    EXPECT_NE(c.status().message().find(name), std::string::npos) << c.status();
  };
  check({{"SINK_CONTROL_TOKEN_FILE", "/f"}, {"SINK_CONTROL_TOKEN", "0123456789abcdef"}},
        "SINK_CONTROL_TOKEN_FILE");
  check({{"SINK_CONTROL_TLS_CERT_FILE", "c.pem"}}, "SINK_CONTROL_TLS_KEY_FILE");
  check({{"SINK_CONTROL_TLS_CLIENT_CA_FILE", "ca.pem"}}, "SINK_CONTROL_TLS_CERT_FILE");
}

TEST(Config, ExactlyOnceNeedsTheJdbcSinkAndNamesTheVariable) {
  auto vars = Base();
  vars["SINK_JDBC_EXACTLY_ONCE_ENABLE"] = "true";
  vars["SINK_TYPE"] = "http";
  auto c = ParseSinkConfig(Env(vars));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("SINK_JDBC_EXACTLY_ONCE_ENABLE=true needs SINK_TYPE=jdbc"),
            absl::string_view::npos)
      << c.status();
  vars["SINK_TYPE"] = "JDBC";
  c = ParseSinkConfig(Env(vars));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->jdbc_exactly_once);
  EXPECT_FALSE(ParseSinkConfig(Env(Base()))->jdbc_exactly_once);  // off by default
}

}  // namespace
}  // namespace sluice::sink
