// SINK_TYPE=influxdb (Firehose's InfluxDB sink, firehose: sink/influxdb):
// each message becomes one point of SINK_INFLUX_MEASUREMENT_NAME, with tags
// and fields from the configured record fields and the time from the event
// timestamp field (milliseconds), and each batch one InfluxDB 1.x
// `POST /write?db=&rp=&precision=ms` in line protocol through
// common/http_client (http/https only, outbound rules apply).
#ifndef SLUICE_SINK_SINKS_INFLUXDB_INFLUX_SINK_H_
#define SLUICE_SINK_SINKS_INFLUXDB_INFLUX_SINK_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/http_client.h"
#include "sink/message.h"
#include "sink/metrics.h"
#include "sink/sinks/common/record_fields.h"
#include "sink/sinks/sink_context.h"

namespace sluice::sink {

// Parsed SINK_INFLUX_* configuration (Firehose's InfluxSinkConfig names).
struct InfluxSinkConfig {
  std::string url;       // SINK_INFLUX_URL, e.g. http://localhost:8086
  std::string username;  // SINK_INFLUX_USERNAME (sent as HTTP Basic when set)
  std::string password;  // SINK_INFLUX_PASSWORD
  std::string database;  // SINK_INFLUX_DB_NAME
  std::string retention_policy = "autogen";  // SINK_INFLUX_RETENTION_POLICY
  std::string measurement;                   // SINK_INFLUX_MEASUREMENT_NAME
  // SINK_INFLUX_FIELD_NAME_PROTO_INDEX_MAPPING (required, at least one) and
  // SINK_INFLUX_TAG_NAME_PROTO_INDEX_MAPPING: {"<index or name>": "<name>"}
  // with nested objects for nested messages ({"4": {"1": "city"}}), as
  // Firehose; names ("pickup.city") work too, and are the only form for JSON.
  std::vector<NamedField> fields;
  std::vector<NamedField> tags;
  // SINK_INFLUX_PROTO_EVENT_TIMESTAMP_INDEX: a google.protobuf.Timestamp
  // field (JSON input: a member holding epoch milliseconds).
  std::shared_ptr<const RecordField> timestamp;
  int64_t request_timeout_ms = 10000;  // SINK_INFLUX_REQUEST_TIMEOUT_MS (sluice)

  // InvalidArgument naming the variable when one is missing or malformed, or
  // when the measurement or a tag or field name has a newline or carriage
  // return.
  static absl::StatusOr<InfluxSinkConfig> FromEnv(const Env& env, const SinkContext& ctx);
};

class InfluxSink : public TwoStageSink {
 public:
  using Config = InfluxSinkConfig;  // for CreateFromContext<InfluxSink>
  // `http` defaults to the shared libcurl client.
  static absl::StatusOr<std::unique_ptr<InfluxSink>> Create(
      InfluxSinkConfig config, Metrics* metrics, std::shared_ptr<HttpClient> http = nullptr);

  // Renders each message's line. A message without the timestamp or without
  // any field value, or with a newline or carriage return in a tag value
  // (the error names the tag), fails alone with INVALID_MESSAGE_ERROR; an
  // absent tag is left out (InfluxDB refuses empty tag values).
  std::vector<FailedMessage> Prepare(const std::vector<Message>& batch) override;
  // One write for the batch: 2xx delivers all; 429 and a transport error or
  // timeout are SINK_RETRYABLE_ERROR, 5xx SINK_5XX_ERROR. A 400 ("partial
  // write" or "unable to parse"; InfluxDB wrote the other points) does not
  // say which points failed for a type conflict, so each line is written
  // again alone (points are idempotent: same series and time overwrite) and
  // only the lines refused alone fail, as SINK_4XX_ERROR. InfluxDB's error
  // text (never the body otherwise) goes into the error.
  std::vector<FailedMessage> Execute() override;
  absl::string_view Name() const override { return "influxdb"; }

 private:
  InfluxSink(InfluxSinkConfig config, std::shared_ptr<HttpClient> http);
  // The line-protocol line of `m`; InvalidArgument when it cannot be made.
  absl::StatusOr<std::string> Line(const Message& m) const;

  // One /write of `body`; OK, or the failure's type and reason.
  struct WriteResult {
    bool ok = false;
    bool partial = false;  // a 400 of InfluxDB's point errors
    // Always DEFAULT_ERROR, as Firehose: InfluxSink.java:67 client.write throws
    // on any failed write (transport, 4xx, 5xx) and AbstractSink.java:48-53
    // fails the push, typed by Message.java:33-36.
    ErrorType type = ErrorType::kDefaultError;
    std::string why;
  };
  WriteResult Write(std::string body) const;

  InfluxSinkConfig config_;
  std::shared_ptr<HttpClient> http_;
  std::vector<std::string> lines_;  // one per prepared message
  std::vector<const Message*> messages_;  // into the batch, which outlives Execute
};

// Line-protocol escaping (InfluxDB 1.x docs, "Line protocol: special
// characters"): measurement names escape commas and spaces; tag keys, tag
// values and field keys also escape "="; string field values are quoted with
// '"' and '\' escaped. In names and tags, a run of backslashes of odd length
// right before an escaped character or at the end gets one more backslash,
// so that it can never escape a separator (InfluxDB's scanner pairs '\' with
// any next byte); other backslashes stay as they are. Newlines and carriage
// returns have no escape: the sink refuses them (config names at start, tag
// values per message as INVALID_MESSAGE_ERROR); quoted string field values
// may carry them.
std::string EscapeMeasurement(absl::string_view s);
std::string EscapeKey(absl::string_view s);
std::string QuoteFieldString(absl::string_view s);

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_INFLUXDB_INFLUX_SINK_H_
