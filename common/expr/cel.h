// The CEL (Common Expression Language, github.com/google/cel-spec) subset that
// goto Firehose's gRPC sink documents for SINK_GRPC_RESPONSE_RETRY_CEL_EXPRESSION
// (firehose: docs/sinks/grpc-sink.md, evaluator/GrpcResponseCelPayloadEvaluator),
// run on this package's engine. The one variable is the response message,
// named by its full proto name:
//   com.x.GenericResponse.success == false &&
//   com.x.GenericResponse.errors.exists(e, int(e.code) >= 400 && int(e.code) <= 500)
// Supported: literals (int, double, string, bool, null, lists), field access
// (`a.b`), indexing (`a[0]`, `m["k"]`), == != < <= > >=, `in`, + - * / %,
// ! and unary -, && ||, `c ? a : b`, the macros `exists`, `all` and
// `exists_one`, and the functions int() and size() (also `x.size()`).
// Anything else (has(), map/filter, string methods, other functions) is refused
// at compile time, naming the construct. Differences from CEL: enum fields
// read as their value names (CEL: numbers), and comparing values of different
// types is false rather than a compile error.
#ifndef SLUICE_COMMON_EXPR_CEL_H_
#define SLUICE_COMMON_EXPR_CEL_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/expr/expr.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"

namespace sluice::expr {

// A compiled CEL expression over one message.
class CelExpression {
 public:
  // Compiles `source`. `variable` is the message type's full name;
  // with `type` the fields read from it are checked now. InvalidArgument
  // naming the problem: a syntax error, a construct outside the subset, an
  // unknown variable, an unknown field.
  static absl::StatusOr<CelExpression> Compile(absl::string_view source, absl::string_view variable,
                                               const google::protobuf::Descriptor* type);

  // Evaluates with `message` bound to the variable. InvalidArgument when the
  // result is not a bool or evaluation fails (e.g. int("x")).
  absl::StatusOr<bool> Evaluate(const google::protobuf::Message& message) const;

  const std::string& source() const { return source_; }

 private:
  std::shared_ptr<const Program> program_;
  std::string source_;
  std::string bound_;  // the identifier that replaced `variable` in the source
};

}  // namespace sluice::expr

#endif  // SLUICE_COMMON_EXPR_CEL_H_
