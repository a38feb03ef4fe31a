// SINK_TYPE=grpc: sends each message's raw bytes as the request of a unary
// gRPC method (Firehose's gRPC sink, firehose: sink/grpc) through a generic
// stub, so that no generated code of the target service is needed. The
// response is decoded with SINK_GRPC_RESPONSE_SCHEMA_PROTO_CLASS and its
// boolean `success` field decides the outcome.
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
#include "sink/message.h"
#include "sink/metrics.h"
#include "sink/sinks/common/proto_values.h"
#include "sink/sinks/sink_context.h"

namespace sluice::sink {

// SINK_GRPC_ARG_DEADLINE_MS when unset or 0. Firehose's default 0 means "no
// deadline"; sluice always sets one so that a hung call cannot stall the
// worker forever.
inline constexpr int64_t kDefaultGrpcDeadlineMs = 10000;

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

  // InvalidArgument naming the variable when missing or malformed (a
  // negative deadline included), or when the response class has no boolean
  // `success` field.
  static absl::StatusOr<GrpcSinkConfig> FromEnv(const Env& env, const SinkContext& ctx);
};

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
  // `success` is false (SINK_UNKNOWN_ERROR, the response text in the error).
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
