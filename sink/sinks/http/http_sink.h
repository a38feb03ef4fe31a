// SINK_TYPE=http: Firehose's HTTP sink (firehose: sink/http). A constant
// SINK_HTTP_SERVICE_URL sends the whole batch as one request whose body is a
// JSON array of the serialized messages; a dynamic URL (`.../%s,6`) or
// SINK_HTTP_PARAMETER_SOURCE sends one request per message. Requests of a
// batch run concurrently (up to SINK_HTTP_MAX_CONNECTIONS) on one libcurl
// multi handle, which keeps connections alive across batches.
#ifndef SLUICE_SINK_SINKS_HTTP_HTTP_SINK_H_
#define SLUICE_SINK_SINKS_HTTP_HTTP_SINK_H_

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/trace/span.h"
#include "common/trace/trace_context.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/dynamic_message.h"
#include "sink/message.h"
#include "sink/metrics.h"
#include "sink/sinks/common/http_options.h"
#include "sink/sinks/common/proto_values.h"
#include "sink/sinks/http/json_template.h"
#include "sink/sinks/http/json_typecast.h"
#include "sink/sinks/http/oauth2.h"
#include "sink/sinks/sink_context.h"

namespace sluice::sink {

// Parsed SINK_HTTP_* configuration. Defaults are Firehose's.
struct HttpSinkConfig {
  enum class DataFormat { kProto, kJson };
  enum class ParameterSource { kDisabled, kKey, kMessage };
  enum class ParameterPlacement { kHeader, kQuery };

  std::string url;                    // SINK_HTTP_SERVICE_URL (required)
  std::string method = "PUT";         // SINK_HTTP_REQUEST_METHOD: PUT|POST|PATCH|DELETE
  int64_t timeout_ms = 10000;         // SINK_HTTP_REQUEST_TIMEOUT_MS
  int max_connections = 10;           // SINK_HTTP_MAX_CONNECTIONS
  std::vector<std::pair<std::string, std::string>> headers;  // SINK_HTTP_HEADERS "k:v,k2:v2"
  std::vector<std::pair<int, int>> retry_ranges = {{400, 600}};  // inclusive
  // SINK_HTTP_REQUEST_LOG_STATUS_CODE_RANGES: answers logged with status
  // and sizes (inclusive ranges).
  std::vector<std::pair<int, int>> log_ranges = {{400, 499}};
  // SINK_HTTP_LOG_BODIES (sluice; default false): also log the request body
  // and the start of the answer. Bodies carry record data: debug only.
  bool log_bodies = false;
  DataFormat data_format = DataFormat::kProto;  // SINK_HTTP_DATA_FORMAT
  std::optional<JsonTemplate> body_template;    // SINK_HTTP_JSON_BODY_TEMPLATE
  // (_PARSE_OPTION is compiled into body_template.)
  // SINK_HTTP_SIMPLE_DATE_FORMAT_ENABLE (default true): json bodies without a
  // template print top-level Timestamps as Gson dates (message_to_json.h).
  bool simple_date_format = true;
  // SINK_HTTP_SERIALIZER_JSON_TYPECAST (default []): casts applied to each
  // serialized message (json_typecast.h).
  std::vector<JsonTypecast> typecasts;
  // SINK_HTTP_DELETE_BODY_ENABLE (default true): with method DELETE, false
  // sends requests without a body, as Firehose's request creators.
  bool delete_body = true;
  ParameterSource parameter_source = ParameterSource::kDisabled;
  ParameterPlacement parameter_placement = ParameterPlacement::kHeader;
  const google::protobuf::Descriptor* parameter_descriptor = nullptr;
  std::vector<ColumnMapping> parameter_mapping;  // INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING
  // Dynamic URL `http://h/x/%s,6`: the format and the fields of the input
  // message that fill each %s.
  std::vector<const google::protobuf::FieldDescriptor*> url_fields;
  const google::protobuf::Descriptor* input_descriptor = nullptr;  // INPUT_SCHEMA_PROTO_CLASS
  // Owners of the two descriptors above: private copies, because the schema
  // registry frees an old pool after a refresh (see OwnedDescriptor).
  std::vector<std::shared_ptr<const OwnedDescriptor>> owned;
  // SINK_HTTP_OAUTH2_ENABLE=true: the token endpoint, client and scope
  // (SINK_HTTP_OAUTH2_ACCESS_TOKEN_URL, _CLIENT_NAME, _CLIENT_SECRET required).
  std::optional<OAuth2Config> oauth2;

  // Reads the variables. InvalidArgument naming the variable on a missing or
  // bad value, including a service or token URL that is not http(s)://, and
  // header names or values (SINK_HTTP_HEADERS, header parameter columns)
  // that are not valid in HTTP. `find_message` may be null (json input); then the json data
  // format, parameters and dynamic URLs are unavailable.
  static absl::StatusOr<HttpSinkConfig> FromEnv(const Env& env,
                                                const SinkContext& ctx);
};

// The sink. Used by one thread at a time.
class HttpSink : public TwoStageSink {
 public:
  using Config = HttpSinkConfig;  // for CreateFromContext<HttpSink>
  // `metrics` must outlive the sink.
  static absl::StatusOr<std::unique_ptr<HttpSink>> Create(HttpSinkConfig config,
                                                          Metrics* metrics);
  ~HttpSink() override;

