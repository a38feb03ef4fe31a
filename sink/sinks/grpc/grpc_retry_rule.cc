#include "sink/sinks/grpc/grpc_retry_rule.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace sluice::sink {

absl::StatusOr<GrpcRetryRule> GrpcRetryRule::FromEnv(const Env& env,
                                                     const google::protobuf::Descriptor* response) {
  constexpr const char* kExpr = "SINK_GRPC_RESPONSE_RETRY_CEL_EXPRESSION";
  constexpr const char* kType = "SINK_GRPC_RESPONSE_RETRY_ERROR_TYPE";
  GrpcRetryRule rule;
  std::string source = env.GetOr(kExpr, "true");
  if (absl::StripAsciiWhitespace(source).empty()) {
    return absl::InvalidArgumentError(absl::StrCat(kExpr, " is blank (unset means \"true\")"));
  }
  auto compiled = expr::CelExpression::Compile(source, response->full_name(), response);
  if (!compiled.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(kExpr, ": ", compiled.status().message()));
  }
  rule.expression = std::make_shared<const expr::CelExpression>(*std::move(compiled));
  std::string type = std::string(absl::StripAsciiWhitespace(env.GetOr(kType, "DEFAULT_ERROR")));
  auto parsed = ParseErrorType(type);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(kType, ": ", parsed.status().message()));
  }
  rule.retry_type = *parsed;
  return rule;
}

ErrorType GrpcRetryRule::Classify(const google::protobuf::Message& response, std::string* why) const {
  absl::StatusOr<bool> retry = expression->Evaluate(response);
  if (!retry.ok()) {
    *why = absl::StrCat("SINK_GRPC_RESPONSE_RETRY_CEL_EXPRESSION: ", retry.status().message());
    return ErrorType::kDefaultError;
  }
  return *retry ? retry_type : ErrorType::kSinkNonRetryableError;
}

}  // namespace sluice::sink
