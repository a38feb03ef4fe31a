// FILTER_ENGINE=JEXL: keeps the records for which FILTER_JEXL_EXPRESSION is
// true, with the shared expression engine (common/expr). The record's key or
// message (FILTER_DATA_SOURCE), decoded as FILTER_SCHEMA_PROTO_CLASS, is bound
// to Firehose's variable name: the class's simple name with a lower-case
// first letter (`sampleLogMessage.getDriverId() == "x"`).
#ifndef SLUICE_SINK_FILTER_JEXL_FILTER_H_
#define SLUICE_SINK_FILTER_JEXL_FILTER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/expr/expr.h"
#include "sink/config.h"
#include "sink/schema/proto_decoder.h"
#include "sink/schema/schema_registry.h"
#include "sink/stages.h"

namespace sluice::sink {

class JexlFilter : public Filter {
 public:
  // Compiles the expression once. InvalidArgument naming
  // FILTER_JEXL_EXPRESSION (with the column) on a syntax error, an unknown
  // variable or an unknown field; naming FILTER_SCHEMA_PROTO_CLASS when the
  // class is not in the registry. `schema` gives the input class and parser
  // mode, so that an already decoded record is reused. `registry` not owned.
  static absl::StatusOr<std::unique_ptr<JexlFilter>> Create(const FilterConfig& filter,
                                                            const SchemaConfig& schema,
                                                            const SchemaRegistry* registry);

  // Drops records evaluating to false. A non-boolean result or an evaluation
  // error moves the record to `failed` as INVALID_MESSAGE_ERROR; bytes that do
  // not decode as the filter class become DESERIALIZATION_ERROR.
  int Apply(std::vector<Message>* batch, std::vector<FailedMessage>* failed) override;

  // Evaluates one raw record (decoding it with the filter class). For the
  // control API's TestFilter; never touches offsets.
  absl::StatusOr<bool> Evaluate(const Message& record);

  // Text form of the filter's view of `record` ("" when it does not decode).
  std::string Describe(const Message& record);

  const std::string& variable() const { return variable_; }
  const std::string& expression() const { return program_->source(); }

 private:
  JexlFilter() = default;
  // The message the filter reads for `m`: reused or decoded on `arena`.
  absl::StatusOr<const google::protobuf::Message*> View(const Message& m,
                                                        google::protobuf::Arena* arena,
                                                        bool allow_reuse);

  std::shared_ptr<const expr::Program> program_;
  std::unique_ptr<ProtoDecoder> decoder_;  // decodes FILTER_SCHEMA_PROTO_CLASS
  std::string variable_;
  bool key_ = false;
  bool reuse_decoded_ = false;  // the worker already decoded the same class/source
};

// The filter for `config`: null for FILTER_ENGINE=NO_OP. `registry` may be
// null only for NO_OP.
absl::StatusOr<std::unique_ptr<Filter>> CreateFilter(const SinkConfig& config,
                                                     const SchemaRegistry* registry);

}  // namespace sluice::sink

#endif  // SLUICE_SINK_FILTER_JEXL_FILTER_H_
