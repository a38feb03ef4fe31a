// FILTER_ENGINE=JEXL: keeps the records for which FILTER_JEXL_EXPRESSION is
// true, with the shared expression engine (common/expr). The record's key or
// message (FILTER_DATA_SOURCE), decoded as FILTER_SCHEMA_PROTO_CLASS, is bound
// to Firehose's variable name: the class's simple name with a lower-case
// first letter (`sampleLogMessage.getDriverId() == "x"`). With
// INPUT_SCHEMA_DATA_TYPE=json (beyond Firehose, whose JEXL reads protobuf
// only) the JSON record is bound as `message` (`key` for FILTER_DATA_SOURCE=
// KEY) and read with the same paths: `message.getDriver().getName()` or
// `message.driver.name` (see MapGetter in common/expr/access.h).
#ifndef SLUICE_SINK_FILTER_JEXL_FILTER_H_
#define SLUICE_SINK_FILTER_JEXL_FILTER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/expr/expr.h"
#include "sink/config.h"
#include "sink/filter/record_reader.h"
#include "sink/schema/schema_registry.h"
#include "sink/stages.h"

namespace sluice::sink {

class JexlFilter : public RecordFilter {
 public:
  // Compiles the expression once. InvalidArgument naming
  // FILTER_JEXL_EXPRESSION (with the column) on a syntax error, an unknown
  // variable or an unknown field; naming FILTER_SCHEMA_PROTO_CLASS when the
  // class is not in the registry. `schema` gives the input class and parser
  // mode, so that an already decoded record is reused. `registry` not owned;
  // unused (may be null) for JSON records (filter.jexl_json).
  static absl::StatusOr<std::unique_ptr<JexlFilter>> Create(const FilterConfig& filter,
                                                            const SchemaConfig& schema,
                                                            const SchemaRegistry* registry);

  // Text form of the filter's view of `record` (protobuf text format or
  // compact JSON; "" when it does not decode).
  std::string Describe(const Message& record);

  const std::string& variable() const { return variable_; }
  const std::string& expression() const { return program_->source(); }

 private:
  JexlFilter() = default;
  // Binds the record to `env` and evaluates; `slot`/`arena` hold what had to
  // be decoded here. DataLoss when the record does not decode.
  absl::StatusOr<bool> EvaluateOne(const Message& m, google::protobuf::Arena* arena,
                                   bool allow_reuse) override;

  std::shared_ptr<const expr::Program> program_;
  std::string variable_;
  bool json_ = false;  // JSON records (filter.jexl_json)
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_FILTER_JEXL_FILTER_H_
