// Decodes Kafka records with the schema registry's current snapshot into
// DynamicMessages (issue 7, "Schema registry and decoding"). Messages of one
// batch share an arena that also pins the schema snapshot they were decoded
// with, so a schema refresh never invalidates a batch in flight.
#ifndef SLUICE_SINK_SCHEMA_PROTO_DECODER_H_
#define SLUICE_SINK_SCHEMA_PROTO_DECODER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "google/protobuf/arena.h"
#include "sink/schema/schema_registry.h"
#include "sink/stages.h"

namespace sluice::sink {

// Holds a batch's decoded messages and the schema they came from.
struct DecodeArena {
  explicit DecodeArena(std::shared_ptr<const Schema> s);
  std::shared_ptr<const Schema> schema;
  google::protobuf::Arena arena;
};

// Decodes one proto class. One instance per worker (not thread-safe).
class ProtoDecoder : public Decoder {
 public:
  // `registry` is not owned. `proto_class` is a full proto or Java class name;
  // `parse_key` decodes the record key instead of the value
  // (KAFKA_RECORD_PARSER_MODE=key). NotFound when the class is unknown now.
  static absl::StatusOr<std::unique_ptr<ProtoDecoder>> Create(const SchemaRegistry* registry,
                                                              std::string proto_class,
                                                              bool parse_key);

  // Records whose bytes do not parse go to `failed` with DESERIALIZATION_ERROR.
  void Decode(std::vector<Message>* batch, std::vector<FailedMessage>* failed) override;

  // Decodes `bytes` on `arena` with the prototype current for this batch;
  // null when they do not parse. Used by the filter for a second class.
  const google::protobuf::Message* DecodeOne(const std::string& bytes, google::protobuf::Arena* arena);

  // Resolves the class against the registry's current snapshot (once per
  // snapshot change) and returns the snapshot in use.
  absl::StatusOr<std::shared_ptr<const Schema>> Sync();

 private:
  ProtoDecoder(const SchemaRegistry* registry, std::string proto_class, bool parse_key)
      : registry_(registry), proto_class_(std::move(proto_class)), parse_key_(parse_key) {}

  const SchemaRegistry* registry_;
  std::string proto_class_;
  bool parse_key_;
  std::shared_ptr<const Schema> schema_;
  const google::protobuf::Message* prototype_ = nullptr;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SCHEMA_PROTO_DECODER_H_
