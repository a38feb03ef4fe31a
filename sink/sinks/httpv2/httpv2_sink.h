// SINK_TYPE=HTTPV2: depot's http sink (goto/depot http/HttpSink.java), the
// HTTP sink Firehose recommends over SINK_TYPE=HTTP. Configuration in
// httpv2_config.h.
//
// SINGLE mode sends one request per record: URL, query parameters and
// headers may be templates filled from the record (the URL and body from the
// decoded record, headers and query from the message or key per
// *_PARAMETER_SOURCE). Values filled into the URL and the query are
// percent-encoded; header and body values are not. BATCH mode sends the whole batch as one request whose
// body is depot's rendering of the list of bodies: "[b1, b2]". Bodies follow
// SINK_HTTPV2_REQUEST_BODY_MODE:
//   RAW               {"log_key":"<base64 key>","log_message":"<base64 value>"}
//   MESSAGE           the decoded record's JSON (proto field names)
//   JSON              {"logKey":"<key JSON as a string>","logMessage":"<message JSON as a string>"}
//   TEMPLATIZED_JSON  SINK_HTTPV2_JSON_BODY_TEMPLATE with every string filled in
#ifndef SLUICE_SINK_SINKS_HTTPV2_HTTPV2_SINK_H_
#define SLUICE_SINK_SINKS_HTTPV2_HTTPV2_SINK_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/http_client.h"
#include "google/protobuf/dynamic_message.h"
#include "sink/message.h"
#include "sink/metrics.h"
#include "sink/sinks/httpv2/httpv2_config.h"
#include "sink/sinks/httpv2/oauth2_client.h"

namespace sluice::sink {

// The sink. Used by one thread at a time.
class Httpv2Sink : public TwoStageSink {
 public:
  using Config = Httpv2SinkConfig;  // for CreateFromContext<Httpv2Sink>
  // `metrics` must outlive the sink. Requests go through libcurl
  // (NewCurlHttpClient: http/https only, the process's outbound rules).
  static absl::StatusOr<std::unique_ptr<Httpv2Sink>> Create(Httpv2SinkConfig config,
                                                            Metrics* metrics);
  // As above with the clients injected (tests): `http` sends the records,
  // `token_http` the OAuth2 token requests.
  static absl::StatusOr<std::unique_ptr<Httpv2Sink>> Create(Httpv2SinkConfig config,
                                                            Metrics* metrics,
                                                            std::unique_ptr<HttpClient> http,
                                                            std::unique_ptr<HttpClient> token_http);

  // Builds the requests. A record fails alone (depot's RequestUtils error
  // records): DESERIALIZATION_ERROR when the key or message it needs does not
  // decode, UNKNOWN_FIELDS_ERROR when a template names a field it lacks,
  // INVALID_MESSAGE_ERROR when a filled value cannot be sent (not UTF-8 in
  // JSON, a header value with control characters, a URL that is not
  // http(s) or whose scheme, host or port differ from
  // Httpv2SinkConfig::url_origin).
  std::vector<FailedMessage> Prepare(const std::vector<Message>& batch) override;
  // Sends the requests, up to SINK_HTTPV2_MAX_CONNECTIONS at once. A 2xx
  // delivers; otherwise (depot's HttpResponseParser) a status in
  // SINK_HTTPV2_RETRY_STATUS_CODE_RANGES fails the request's records with
  // SINK_RETRYABLE_ERROR, another 4xx with SINK_4XX_ERROR, 5xx with
  // SINK_5XX_ERROR, anything else with SINK_UNKNOWN_ERROR. A transport
  // error or timeout is SINK_RETRYABLE_ERROR. Statuses in
  // SINK_HTTPV2_REQUEST_LOG_STATUS_CODE_RANGES are logged (method, URL
  // without path or query, status, sizes). Each answer counts
  // firehose_sink_http_response_code_total{status_code}. With OAuth2 every
  // request carries `Authorization: Bearer <token>`; a 401 drops the cached
  // token (the next attempt fetches a new one); when no token can be had,
  // the batch fails with SINK_RETRYABLE_ERROR without being sent.
  std::vector<FailedMessage> Execute() override;
  absl::string_view Name() const override { return "httpv2"; }

  // OAuth2 token requests made so far (0 without OAuth2).
  int token_fetches() const { return oauth2_ ? oauth2_->fetches() : 0; }

 private:
  struct Request {
    HttpRequest http;
    std::vector<Message> messages;
  };
  // A decoded key or message and its storage.
  struct Side {
    std::unique_ptr<google::protobuf::Message> proto;
    nlohmann::json json;
    RecordView view;
  };
  Httpv2Sink(Httpv2SinkConfig config, Metrics* metrics, std::unique_ptr<HttpClient> http);

  // The record's key (`key`) or message, decoded. DESERIALIZATION_ERROR text
  // on failure.
  absl::Status Decode(const Message& m, bool key, Side* out) const;
  // The body of one record; `type` says how it fails.
  absl::StatusOr<std::string> Body(const Message& m, const Side& decoded, ErrorType* type) const;
  absl::StatusOr<nlohmann::ordered_json> FillTemplate(const nlohmann::ordered_json& node,
                                                      const RecordView& r) const;
  // One SINGLE-mode request for `m`, or its failure.
  absl::StatusOr<Request> SingleRequest(const Message& m, ErrorType* type) const;
  std::vector<std::string> BaseHeaders(bool with_body) const;
  // Records the failures of requests_[i] for `status` (< 0: transport error `error`).
  void Classify(size_t i, long status, const std::string& error,
                std::vector<FailedMessage>* failed);

  Httpv2SinkConfig config_;
  Metrics* metrics_;
  std::unique_ptr<HttpClient> http_;
  std::unique_ptr<Httpv2TokenSource> oauth2_;
  std::vector<Request> requests_;
  mutable google::protobuf::DynamicMessageFactory factory_;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_HTTPV2_HTTPV2_SINK_H_
