// Decodes Kafka records with the schema registry's current snapshot into
// DynamicMessages (issue 7, "Schema registry and decoding"). Messages of one
// batch share an arena that also pins the schema snapshot they were decoded
// with, so a schema refresh never invalidates a batch in flight.
#ifndef SLUICE_SINK_SCHEMA_PROTO_DECODER_H_
#define SLUICE_SINK_SCHEMA_PROTO_DECODER_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "google/protobuf/arena.h"
#include "sink/schema/schema_registry.h"
#include "sink/stages.h"

namespace sluice::sink {

// Reusable first blocks for batch arenas: a batch's arena starts in a block
// from the pool and gives it back when its last message is released, so
// steady-state decoding allocates no fresh memory (no page faults). Thread-safe.
class ArenaBlockPool {
 public:
  static constexpr size_t kBlockSize = 1 << 20;  // fits a 500-record batch
  // A block of kBlockSize bytes (reused or new).
  std::unique_ptr<char[]> Take();
  void Give(std::unique_ptr<char[]> block);

 private:
  std::mutex mu_;
  std::vector<std::unique_ptr<char[]>> free_;  // guarded by mu_
};

// Holds a batch's decoded messages and the schema they came from.
struct DecodeArena {
  DecodeArena(std::shared_ptr<const Schema> s, std::shared_ptr<ArenaBlockPool> pool);
  ~DecodeArena();
  std::shared_ptr<const Schema> schema;
  std::shared_ptr<ArenaBlockPool> pool;
  std::unique_ptr<char[]> block;
  std::unique_ptr<google::protobuf::Arena> arena;
};

// True when `m` or a nested message has unknown fields.
bool HasUnknownFields(const google::protobuf::Message& m);

// Decodes one proto class. One instance per worker (not thread-safe).
class ProtoDecoder : public Decoder {
 public:
  // `registry` is not owned. `proto_class` is a full proto or Java class name;
  // `parse_key` decodes the record key instead of the value
  // (KAFKA_RECORD_PARSER_MODE=key). NotFound when the class is unknown now.
  // With `allow_unknown_fields` false, records carrying fields the schema
  // lacks (at any depth) fail with UNKNOWN_FIELDS_ERROR.
  static absl::StatusOr<std::unique_ptr<ProtoDecoder>> Create(const SchemaRegistry* registry,
                                                              std::string proto_class,
                                                              bool parse_key,
                                                              bool allow_unknown_fields = true);

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
  bool allow_unknown_fields_ = true;
  std::shared_ptr<const Schema> schema_;
  const google::protobuf::Message* prototype_ = nullptr;
  bool check_required_ = false;  // proto2: missing required fields fail decoding
  std::shared_ptr<ArenaBlockPool> pool_ = std::make_shared<ArenaBlockPool>();
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SCHEMA_PROTO_DECODER_H_
