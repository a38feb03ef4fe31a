// FILTER_ENGINE=JSON (Firehose's JsonFilter): keeps the records that validate
// against FILTER_JSON_SCHEMA (draft-07, see json_schema.h). The record's key
// or message (FILTER_DATA_SOURCE) is read as JSON, or, with
// FILTER_ESB_MESSAGE_FORMAT=PROTOBUF, decoded as FILTER_SCHEMA_PROTO_CLASS and
// printed as JSON the way Firehose does (JsonFormat with proto field names:
// unset fields omitted, enums as names, 64-bit integers as strings).
#ifndef SLUICE_SINK_FILTER_JSON_FILTER_H_
#define SLUICE_SINK_FILTER_JSON_FILTER_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "sink/config.h"
#include "sink/filter/json_schema.h"
#include "sink/filter/record_reader.h"
#include "sink/schema/schema_registry.h"
#include "sink/stages.h"

namespace sluice::sink {

class JsonFilter : public RecordFilter {
 public:
  // InvalidArgument naming FILTER_JSON_SCHEMA (with the JSON pointer of the
  // bad keyword) or FILTER_SCHEMA_PROTO_CLASS. `registry` not owned; needed
  // only for FILTER_ESB_MESSAGE_FORMAT=PROTOBUF.
  static absl::StatusOr<std::unique_ptr<JsonFilter>> Create(const FilterConfig& filter,
                                                            const SchemaConfig& schema,
                                                            const SchemaRegistry* registry);

 private:
  // Validates the record's JSON: true keeps it. A record that is not JSON (or
  // does not decode as the filter class) is DataLoss (DESERIALIZATION_ERROR);
  // a $ref cycle met during validation is InvalidArgument.
  JsonFilter() = default;
  absl::StatusOr<bool> EvaluateOne(const Message& m, google::protobuf::Arena* arena,
                                   bool allow_reuse) override;

  std::unique_ptr<JsonSchema> schema_;
  bool protobuf_ = false;  // FILTER_ESB_MESSAGE_FORMAT=PROTOBUF
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_FILTER_JSON_FILTER_H_
