#include "sink/filter/record_reader.h"

#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"
#include "sink/schema/json_decoder.h"

namespace sluice::sink {

absl::StatusOr<std::unique_ptr<RecordReader>> RecordReader::ForProto(
    const FilterConfig& filter, const SchemaConfig& schema, const SchemaRegistry* registry) {
  if (registry == nullptr) {
    return absl::InvalidArgumentError(
        "FILTER_SCHEMA_PROTO_CLASS needs the schema registry (INPUT_SCHEMA_DATA_TYPE=protobuf)");
  }
  auto desc = registry->Current()->FindMessage(filter.proto_class);
  if (!desc.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("FILTER_SCHEMA_PROTO_CLASS: ", desc.status().message()));
  }
  auto r = std::unique_ptr<RecordReader>(new RecordReader());
  r->proto_class_ = filter.proto_class;
  r->key_ = filter.data_source_key;
  auto decoder = ProtoDecoder::Create(registry, filter.proto_class, filter.data_source_key);
  if (!decoder.ok()) return decoder.status();
  r->decoder_ = *std::move(decoder);
  if (schema.data_type == SchemaConfig::DataType::kProtobuf && schema.parse_key == r->key_) {
    auto input = registry->Current()->FindMessage(schema.proto_class);
    r->reuse_ = input.ok() && *input == *desc;
  }
  return r;
}

std::unique_ptr<RecordReader> RecordReader::ForJson(const FilterConfig& filter,
                                                    const SchemaConfig& schema) {
  auto r = std::unique_ptr<RecordReader>(new RecordReader());
  r->key_ = filter.data_source_key;
  r->reuse_ = schema.data_type == SchemaConfig::DataType::kJson && schema.parse_key == r->key_;
  return r;
}

void RecordReader::BeginBatch() {
  if (decoder_ != nullptr && !reuse_) decoder_->Sync().IgnoreError();
}

absl::StatusOr<const std::string*> RecordReader::Bytes(const Message& m) const {
  if (!key_) return &m.value;
  if (!m.key) return absl::InvalidArgumentError("record has no key (FILTER_DATA_SOURCE=KEY)");
  return &*m.key;
}

absl::StatusOr<const google::protobuf::Message*> RecordReader::Proto(
    const Message& m, google::protobuf::Arena* arena, bool allow_reuse) {
  if (allow_reuse && reuse_ && m.decoded != nullptr) return m.decoded.get();
  absl::StatusOr<const std::string*> bytes = Bytes(m);
  if (!bytes.ok()) return bytes.status();
  const google::protobuf::Message* decoded = decoder_->DecodeOne(**bytes, arena);
  if (decoded == nullptr) {
    return absl::DataLossError(absl::StrCat("filter: bytes do not parse as ", proto_class_));
  }
  return decoded;
}

absl::StatusOr<const nlohmann::json*> RecordReader::Json(const Message& m, nlohmann::json* slot,
                                                         bool allow_reuse) {
  if (allow_reuse && reuse_ && m.json != nullptr) return m.json.get();
  absl::StatusOr<const std::string*> bytes = Bytes(m);
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<nlohmann::json> doc = ParseJsonRecord(**bytes);
  if (!doc.ok()) return absl::DataLossError(absl::StrCat("filter: ", doc.status().message()));
  *slot = *std::move(doc);
  return slot;
}

int RecordFilter::Apply(std::vector<Message>* batch, std::vector<FailedMessage>* failed) {
  reader_->BeginBatch();
  google::protobuf::Arena arena;
  size_t out = 0;
  int dropped = 0;
  deserialization_drops_ = 0;
  for (size_t i = 0; i < batch->size(); ++i) {
    Message& m = (*batch)[i];
    absl::StatusOr<bool> keep = EvaluateOne(m, &arena, /*allow_reuse=*/true);
    if (!keep.ok() && absl::IsDataLoss(keep.status()) && drop_deserialization_error_ &&
        reader_->proto()) {
      spdlog::warn(
          "filter: dropped topic={} partition={} offset={}: {} (FILTER_DROP_DESERIALIZATION_ERROR=true)",
          m.topic, m.partition, m.offset, std::string(keep.status().message()));
      ++deserialization_drops_;
      ++dropped;
      continue;
    }
    if (!keep.ok()) {
      failed->push_back({std::move(m),
                         absl::IsDataLoss(keep.status()) ? ErrorType::kDeserializationError
                                                         : ErrorType::kInvalidMessageError,
                         std::string(keep.status().message())});
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

absl::StatusOr<bool> RecordFilter::Evaluate(const Message& record) {
  reader_->BeginBatch();
  google::protobuf::Arena arena;
  return EvaluateOne(record, &arena, /*allow_reuse=*/false);
}

}  // namespace sluice::sink