  // Builds the requests. A message that cannot be serialized fails alone and
  // is left out: DESERIALIZATION_ERROR for a template path it lacks or an
  // undecodable parameter source, INVALID_MESSAGE_ERROR when its content
  // cannot be encoded (not UTF-8 in a JSON body, a dynamic URL field that
  // cannot be rendered). Never throws.
  std::vector<FailedMessage> Prepare(const std::vector<Message>& batch) override;
  // Sends the requests. A status in SINK_HTTP_RETRY_STATUS_CODE_RANGES fails
  // the request's messages (SINK_5XX_ERROR for 5xx, SINK_4XX_ERROR for 4xx,
  // SINK_UNKNOWN_ERROR otherwise); a 1xx or 3xx outside them (redirects are
  // not followed, so nothing was stored) fails them with DEFAULT_ERROR;
  // another 4xx/5xx drops them and counts firehose_sink_messages_drop_total
  // (Firehose's rule); a connection error or timeout fails them with
  // SINK_RETRYABLE_ERROR, a URL that is not http(s) or a denied address
  // (common/outbound.h) with SINK_UNKNOWN_ERROR; when the libcurl multi
  // handle fails, every request not finished fails with
  // SINK_RETRYABLE_ERROR. Answers in SINK_HTTP_REQUEST_LOG_STATUS_CODE_RANGES
  // are logged with status and sizes (bodies only with SINK_HTTP_LOG_BODIES).
  // Every response counts
  // firehose_sink_http_response_code_total{status_code}. With OAuth2 each
  // request carries `Authorization: Bearer <token>`; a 401 drops the cached
  // token and the request is sent once more with a new one; no token
  // (endpoint down or refusing) fails the batch with SINK_RETRYABLE_ERROR.
  std::vector<FailedMessage> Execute() override;
  absl::string_view Name() const override { return "http"; }

  // Test seam: replaces curl_multi_perform(multi, running) (returns a
  // CURLMcode), e.g. to make it fail.
  void SetMultiPerformForTesting(std::function<int(void* multi, int* running)> perform);

  // The answer's body: its size, and a prefix for SINK_HTTP_LOG_BODIES only.
  struct ResponseBody {
    std::string prefix;
    size_t size = 0;
  };

 private:
  struct Request {
    std::string url;
    std::vector<std::string> headers;  // "Name: value"
    std::string body;
    std::vector<Message> messages;
    // The trace the request continues: the valid `traceparent` header of its
    // record (of its first record that has one, for a batch request).
    // nullopt: no span, and no traceparent is sent.
    std::optional<trace::TraceContext> parent;
  };
  HttpSink(HttpSinkConfig config, Metrics* metrics);

  // The serialized form of one message for the body. On error `type` says
  // how the record fails: INVALID_MESSAGE_ERROR when it cannot be encoded
  // (e.g. bytes that are not UTF-8 in a JSON string), DESERIALIZATION_ERROR
  // when a template path is missing from it.
  // SINK_HTTP_SERIALIZER_JSON_TYPECAST failures are INVALID_MESSAGE_ERROR.
  absl::StatusOr<std::string> Serialize(const Message& m, ErrorType* type) const;
  // Serialize before the typecasts.
  absl::StatusOr<std::string> SerializeUncast(const Message& m, ErrorType* type) const;
  // Parameter values for `m` (header or query), per the column mapping. On
  // error `type` is DESERIALIZATION_ERROR (no key, undecodable source) or
  // INVALID_MESSAGE_ERROR (a value that cannot be rendered).
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> Parameters(
      const Message& m, ErrorType* type) const;
  absl::StatusOr<std::string> DynamicUrl(const Message& m) const;
  // Sends requests_[i] for each i in `which` concurrently and records the
  // failed messages. With `unauthorized` set, a 401 answer only adds its
  // index there (the caller retries it with a fresh token).
  void Send(const std::vector<size_t>& which, std::vector<FailedMessage>* failed,
            std::vector<size_t>* unauthorized);
  // One request in flight.
  struct Transfer {
    void* easy = nullptr;     // CURL*
    void* headers = nullptr;  // curl_slist*
    ResponseBody response;
    std::array<char, 256> error{};  // CURL_ERROR_SIZE
    bool done = false;
    // The CLIENT span of a request with a parent; its context goes out as
    // `traceparent`.
    std::optional<trace::Span> span;
  };
  // Takes an idle easy handle (or a new one) and sets it up for `r`.
  void StartTransfer(const Request& r, Transfer* t);
  // What a finished transfer means for its messages (see Execute): nullopt
  // when they are delivered or dropped (counted), else their error type and
  // cause. Counts the response code and logs per the log ranges.
  std::optional<std::pair<ErrorType, std::string>> Outcome(const Request& r, const Transfer& t,
                                                           int curl_code);
  // Sets (or replaces) the Authorization header of requests_[i].
  void Authorize(size_t i, const std::string& token);

  HttpSinkConfig config_;
  Metrics* metrics_;
  void* multi_ = nullptr;               // CURLM*
  void* share_ = nullptr;               // CURLSH*
  std::vector<void*> idle_handles_;     // CURL* kept for reuse
  std::vector<Request> requests_;
  std::function<int(void*, int*)> perform_;  // curl_multi_perform, or a test's
  std::unique_ptr<OAuth2TokenSource> oauth2_;  // when config_.oauth2
  mutable google::protobuf::DynamicMessageFactory factory_;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_HTTP_HTTP_SINK_H_
