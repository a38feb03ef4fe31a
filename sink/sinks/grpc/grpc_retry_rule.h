// goto Firehose's gRPC retry rule (firehose: sink/grpc/GrpcSink
// setRetryableErrorInfo, evaluator/GrpcResponseCelPayloadEvaluator): when a
// response's `success` is false, SINK_GRPC_RESPONSE_RETRY_CEL_EXPRESSION (a
// CEL expression over the response, default "true") decides whether the
// message fails with SINK_GRPC_RESPONSE_RETRY_ERROR_TYPE (default
// DEFAULT_ERROR, which ERROR_TYPES_FOR_RETRY retries by default) or as not
// retryable. The CEL subset is common/expr/cel.h.
#ifndef SLUICE_SINK_SINKS_GRPC_GRPC_RETRY_RULE_H_
#define SLUICE_SINK_SINKS_GRPC_GRPC_RETRY_RULE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/expr/cel.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "sink/env.h"
#include "sink/message.h"

namespace sluice::sink {

struct GrpcRetryRule {
  // SINK_GRPC_RESPONSE_RETRY_CEL_EXPRESSION, compiled; the variable is the
  // response class's full name (`com.x.GenericResponse.errors.exists(...)`).
  std::shared_ptr<const expr::CelExpression> expression;
  ErrorType retry_type = ErrorType::kDefaultError;  // SINK_GRPC_RESPONSE_RETRY_ERROR_TYPE

  // Reads both variables against `response` (the response class).
  // InvalidArgument naming the variable: an empty expression, a CEL syntax
  // error, a construct outside the subset, an unknown variable or field, an
  // error type that is not one of sluice's (Firehose's ErrorType names).
  static absl::StatusOr<GrpcRetryRule> FromEnv(const Env& env,
                                               const google::protobuf::Descriptor* response);

  // The error type of a message whose response had success=false (or, as
  // Firehose's GrpcClient answers an empty response for a failed call, whose
  // call failed): the retry type when the expression is true
  // (firehose GrpcSink.java:81), SINK_NON_RETRYABLE_ERROR when it is false
  // (GrpcSink.java:84), DEFAULT_ERROR when it cannot be evaluated (then `why`
  // gets the evaluation error): Firehose's evaluate() throws, and
  // AbstractSink.java:48-53 fails the push, which Message.java:33-36 types
  // DEFAULT_ERROR.
  ErrorType Classify(const google::protobuf::Message& response, std::string* why) const;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_GRPC_GRPC_RETRY_RULE_H_
