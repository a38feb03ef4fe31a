#include "sink/schema/proto_decoder.h"

#include "absl/strings/str_cat.h"

namespace sluice::sink {
namespace {

google::protobuf::ArenaOptions Options() {
  google::protobuf::ArenaOptions o;
  // A 500-record batch of small messages fits in a few blocks.
  o.start_block_size = 16 * 1024;
  o.max_block_size = 256 * 1024;
  return o;
}

}  // namespace

DecodeArena::DecodeArena(std::shared_ptr<const Schema> s)
    : schema(std::move(s)), arena(Options()) {}

absl::StatusOr<std::unique_ptr<ProtoDecoder>> ProtoDecoder::Create(const SchemaRegistry* registry,
                                                                   std::string proto_class,
                                                                   bool parse_key) {
  auto d = std::unique_ptr<ProtoDecoder>(
      new ProtoDecoder(registry, std::move(proto_class), parse_key));
  auto s = d->Sync();
  if (!s.ok()) return s.status();
  return d;
}

absl::StatusOr<std::shared_ptr<const Schema>> ProtoDecoder::Sync() {
  std::shared_ptr<const Schema> current = registry_->Current();
  if (current != schema_) {
    auto desc = current->FindMessage(proto_class_);
    if (!desc.ok()) {
      // Keep decoding with the previous snapshot if the class vanished.
      if (schema_ != nullptr) return schema_;
      return absl::Status(desc.status().code(),
                          absl::StrCat("INPUT_SCHEMA_PROTO_CLASS: ", desc.status().message()));
    }
    prototype_ = current->Prototype(*desc);
    schema_ = std::move(current);
  }
  return schema_;
}

const google::protobuf::Message* ProtoDecoder::DecodeOne(const std::string& bytes,
                                                         google::protobuf::Arena* arena) {
  google::protobuf::Message* m = prototype_->New(arena);
  if (!m->ParseFromString(bytes)) return nullptr;
  return m;
}

void ProtoDecoder::Decode(std::vector<Message>* batch, std::vector<FailedMessage>* failed) {
  auto schema = Sync();
  if (!schema.ok()) {
    for (Message& m : *batch) {
      failed->push_back({std::move(m), ErrorType::kDeserializationError,
                         std::string(schema.status().message())});
    }
    batch->clear();
    return;
  }
  auto holder = std::make_shared<DecodeArena>(*schema);
  size_t out = 0;
  for (size_t i = 0; i < batch->size(); ++i) {
    Message& m = (*batch)[i];
    const std::string* bytes = &m.value;
    if (parse_key_) {
      if (!m.key) {
        failed->push_back({std::move(m), ErrorType::kDeserializationError, "record has no key"});
        continue;
      }
      bytes = &*m.key;
    }
    const google::protobuf::Message* decoded = DecodeOne(*bytes, &holder->arena);
    if (decoded == nullptr) {
      failed->push_back({std::move(m), ErrorType::kDeserializationError,
                         absl::StrCat("bytes do not parse as ", prototype_->GetDescriptor()->full_name())});
      continue;
    }
    m.decoded = std::shared_ptr<const google::protobuf::Message>(holder, decoded);
    if (out != i) (*batch)[out] = std::move(m);
    ++out;
  }
  batch->resize(out);
}

}  // namespace sluice::sink
