// Firehose conformance (issue 29 item 7): the example configurations of
// Firehose's and depot's docs (goto/firehose docs/docs/guides/
// create_firehose.md and docs/docs/sinks/*.md, goto/depot docs/reference/
// configuration/*.md), one per sink type, run through sluice-sink against
// a real Apache Kafka broker (integration/kafka_broker.h; its version is
// printed) and that sink's real server. Only addresses are adapted
// (broker, service URLs), plus the proto class (the docs' com.tests.*
// classes do not exist here: the sample SampleLogMessage stands in, whose
// field numbers 1 order_number, 2 driver_id, 5 event_timestamp, 6 tags
// match the docs' indices by position only). Server-side objects the docs
// say must exist already (a JDBC table, an Influx retention policy, the
// docs' root/root users) are created first.
//
// Each case ends in one outcome: "delivered N/N (<what the server holds>)",
// "refused at start: <reason>", "stopped at the first record: <reason>" (a
// fatal error type, as Firehose's ERROR_TYPES_FOR_FAILING), or "not
// delivered: <last error>". The test
// prints the table and checks each outcome against the recorded one, so a
// change of behaviour shows here.
#include <signal.h>

#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "integration/es_fake/es_fake_process.h"
#include "integration/kafka_broker.h"
#include "integration/mongo_fake/mongo_fake_process.h"
#include "integration/sink_harness.h"
#include "nlohmann/json.hpp"
#include "sink/sinks/testing/http_test_server.h"
#include "sink/sinks/testing/influx_test_server.h"
#include "sink/sinks/testing/pg_test_db.h"
#include "sink/sinks/testing/prometheus_test_server.h"
#include "sink/sinks/testing/redis_test_server.h"

