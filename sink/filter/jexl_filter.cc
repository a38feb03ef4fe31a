#include "sink/filter/jexl_filter.h"

#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"

namespace sluice::sink {
namespace {

absl::Status ExpressionError(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("FILTER_JEXL_EXPRESSION: ", what));
}

}  // namespace

absl::StatusOr<std::unique_ptr<JexlFilter>> JexlFilter::Create(const FilterConfig& filter,
                                                               const SchemaConfig& schema,
                                                               const SchemaRegistry* registry) {
  auto f = std::unique_ptr<JexlFilter>(new JexlFilter());
  auto program = expr::Program::Compile(filter.expression);
  if (!program.ok()) return ExpressionError(program.status().message());
  f->program_ = *std::move(program);
  f->json_ = filter.jexl_json;
  f->SetDropDeserializationError(filter.drop_deserialization_error,
                                 "firehose_jexl_filter_deserialization_errors_total");
  const google::protobuf::Descriptor* desc = nullptr;
  if (f->json_) {
    f->variable_ = filter.data_source_key ? "key" : "message";
    f->reader_ = RecordReader::ForJson(filter, schema);
  } else {
    auto reader = RecordReader::ForProto(filter, schema, registry);
    if (!reader.ok()) return reader.status();
    f->reader_ = *std::move(reader);
    desc = *registry->Current()->FindMessage(filter.proto_class);
    f->variable_ = expr::ProtoVariableName(desc);
  }
  for (const std::string& root : f->program_->RootIdentifiers()) {
    if (root != f->variable_) {
      return ExpressionError(absl::StrCat(
          "unknown variable \"", root, "\"; the record is bound as \"", f->variable_, "\" (",
          f->json_ ? "JSON input, FILTER_DATA_SOURCE" : "FILTER_SCHEMA_PROTO_CLASS ",
          f->json_ ? "" : filter.proto_class, ")"));
    }
  }
  if (desc != nullptr) {
    if (absl::Status s = f->program_->CheckMessageType(f->variable_, desc); !s.ok()) {
      return ExpressionError(s.message());
    }
  }
  return f;
}

absl::StatusOr<bool> JexlFilter::EvaluateOne(const Message& m, google::protobuf::Arena* arena,
                                             bool allow_reuse) {
  expr::Environment env;
  nlohmann::json slot;
  if (json_) {
    auto doc = reader_->Json(m, &slot, allow_reuse);
    if (!doc.ok()) return doc.status();
    env.BindJson(variable_, *doc);
  } else {
    auto view = reader_->Proto(m, arena, allow_reuse);
    if (!view.ok()) return view.status();
    env.BindMessage(variable_, *view);
  }
  absl::StatusOr<bool> keep = program_->EvaluateBool(env);
  if (!keep.ok()) return absl::InvalidArgumentError(absl::StrCat("filter: ", keep.status().message()));
  return keep;
}

std::string JexlFilter::Describe(const Message& record) {
  reader_->BeginBatch();
  if (json_) {
    nlohmann::json slot;
    auto doc = reader_->Json(record, &slot, /*allow_reuse=*/false);
    return doc.ok() ? (*doc)->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) : "";
  }
  google::protobuf::Arena arena;
  auto view = reader_->Proto(record, &arena, /*allow_reuse=*/false);
  if (!view.ok()) return "";
  std::string out;
  google::protobuf::TextFormat::Printer printer;
  printer.SetSingleLineMode(true);
  printer.PrintToString(**view, &out);
  return out;
}

}  // namespace sluice::sink
