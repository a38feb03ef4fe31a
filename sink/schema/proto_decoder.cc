#include "sink/schema/proto_decoder.h"

#include <climits>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"

namespace sluice::sink {
namespace {

google::protobuf::ArenaOptions Options(char* block) {
  google::protobuf::ArenaOptions o;
  o.initial_block = block;
  o.initial_block_size = ArenaBlockPool::kBlockSize;
  o.start_block_size = 64 * 1024;
  o.max_block_size = 1024 * 1024;
  return o;
}

}  // namespace

std::unique_ptr<char[]> ArenaBlockPool::Take() {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!free_.empty()) {
      std::unique_ptr<char[]> b = std::move(free_.back());
      free_.pop_back();
      return b;
    }
  }
  return std::unique_ptr<char[]>(new char[kBlockSize]);
}

void ArenaBlockPool::Give(std::unique_ptr<char[]> block) {
  std::lock_guard<std::mutex> l(mu_);
  // A few batches may be alive at once (retries, DLQ); keep a handful.
  if (free_.size() < 2) free_.push_back(std::move(block));
}

DecodeArena::DecodeArena(std::shared_ptr<const Schema> s, std::shared_ptr<ArenaBlockPool> p)
    : schema(std::move(s)), pool(std::move(p)), block(pool->Take()),
      arena(std::make_unique<google::protobuf::Arena>(Options(block.get()))) {}

DecodeArena::~DecodeArena() {
  arena.reset();  // runs the messages' destructors while the block is valid
  pool->Give(std::move(block));
}

bool HasUnknownFields(const google::protobuf::Message& m) {
  const google::protobuf::Reflection* r = m.GetReflection();
  if (!r->GetUnknownFields(m).empty()) return true;
  const google::protobuf::Descriptor* d = m.GetDescriptor();
  // Only message-typed fields can hold more unknown fields: visit those
  // directly (ListFields checks, collects and sorts every field, for each
  // record). Extensions are only listed by ListFields.
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  if (d->extension_range_count() > 0) {
    r->ListFields(m, &fields);
  }
  const int own = d->extension_range_count() > 0 ? 0 : d->field_count();
  for (int i = 0; i < own + static_cast<int>(fields.size()); ++i) {
    const auto* f = i < own ? d->field(i) : fields[i - own];
    if (f->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (f->is_repeated()) {
      for (int j = 0; j < r->FieldSize(m, f); ++j) {
        if (HasUnknownFields(r->GetRepeatedMessage(m, f, j))) return true;
      }
    } else if (r->HasField(m, f) && HasUnknownFields(r->GetMessage(m, f))) {
      return true;
    }
  }
  return false;
}

absl::StatusOr<std::unique_ptr<ProtoDecoder>> ProtoDecoder::Create(const SchemaRegistry* registry,
                                                                   std::string proto_class,
                                                                   bool parse_key,
                                                                   bool allow_unknown_fields) {
  auto d = std::unique_ptr<ProtoDecoder>(
      new ProtoDecoder(registry, std::move(proto_class), parse_key));
  d->allow_unknown_fields_ = allow_unknown_fields;
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
    check_required_ =
        (*desc)->file()->syntax() != google::protobuf::FileDescriptor::SYNTAX_PROTO3;
    schema_ = std::move(current);
  }
  return schema_;
}

const google::protobuf::Message* ProtoDecoder::DecodeOne(const std::string& bytes,
                                                         google::protobuf::Arena* arena) {
  google::protobuf::Message* m = prototype_->New(arena);
  // Merged into the new (empty) message: ParsePartialFromString would first
  // Clear() it, which for a DynamicMessage is a reflective walk over every
  // field (~6 % of sluice-sink's CPU in the Kafka bench). Only a parse that
  // ends at the end of the bytes counts, as ParsePartialFromString's.
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  if (bytes.size() > static_cast<size_t>(INT_MAX) || !m->MergePartialFromCodedStream(&in) ||
      !in.ConsumedEntireMessage()) {
    return nullptr;
  }
  // proto3 has no required fields: skip the reflective IsInitialized walk.
  if (check_required_ && !m->IsInitialized()) return nullptr;
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
  auto holder = std::make_shared<DecodeArena>(*schema, pool_);
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
    const google::protobuf::Message* decoded = DecodeOne(*bytes, holder->arena.get());
    if (decoded == nullptr) {
      failed->push_back({std::move(m), ErrorType::kDeserializationError,
                         absl::StrCat("bytes do not parse as ", prototype_->GetDescriptor()->full_name())});
      continue;
    }
    if (!allow_unknown_fields_ && HasUnknownFields(*decoded)) {
      failed->push_back({std::move(m), ErrorType::kUnknownFieldsError,
                         absl::StrCat("record has fields unknown to ",
                                      prototype_->GetDescriptor()->full_name(),
                                      " (INPUT_SCHEMA_PROTO_ALLOW_UNKNOWN_FIELDS_ENABLE=false)")});
      continue;
    }
    m.decoded = std::shared_ptr<const google::protobuf::Message>(holder, decoded);
    m.decoded_from_key = parse_key_;
    if (out != i) (*batch)[out] = std::move(m);
    ++out;
  }
  batch->resize(out);
}

}  // namespace sluice::sink
