// SINK_TYPE=grpc: sends each message's raw bytes as the request of a unary
// gRPC method (Firehose's gRPC sink, firehose: sink/grpc) through a generic
// stub, so that no generated code of the target service is needed. The
// response is decoded with SINK_GRPC_RESPONSE_SCHEMA_PROTO_CLASS and its
// boolean `success` field decides the outcome. SINK_GRPC_TLS_ENABLE and
// SINK_GRPC_ROOT_CA choose TLS, and the keepalive variables become channel
// arguments, as Firehose's GrpcSinkFactory builds its Netty channel.
#ifndef SLUICE_SINK_SINKS_GRPC_GRPC_SINK_H_
#define SLUICE_SINK_SINKS_GRPC_GRPC_SINK_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/dynamic_message.h"
#include "grpcpp/channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/support/channel_arguments.h"
#include "sink/message.h"
#include "sink/metrics.h"
#include "sink/sinks/common/proto_values.h"
#include "sink/sinks/grpc/grpc_retry_rule.h"
#include "sink/sinks/sink_context.h"

namespace sluice::sink {

// SINK_GRPC_ARG_DEADLINE_MS when unset or 0. Firehose's default 0 means "no
// deadline"; sluice always sets one so that a hung call cannot stall the
// worker forever.
inline constexpr int64_t kDefaultGrpcDeadlineMs = 10000;

// SINK_GRPC_ARG_KEEPALIVE_TIME_MS default (Firehose's Long.MAX_VALUE): no
// keepalive pings. Values up to 10000 are raised to 10000, as grpc-java's
// keepAliveTime does.
inline constexpr int64_t kGrpcKeepaliveOff = INT64_MAX;
inline constexpr int64_t kGrpcMinKeepaliveTimeMs = 10000;
// SINK_GRPC_ARG_KEEPALIVE_TIMEOUT_MS default, as Firehose's GrpcSinkConfig.
inline constexpr int64_t kDefaultGrpcKeepaliveTimeoutMs = 20000;

// Parsed SINK_GRPC_* configuration.
struct GrpcSinkConfig {
  std::string host;    // SINK_GRPC_SERVICE_HOST (required)
  int port = 0;        // SINK_GRPC_SERVICE_PORT (required)
  std::string method;  // SINK_GRPC_METHOD_URL "pkg.Service/Method", stored as "/pkg.Service/Method"
  const google::protobuf::Descriptor* response = nullptr;  // SINK_GRPC_RESPONSE_SCHEMA_PROTO_CLASS
  // Owner of `response`: a private copy, because the schema registry frees an
  // old pool after a refresh (see OwnedDescriptor).
  std::shared_ptr<const OwnedDescriptor> owned_response;
  // SINK_GRPC_ARG_DEADLINE_MS: per-call deadline; unset or 0 means
  // kDefaultGrpcDeadlineMs (not Firehose's "none").
  int64_t deadline_ms = kDefaultGrpcDeadlineMs;
  std::vector<std::pair<std::string, std::string>> metadata;  // SINK_GRPC_METADATA "k:v,k2:v2"
  // SINK_GRPC_TLS_ENABLE (default false, as Firehose): TLS instead of plaintext.
  bool tls = false;
  // SINK_GRPC_ROOT_CA, as PEM text: the CA certificates trusted with TLS;
  // empty means the system roots. Firehose takes the base64 of the PEM;
  // sluice also takes the PEM text itself or the path of a PEM file.
  std::string root_ca_pem;
  // SINK_GRPC_ARG_KEEPALIVE_TIME_MS (kGrpcKeepaliveOff = no pings) and
  // SINK_GRPC_ARG_KEEPALIVE_TIMEOUT_MS, in ms; both must be positive.
  int64_t keepalive_time_ms = kGrpcKeepaliveOff;
  int64_t keepalive_timeout_ms = kDefaultGrpcKeepaliveTimeoutMs;
  // SINK_GRPC_RESPONSE_RETRY_CEL_EXPRESSION and _RESPONSE_RETRY_ERROR_TYPE:
  // how a success=false response fails (grpc_retry_rule.h).
  GrpcRetryRule retry_rule;

  // InvalidArgument naming the variable when missing or malformed (a
  // negative deadline or keepalive included), when the response class has no
  // boolean `success` field, or when TLS is on and SINK_GRPC_ROOT_CA is set
  // but holds no readable PEM certificate (bad base64, unreadable path, not a
  // certificate).
  static absl::StatusOr<GrpcSinkConfig> FromEnv(const Env& env, const SinkContext& ctx);
};

// The channel arguments of `config`: GRPC_ARG_KEEPALIVE_TIME_MS (raised to
// kGrpcMinKeepaliveTimeMs; left unset when off) and
// GRPC_ARG_KEEPALIVE_TIMEOUT_MS, both capped at INT32_MAX.
grpc::ChannelArguments GrpcChannelArguments(const GrpcSinkConfig& config);

// The sink. The calls of a batch run concurrently on one channel.
class GrpcSink : public TwoStageSink {
 public:
  using Config = GrpcSinkConfig;  // for CreateFromContext<GrpcSink>
  static absl::StatusOr<std::unique_ptr<GrpcSink>> Create(GrpcSinkConfig config, Metrics* metrics);

  std::vector<FailedMessage> Prepare(const std::vector<Message>& batch) override;
  // A message fails when its call fails (UNAVAILABLE, DEADLINE_EXCEEDED,
  // RESOURCE_EXHAUSTED, ABORTED -> SINK_RETRYABLE_ERROR; INVALID_ARGUMENT,
  // NOT_FOUND, PERMISSION_DENIED, UNAUTHENTICATED, FAILED_PRECONDITION,
  // UNIMPLEMENTED, OUT_OF_RANGE -> SINK_4XX_ERROR; others -> SINK_5XX_ERROR),
  // when the response does not decode (SINK_UNKNOWN_ERROR), or when its
  // `success` is false (the retry rule's type: by default DEFAULT_ERROR,
  // which is retried, as Firehose; the response text in the error).
  std::vector<FailedMessage> Execute() override;
  absl::string_view Name() const override { return "grpc"; }

 private:
  GrpcSink(GrpcSinkConfig config, Metrics* metrics);

  GrpcSinkConfig config_;
  Metrics* metrics_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<grpc::GenericStub> stub_;
  google::protobuf::DynamicMessageFactory factory_;
  const google::protobuf::FieldDescriptor* success_field_ = nullptr;
  std::vector<Message> prepared_;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_GRPC_GRPC_SINK_H_
