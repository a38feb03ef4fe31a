#include "sink/filter/json_filter.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "sink/schema/json_decoder.h"

namespace sluice::sink {

absl::StatusOr<std::unique_ptr<JsonFilter>> JsonFilter::Create(const FilterConfig& filter,
                                                               const SchemaConfig& schema,
                                                               const SchemaRegistry* registry) {
  auto f = std::unique_ptr<JsonFilter>(new JsonFilter());
  auto compiled = JsonSchema::Compile(filter.json_schema);
  if (!compiled.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("FILTER_JSON_SCHEMA: ", compiled.status().message()));
  }
  f->schema_ = *std::move(compiled);
  f->protobuf_ = filter.esb_protobuf;
  f->SetDropDeserializationError(filter.drop_deserialization_error,
                                 "firehose_json_filter_deserialization_errors_total");
  if (f->protobuf_) {
    auto reader = RecordReader::ForProto(filter, schema, registry);
    if (!reader.ok()) return reader.status();
    f->reader_ = *std::move(reader);
  } else {
    f->reader_ = RecordReader::ForJson(filter, schema);
  }
  return f;
}

absl::StatusOr<bool> JsonFilter::EvaluateOne(const Message& m, google::protobuf::Arena* arena,
                                             bool allow_reuse) {
  nlohmann::json slot;
  const nlohmann::json* doc = nullptr;
  if (protobuf_) {
    auto proto = reader_->Proto(m, arena, allow_reuse);
    if (!proto.ok()) return proto.status();
    google::protobuf::util::JsonPrintOptions opts;
    opts.preserve_proto_field_names = true;  // Firehose: JsonFormat.printer().preservingProtoFieldNames()
    std::string text;
    if (auto s = google::protobuf::util::MessageToJsonString(**proto, &text, opts); !s.ok()) {
      return absl::DataLossError(absl::StrCat("filter: cannot print as JSON: ", s.ToString()));
    }
    absl::StatusOr<nlohmann::json> parsed = ParseJsonRecord(text);
    if (!parsed.ok()) return absl::DataLossError(absl::StrCat("filter: ", parsed.status().message()));
    slot = *std::move(parsed);
    doc = &slot;
  } else {
    auto json = reader_->Json(m, &slot, allow_reuse);
    if (!json.ok()) return json.status();
    doc = *json;
  }
  return schema_->Validate(*doc);
}

}  // namespace sluice::sink