namespace sluice::integration {
namespace {

using sink::testing::HttpRequest;
using sink::testing::HttpTestServer;
using sink::testing::InfluxTestServer;
using sink::testing::PgTestDb;
using sink::testing::PrometheusTestServer;
using sink::testing::RedisTestServer;

constexpr int kRecords = 20;

struct Case {
  std::string example;  // where the example is, for the table
  std::string topic;
  std::map<std::string, std::string> vars;  // the example, addresses adapted
  // What the sink's server holds afterwards, e.g. "20 rows"; empty when the
  // server could not be prepared (then `skip` says why).
  std::function<std::string()> check;
  std::string skip;
  std::string expected;  // recorded outcome prefix
  std::vector<std::string> unset;  // generic variables the example leaves unset
};

// The last line of `err` with "error" or "warning" in it (else the last line).
std::string LastProblem(const std::string& err) {
  std::vector<std::string> lines = absl::StrSplit(err, '\n', absl::SkipEmpty());
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    if (absl::StrContains(*it, " error ") || absl::StrContains(*it, " warning ") ||
        absl::StrContains(*it, "critical")) {
      return *it;
    }
  }
  return lines.empty() ? "" : lines.back();
}

// The text after the timestamp and level of a log line.
std::string Message(const std::string& line) {
  std::vector<std::string> parts = absl::StrSplit(line, absl::MaxSplits(' ', 2));
  return parts.size() == 3 ? parts[2] : line;
}

// What depot's SingleRequest (UriBuilder, QueryParamBuilder, HeaderBuilder,
// TemplatizedJsonBody, RequestUtils.buildRequest) sends for sample record
// `i` under the HTTPV2 case's config. Header names lower-cased, as the test
// server records them; transport headers (Host, Content-Length, ...) are not
// part of it.
HttpRequest Httpv2DepotRequest(int i) {
  const std::string order = absl::StrCat("ORD-", i);
  HttpRequest r;
  r.method = "POST";
  // URIBuilder(url).addParameter(key, value).
  r.target = absl::StrCat("/test-field/", order, "?", order, "=Order");
  // HttpHeaderConverter splits on ',' and ':' (depot keeps the space before
  // " Accept"; on the wire that would fold into the previous header, so
  // Sluice trims it), then the template's header.
  r.headers = {{"authorization", "auth_token"},
               {"accept", "text/plain"},
               {absl::AsciiStrToLower(order), "Order"},
               // StringEntity(body, ContentType.APPLICATION_JSON).
               {"content-type", "application/json; charset=UTF-8"}};
  // Jackson's ObjectNode.toString(): members in template order, compact.
  r.body = absl::StrCat(R"({"test":"driver-)", i % 10, R"(",")", order, R"(":"xxx"})");
  return r;
}

// Compares what the HTTPV2 case's server received with Httpv2DepotRequest,
// one request per record 0..n-1 in any order (SINGLE mode sends up to
// SINK_HTTPV2_MAX_CONNECTIONS at once). Differs from depot on purpose in one
// way: depot's HeaderBuilder puts each record's template headers into its
// shared base map, so a later request also carries the headers of earlier
// records; Sluice sends only the record's own.
std::string Httpv2MatchesDepot(const std::vector<HttpRequest>& got, int n) {
  const std::set<std::string> transport = {"host", "content-length", "connection", "user-agent",
                                           "accept-encoding", "keep-alive"};
  std::map<std::string, const HttpRequest*> by_target;
  for (const HttpRequest& r : got) by_target[r.target] = &r;
  for (int i = 0; i < n; ++i) {
    const HttpRequest want = Httpv2DepotRequest(i);
    auto it = by_target.find(want.target);
    if (it == by_target.end()) return absl::StrCat("no request to ", want.target);
    const HttpRequest& r = *it->second;
    if (r.method != want.method) return absl::StrCat(want.target, ": method ", r.method);
    if (r.body != want.body) {
      return absl::StrCat(want.target, ": body ", r.body, ", depot's ", want.body);
    }
    std::map<std::string, std::string> headers;
    for (const auto& [k, v] : r.headers) {
      if (transport.count(k) == 0) headers[k] = v;
    }
    std::map<std::string, std::string> want_headers(want.headers.begin(), want.headers.end());
    if (headers != want_headers) {
      std::string text;
      for (const auto& [k, v] : headers) absl::StrAppend(&text, k, ": ", v, "; ");
      return absl::StrCat(want.target, ": headers ", text);
    }
  }
  const HttpRequest first = Httpv2DepotRequest(0);
  return absl::StrCat(got.size(), " request(s), each as depot's SingleRequest builds it, e.g. ",
                      first.method, " ", first.target, " ", first.body);
}

std::string RunCase(const KafkaBroker& broker, const std::string& dir, const Case& c) {
  if (!c.skip.empty()) return absl::StrCat("not run: ", c.skip);
  // The generic variables the docs ask for besides the sink's own.
  std::map<std::string, std::string> env = {
      {"SOURCE_KAFKA_BROKERS", broker.bootstrap},
      {"SOURCE_KAFKA_TOPIC", c.topic},
      {"SOURCE_KAFKA_CONSUMER_GROUP_ID", c.topic + "-group"},
      {"SOURCE_KAFKA_CONSUMER_CONFIG_AUTO_OFFSET_RESET", "earliest"},
      {"INPUT_SCHEMA_PROTO_CLASS", "io.sluice.sample.SampleProto$SampleLogMessage"},
      {"SCHEMA_REGISTRY_STENCIL_URLS", SampleDescriptorUrl()},
      {"SCHEMA_REGISTRY_STENCIL_REFRESH_STRATEGY", "LONG_POLLING"},
      {"SINK_CONTROL_PORT", "0"},
      {"METRIC_STATSD_HOST", "127.0.0.1"},
      {"METRIC_STATSD_PORT", "9"},
  };
  for (const auto& [k, v] : c.vars) env[k] = v;
  for (const std::string& k : c.unset) env.erase(k);
  ProduceSamples(broker.bootstrap, c.topic, 0, kRecords);
  std::string group = env.count("SOURCE_KAFKA_CONSUMER_GROUP_ID")
                          ? env["SOURCE_KAFKA_CONSUMER_GROUP_ID"]
                          : std::string();
  auto sink = StartSink(env, absl::StrCat(dir, "/", c.topic));
  bool delivered = WaitFor(
      [&] {
        if (!sink->Running()) return true;
        // Without a group variable: the records the log sink printed.
        return group.empty() ? CountLines(sink->Output(), "order_number") == kRecords
                             : CommittedSum(broker.bootstrap, group, c.topic, 1) == kRecords;
      },
      absl::Seconds(45));
  if (!sink->Running()) {
    const std::string why = Message(LastProblem(sink->Stderr()));
    return absl::StrCat(absl::StrContains(why, "fatal error") ? "stopped at the first record: "
                                                              : "refused at start: ",
                        why);
  }
  std::string outcome;
  if (delivered) {
    outcome = absl::StrCat("delivered ", kRecords, "/", kRecords, " (", c.check(), ")");
  } else {
    outcome = absl::StrCat("not delivered: ", Message(LastProblem(sink->Stderr())));
  }
  sink->Signal(SIGTERM);
  sink->Wait(absl::Seconds(20));
  return outcome;
}

TEST(FirehoseConformance, DocExamplesRunThroughSluiceSink) {
  std::string dir = TempDir("firehose_conformance");
  KafkaBroker broker = KafkaBroker::Start(
      {"test-topic:1", "test-topic-2:1", "http-topic:1", "httpv2-topic:1", "jdbc-topic:1",
       "influx-topic:1", "redis-topic:1", "prom-topic:1", "es-topic:1", "mongo-topic:1"},
      dir + "/kafka");
  std::vector<Case> cases;

  // create_firehose.md "Create a Log Sink" (its consumer-group variable is
  // misspelled there: KAFKA_RECOED_CONSUMER_GROUP_ID).
  {
    Case c;
    c.example = "firehose guides/create_firehose.md: log sink";
    c.topic = "test-topic";
    c.vars = {{"SOURCE_KAFKA_TOPIC", "test-topic"},
              {"KAFKA_RECOED_CONSUMER_GROUP_ID", "sample-group-id"},
              {"KAFKA_RECORD_PARSER_MODE", "message"},
              {"SINK_TYPE", "log"},
              {"INPUT_SCHEMA_DATA_TYPE", "protobuf"}};
    c.unset = {"SOURCE_KAFKA_CONSUMER_GROUP_ID"};
    c.check = [] { return std::string("printed by the log sink"); };
    // Firehose has no default group either (KafkaConsumerConfig).
    c.expected = "refused at start: sluice-sink: configuration error: "
                 "SOURCE_KAFKA_CONSUMER_GROUP_ID is required";
    Case fixed = c;
    cases.push_back(std::move(c));
    // The same with the group variable spelled as Firehose reads it.
    fixed.example = "firehose guides/create_firehose.md: log sink, group variable corrected";
    fixed.topic = "test-topic-2";
    fixed.vars.erase("KAFKA_RECOED_CONSUMER_GROUP_ID");
    fixed.vars["SOURCE_KAFKA_TOPIC"] = "test-topic-2";
    fixed.vars["SOURCE_KAFKA_CONSUMER_GROUP_ID"] = "sample-group-id";
    fixed.unset.clear();
    fixed.expected = "delivered 20/20";
    cases.push_back(std::move(fixed));
  }

  // sinks/http-sink.md, every example value.
  auto http = HttpTestServer::Start();
  ASSERT_TRUE(http.ok()) << http.status();
  {
    Case c;
    c.example = "firehose sinks/http-sink.md";
    c.topic = "http-topic";
    c.vars = {{"SINK_TYPE", "http"},
              {"SINK_HTTP_SERVICE_URL", (*http)->url() + "/"},  // http://http-service.test.io
              {"SINK_HTTP_REQUEST_METHOD", "post"},
              {"SINK_HTTP_REQUEST_TIMEOUT_MS", "10000"},
              {"SINK_HTTP_MAX_CONNECTIONS", "10"},
              {"SINK_HTTP_RETRY_STATUS_CODE_RANGES", "400-600"},
              {"SINK_HTTP_DATA_FORMAT", "JSON"},
              {"SINK_HTTP_HEADERS", "Authorization:auth_token, Accept:text/plain"},
              {"SINK_HTTP_JSON_BODY_TEMPLATE", R"({"test":"$.routes[0]", "$.order_number" : "xxx"})"},
              {"SINK_HTTP_DELETE_BODY_ENABLE", "false"},
              {"SINK_HTTP_SIMPLE_DATE_FORMAT_ENABLE", "false"}};
    // The docs' template names $.routes[0], which the sample has not.
    c.expected = "stopped at the first record: sluice-sink stopped after a fatal error: "
                 "DESERIALIZATION_ERROR";
    HttpTestServer* server = http->get();
    c.check = [server] {
      auto reqs = server->requests();
      std::string first = reqs.empty() ? "" : reqs.front().body.substr(0, 60);
      return absl::StrCat(reqs.size(), " request(s), first body ", first);
    };
    cases.push_back(std::move(c));
  }

  // depot reference/configuration/http-sink.md (SINK_TYPE=HTTPV2), every
  // example value. The docs' templates name their own schema's fields
  // (order_id, routes[0]); order_number and driver_id of the sample stand in.
  // Each request is compared with what depot's SingleRequest builds for that
  // record (see Httpv2DepotRequest).
  auto http2 = HttpTestServer::Start();
  ASSERT_TRUE(http2.ok()) << http2.status();
  {
    Case c;
    c.example = "depot reference/configuration/http-sink.md (HTTPV2)";
    c.topic = "httpv2-topic";
    c.vars = {{"SINK_TYPE", "HTTPV2"},
              // http://http-service.test.io/test-field/%s,order_number
              {"SINK_HTTPV2_SERVICE_URL", (*http2)->url() + "/test-field/%s,order_number"},
              {"SINK_HTTPV2_REQUEST_METHOD", "post"},
              {"SINK_HTTPV2_HEADERS", "Authorization:auth_token, Accept:text/plain"},
              {"SINK_HTTPV2_HEADERS_TEMPLATE", R"({"%s,order_number":"Order"})"},
              {"SINK_HTTPV2_HEADERS_PARAMETER_SOURCE", "MESSAGE"},
              {"SINK_HTTPV2_QUERY_TEMPLATE", R"({"%s,order_number":"Order"})"},
              {"SINK_HTTPV2_QUERY_PARAMETER_SOURCE", "MESSAGE"},
              {"SINK_HTTPV2_REQUEST_MODE", "SINGLE"},
              {"SINK_HTTPV2_REQUEST_BODY_MODE", "TEMPLATIZED_JSON"},
              {"SINK_HTTPV2_JSON_BODY_TEMPLATE",
               R"({"test":"%s,driver_id", "%s,order_number" : "xxx"})"},
              {"SINK_HTTPV2_DEFAULT_FIELD_VALUE_ENABLE", "false"},
              {"SINK_HTTPV2_DELETE_BODY_ENABLE", "false"},
              {"SINK_HTTPV2_REQUEST_LOG_STATUS_CODE_RANGES", "400-600"},
              {"SINK_HTTPV2_RETRY_STATUS_CODE_RANGES", "400-600"},
              {"SINK_HTTPV2_MAX_CONNECTIONS", "10"},
              {"SINK_HTTPV2_REQUEST_TIMEOUT_MS", "10000"}};
    c.expected = "delivered 20/20 (20 request(s), each as depot's";
    HttpTestServer* server = http2->get();
    c.check = [server] { return Httpv2MatchesDepot(server->requests(), kRecords); };
    cases.push_back(std::move(c));
  }

  // sinks/jdbc-sink.md: the table must exist already (the docs' note).
  auto db = PgTestDb::Create();
  {
    Case c;
    c.example = "firehose sinks/jdbc-sink.md";
    c.topic = "jdbc-topic";
    if (!db.ok()) {
      c.skip = "no PostgreSQL (run under scripts/with-postgres.sh)";
    } else {
      (void)(*db)->Query("CREATE ROLE root LOGIN PASSWORD 'root'");
      auto made = (*db)->Query(
          "CREATE TABLE public.customers (customer_id text PRIMARY KEY, service_type text, "
          "event_timestamp timestamptz); GRANT ALL ON public.customers TO root");
      if (!made.ok()) c.skip = std::string(made.status().message());
      std::map<std::string, std::string> kv;
      for (absl::string_view part : absl::StrSplit((*db)->dsn(), ' ', absl::SkipEmpty())) {
        std::vector<std::string> p = absl::StrSplit(part, absl::MaxSplits('=', 1));
        if (p.size() == 2) kv[p[0]] = p[1];
      }
      c.vars = {{"SINK_TYPE", "jdbc"},
                // jdbc:postgresql://localhost:5432/postgres
                {"SINK_JDBC_URL", absl::StrCat("jdbc:postgresql://", kv["host"], ":", kv["port"],
                                               "/", (*db)->name())},
                {"SINK_JDBC_TABLE_NAME", "public.customers"},
                {"SINK_JDBC_USERNAME", "root"},
                {"SINK_JDBC_PASSWORD", "root"},
                {"INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING",
                 R"({"6":"customer_id","1":"service_type","5":"event_timestamp"})"},
                {"SINK_JDBC_UNIQUE_KEYS", "customer_id"},
                {"SINK_JDBC_CONNECTION_POOL_TIMEOUT_MS", "1000"},
                {"SINK_JDBC_CONNECTION_POOL_IDLE_TIMEOUT_MS", "60000"},
                {"SINK_JDBC_CONNECTION_POOL_MIN_IDLE", "0"},
                {"SINK_JDBC_CONNECTION_POOL_MAX_SIZE", "10"}};
      // Index 6 of the sample is a repeated string: its JSON array lands in
      // customer_id, and the upsert on it keeps 2 distinct rows.
      c.expected = "delivered 20/20";
      PgTestDb* pg = db->get();
      c.check = [pg] {
        auto rows = pg->Query("SELECT count(*), min(customer_id) FROM public.customers");
        if (!rows.ok() || rows->empty()) return std::string("query failed");
        return absl::StrCat((*rows)[0][0], " row(s), e.g. customer_id ", (*rows)[0][1]);
      };
    }
    cases.push_back(std::move(c));
  }

  // sinks/influxdb-sink.md: database and retention policy must exist (the
  // docs' note); the field mapping is quoted as the docs give it, without
  // braces.
  auto influx = InfluxTestServer::Start("status");
  {
    Case c;
    c.example = "firehose sinks/influxdb-sink.md";
    c.topic = "influx-topic";
    if (!influx.ok()) {
      c.skip = std::string(influx.status().message());
    } else {
      (*influx)->Query("CREATE USER root WITH PASSWORD 'root' WITH ALL PRIVILEGES");
      (*influx)->Query("CREATE RETENTION POLICY quarterly ON status DURATION 90d REPLICATION 1");
      c.vars = {{"SINK_TYPE", "influxdb"},
                {"SINK_INFLUX_URL", (*influx)->url()},  // http://localhost:8086
                {"SINK_INFLUX_USERNAME", "root"},
                {"SINK_INFLUX_PASSWORD", "root"},
                {"SINK_INFLUX_FIELD_NAME_PROTO_INDEX_MAPPING",
                 R"("2":"order_number","1":"service_type", "4":"status")"},
                {"SINK_INFLUX_TAG_NAME_PROTO_INDEX_MAPPING", R"({"6":"customer_id"})"},
                {"SINK_INFLUX_PROTO_EVENT_TIMESTAMP_INDEX", "5"},
                {"SINK_INFLUX_DB_NAME", "status"},
                {"SINK_INFLUX_RETENTION_POLICY", "quarterly"},
                {"SINK_INFLUX_MEASUREMENT_NAME", "customer-booking"}};
      c.expected = "refused at start: sluice-sink: configuration error: "
                   "SINK_INFLUX_FIELD_NAME_PROTO_INDEX_MAPPING";
      InfluxTestServer* server = influx->get();
      c.check = [server] {
        std::string out =
            server->Query("SELECT count(order_number) FROM status.quarterly.\"customer-booking\"");
        return absl::StrCat("count query: ", absl::StripAsciiWhitespace(out));
      };
    }
    cases.push_back(std::move(c));
  }

  // depot reference/configuration/redis.md (firehose sinks/redis-sink.md
  // points there), HashSet.
  auto redis = RedisTestServer::Start();
  {
    Case c;
    c.example = "depot reference/configuration/redis.md (Hashset)";
    c.topic = "redis-topic";
    if (!redis.ok()) {
      c.skip = std::string(redis.status().message());
    } else {
      c.vars = {{"SINK_TYPE", "redis"},
                {"SINK_REDIS_URLS", (*redis)->address()},  // localhost:6379,localhost:6380
                {"SINK_REDIS_DATA_TYPE", "Hashset"},
                {"SINK_REDIS_KEY_TEMPLATE", "Service_%s,order_number"},
                {"SINK_REDIS_HASHSET_FIELD_TO_COLUMN_MAPPING",
                 R"({"order_number":"ORDER_NUMBER","event_timestamp":"TIMESTAMP"})"},
                {"SINK_REDIS_TTL_TYPE", "DURATION"},
                {"SINK_REDIS_TTL_VALUE", "100000"},
                {"SINK_REDIS_DEPLOYMENT_TYPE", "Standalone"},
                {"SINK_REDIS_DEFAULT_FIELD_VALUE_ENABLE", "false"},
                {"SINK_REDIS_SOCKET_TIMEOUT_MS", "4000"},
                {"SINK_REDIS_CONNECTION_TIMEOUT_MS", "4000"},
                {"SINK_REDIS_CONNECTION_RETRY_BACKOFF_MS", "4000"},
                {"SINK_REDIS_CONNECTION_MAX_RETRIES", "5"}};
      c.expected = "delivered 20/20 (20 hash(es)";
      RedisTestServer* server = redis->get();
      c.check = [server] {
        std::string keys = server->Cli({"KEYS", "Service_*"});
        int n = 0;
        for (absl::string_view l : absl::StrSplit(keys, '\n', absl::SkipWhitespace())) {
          (void)l;
          ++n;
        }
        std::string one = server->Cli({"HGETALL", "Service_ORD-1"});
        absl::StrReplaceAll({{"\n", " "}}, &one);
        return absl::StrCat(n, " hash(es), Service_ORD-1: ", absl::StripAsciiWhitespace(one));
      };
    }
    cases.push_back(std::move(c));
  }

  // sinks/prometheus-sink.md.
  auto prom = PrometheusTestServer::Start();
  {
    Case c;
    c.example = "firehose sinks/prometheus-sink.md";
    c.topic = "prom-topic";
    if (!prom.ok()) {
      c.skip = std::string(prom.status().message());
    } else {
      c.vars = {{"SINK_TYPE", "prometheus"},
                {"SINK_PROM_SERVICE_URL", (*prom)->write_url()},
                {"SINK_PROM_REQUEST_TIMEOUT_MS", "10000"},
                {"SINK_PROM_MAX_CONNECTIONS", "10"},
                {"SINK_PROM_RETRY_STATUS_CODE_RANGES", "400-600"},
                {"SINK_PROM_REQUEST_LOG_STATUS_CODE_RANGES", "400-499"},
                {"SINK_PROM_HEADERS", "Authorization:auth_token, Accept:text/plain"},
                {"SINK_PROM_METRIC_NAME_PROTO_INDEX_MAPPING",
                 R"({"2":"tip_amount","1":"feedback_ratings"})"},
                {"SINK_PROM_LABEL_NAME_PROTO_INDEX_MAPPING", R"({"6":"customer_id"})"},
                {"SINK_PROM_WITH_EVENT_TIMESTAMP", "false"}};
      c.check = [] { return std::string("pushed"); };
      // Index 1 of the sample is a string, not a number.
      c.expected = "stopped at the first record: sluice-sink stopped after a fatal error: "
                   "INVALID_MESSAGE_ERROR";
    }
    cases.push_back(std::move(c));
  }

  // sinks/elasticsearch-sink.md against the Elasticsearch fake (the
  // example enables update-only mode: documents must exist already).
  auto es = EsFake::Start();
  {
    Case c;
    c.example = "firehose sinks/elasticsearch-sink.md";
    c.topic = "es-topic";
    if (!es.ok()) {
      c.skip = std::string(es.status().message());
    } else {
      c.vars = {{"SINK_TYPE", "elasticsearch"},
                {"SINK_ES_CONNECTION_URLS", (*es)->host_port()},  // localhost1:9200
                {"SINK_ES_INDEX_NAME", "sample_index"},
                {"SINK_ES_TYPE_NAME", "Customer"},
                {"SINK_ES_ID_FIELD", "customer_id"},
                {"SINK_ES_MODE_UPDATE_ONLY_ENABLE", "TRUE"},
                {"SINK_ES_INPUT_MESSAGE_TYPE", "PROTOBUF"},
                {"SINK_ES_PRESERVE_PROTO_FIELD_NAMES_ENABLE", "FALSE"},
                {"SINK_ES_REQUEST_TIMEOUT_MS", "60000"},
                {"SINK_ES_SHARDS_ACTIVE_WAIT_COUNT", "1"},
                {"SINK_ES_RETRY_STATUS_CODE_BLACKLIST", "404,400"},
                {"SINK_ES_ROUTING_KEY_NAME", "service_type"}};
      // The docs' id field belongs to their own schema.
      c.expected = "refused at start: sluice-sink: configuration error: SINK_ES_ID_FIELD";
      EsFake* fake = es->get();
      c.check = [fake] {
        return absl::StrCat(fake->Docs("sample_index").size(), " document(s), bulk items ",
                            fake->Stats().value("bulkItems", 0));
      };
    }
    cases.push_back(std::move(c));
  }

  // sinks/mongo-sink.md against the MongoDB fake, with the example's user.
  auto mongo = MongoFake::Start();
  {
    Case c;
    c.example = "firehose sinks/mongo-sink.md";
    c.topic = "mongo-topic";
    if (!mongo.ok()) {
      c.skip = std::string(mongo.status().message());
    } else {
      nlohmann::ordered_json add;
      add["sluiceFakeAddUser"] = "bruce_wills";
      add["pwd"] = "password@123";
      add["db"] = "sample_auth_DB";
      (*mongo)->Command("admin", add);
      c.vars = {{"SINK_TYPE", "mongodb"},
                {"SINK_MONGO_CONNECTION_URLS", (*mongo)->address()},  // localhost:27017
                {"SINK_MONGO_DB_NAME", "sample_DB"},
                {"SINK_MONGO_AUTH_ENABLE", "true"},
                {"SINK_MONGO_AUTH_USERNAME", "bruce_wills"},
                {"SINK_MONGO_AUTH_PASSWORD", "password@123"},
                {"SINK_MONGO_AUTH_DB", "sample_auth_DB"},
                {"SINK_MONGO_COLLECTION_NAME", "customerCollection"},
                {"SINK_MONGO_PRIMARY_KEY", "customer_id"},
                {"SINK_MONGO_MODE_UPDATE_ONLY_ENABLE", "TRUE"},
                {"SINK_MONGO_INPUT_MESSAGE_TYPE", "PROTOBUF"},
                {"SINK_MONGO_CONNECT_TIMEOUT_MS", "60000"},
                {"SINK_MONGO_RETRY_STATUS_CODE_BLACKLIST", "16608,11000"},
                {"SINK_MONGO_PRESERVE_PROTO_FIELD_NAMES_ENABLE", "false"},
                {"SINK_MONGO_SERVER_SELECT_TIMEOUT_MS", "4000"}};
      // Authenticated with the docs' user; the primary key names a field of
      // their schema, absent from the sample.
      c.expected = "stopped at the first record: sluice-sink stopped after a fatal error: "
                   "INVALID_MESSAGE_ERROR";
      MongoFake* fake = mongo->get();
      c.check = [fake] {
        return absl::StrCat(fake->Find("sample_DB", "customerCollection").size(), " document(s)");
      };
    }
    cases.push_back(std::move(c));
  }

  std::string table = "| Example | Outcome |\n|---|---|\n";
  std::vector<std::string> outcomes;
  for (const Case& c : cases) {
    std::string outcome = RunCase(broker, dir, c);
    outcomes.push_back(outcome);
    absl::StrAppend(&table, "| ", c.example, " | ", outcome, " |\n");
  }
  std::printf("Firehose conformance:\n%s", table.c_str());
  RecordProperty("table", table);
  for (size_t i = 0; i < cases.size(); ++i) {
    if (!cases[i].expected.empty()) {
      EXPECT_TRUE(absl::StartsWith(outcomes[i], cases[i].expected))
          << cases[i].example << ": " << outcomes[i];
    }
  }
}

}  // namespace
}  // namespace sluice::integration
