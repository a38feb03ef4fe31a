#include "sink/filter/jexl_filter.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/text_format.h"

namespace sluice::sink {

absl::StatusOr<std::unique_ptr<JexlFilter>> JexlFilter::Create(const FilterConfig& filter,
                                                               const SchemaConfig& schema,
                                                               const SchemaRegistry* registry) {
  if (registry == nullptr) {
    return absl::InvalidArgumentError("FILTER_ENGINE=JEXL needs the schema registry (protobuf input)");
  }
  auto f = std::unique_ptr<JexlFilter>(new JexlFilter());
  auto program = expr::Program::Compile(filter.expression);
  if (!program.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("FILTER_JEXL_EXPRESSION: ", program.status().message()));
  }
  f->program_ = *std::move(program);
  auto desc = registry->Current()->FindMessage(filter.proto_class);
  if (!desc.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("FILTER_SCHEMA_PROTO_CLASS: ", desc.status().message()));
  }
  f->variable_ = expr::ProtoVariableName(*desc);
  for (const std::string& root : f->program_->RootIdentifiers()) {
    if (root != f->variable_) {
      return absl::InvalidArgumentError(absl::StrCat(
          "FILTER_JEXL_EXPRESSION: unknown variable \"", root, "\"; the record is bound as \"",
          f->variable_, "\" (FILTER_SCHEMA_PROTO_CLASS ", filter.proto_class, ")"));
    }
  }
  if (absl::Status s = f->program_->CheckMessageType(f->variable_, *desc); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("FILTER_JEXL_EXPRESSION: ", s.message()));
  }
  f->key_ = filter.data_source_key;
  auto decoder = ProtoDecoder::Create(registry, filter.proto_class, filter.data_source_key);
  if (!decoder.ok()) return decoder.status();
  f->decoder_ = *std::move(decoder);
  if (schema.data_type == SchemaConfig::DataType::kProtobuf && schema.parse_key == f->key_) {
    auto input = registry->Current()->FindMessage(schema.proto_class);
    f->reuse_decoded_ = input.ok() && *input == *desc;
  }
  return f;
}

absl::StatusOr<const google::protobuf::Message*> JexlFilter::View(const Message& m,
                                                                  google::protobuf::Arena* arena,
                                                                  bool allow_reuse) {
  if (allow_reuse && reuse_decoded_ && m.decoded != nullptr) return m.decoded.get();
  const std::string* bytes = &m.value;
  if (key_) {
    if (!m.key) return absl::InvalidArgumentError("record has no key (FILTER_DATA_SOURCE=KEY)");
    bytes = &*m.key;
  }
  const google::protobuf::Message* decoded = decoder_->DecodeOne(*bytes, arena);
  if (decoded == nullptr) {
    return absl::DataLossError(absl::StrCat("filter: bytes do not parse as ",
                                            decoder_->Sync().ok() ? variable_ : "the filter class"));
  }
  return decoded;
}

int JexlFilter::Apply(std::vector<Message>* batch, std::vector<FailedMessage>* failed) {
  if (!reuse_decoded_) decoder_->Sync().IgnoreError();
  google::protobuf::Arena arena;
  size_t out = 0;
  int dropped = 0;
  for (size_t i = 0; i < batch->size(); ++i) {
    Message& m = (*batch)[i];
    auto view = View(m, &arena, /*allow_reuse=*/true);
    if (!view.ok()) {
      failed->push_back({std::move(m),
                         absl::IsDataLoss(view.status()) ? ErrorType::kDeserializationError
                                                         : ErrorType::kInvalidMessageError,
                         std::string(view.status().message())});
      continue;
    }
    expr::Environment env;
    env.BindMessage(variable_, *view);
    absl::StatusOr<bool> keep = program_->EvaluateBool(env);
    if (!keep.ok()) {
      failed->push_back({std::move(m), ErrorType::kInvalidMessageError,
                         absl::StrCat("filter: ", keep.status().message())});
      continue;
    }
    if (!*keep) {
      ++dropped;
      continue;
    }
    if (out != i) (*batch)[out] = std::move(m);
    ++out;
  }
  batch->resize(out);
  return dropped;
}

absl::StatusOr<bool> JexlFilter::Evaluate(const Message& record) {
  decoder_->Sync().IgnoreError();
  google::protobuf::Arena arena;
  auto view = View(record, &arena, /*allow_reuse=*/false);
  if (!view.ok()) return view.status();
  expr::Environment env;
  env.BindMessage(variable_, *view);
  return program_->EvaluateBool(env);
}

std::string JexlFilter::Describe(const Message& record) {
  decoder_->Sync().IgnoreError();
  google::protobuf::Arena arena;
  auto view = View(record, &arena, /*allow_reuse=*/false);
  if (!view.ok()) return "";
  std::string out;
  google::protobuf::TextFormat::Printer printer;
  printer.SetSingleLineMode(true);
  printer.PrintToString(**view, &out);
  return out;
}

absl::StatusOr<std::unique_ptr<Filter>> CreateFilter(const SinkConfig& config,
                                                     const SchemaRegistry* registry) {
  if (!config.filter.jexl) return std::unique_ptr<Filter>();
  auto f = JexlFilter::Create(config.filter, config.schema, registry);
  if (!f.ok()) return f.status();
  return std::unique_ptr<Filter>(*std::move(f));
}

}  // namespace sluice::sink
