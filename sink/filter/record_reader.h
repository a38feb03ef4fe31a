// What a filter reads of one record (FILTER_DATA_SOURCE: key or message):
// the protobuf decoded with FILTER_SCHEMA_PROTO_CLASS, or the JSON document.
// The decode stage's result is reused when it read the same source with the
// same schema, so a record is decoded once.
#ifndef SLUICE_SINK_FILTER_RECORD_READER_H_
#define SLUICE_SINK_FILTER_RECORD_READER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "google/protobuf/arena.h"
#include "nlohmann/json.hpp"
#include "sink/config.h"
#include "sink/message.h"
#include "sink/schema/proto_decoder.h"
#include "sink/schema/schema_registry.h"
#include "sink/stages.h"

namespace sluice::sink {

class RecordReader {
 public:
  // Protobuf records decoded with filter.proto_class. InvalidArgument naming
  // FILTER_SCHEMA_PROTO_CLASS when the class is not in `registry` (not owned;
  // required).
  static absl::StatusOr<std::unique_ptr<RecordReader>> ForProto(const FilterConfig& filter,
                                                                const SchemaConfig& schema,
                                                                const SchemaRegistry* registry);
  // JSON records (RFC 8259, at most kMaxJsonDepth deep).
  static std::unique_ptr<RecordReader> ForJson(const FilterConfig& filter,
                                               const SchemaConfig& schema);

  // Call once per batch: picks up a refreshed schema.
  void BeginBatch();

  // The record's protobuf, reused from Message::decoded or decoded on
  // `arena`. DataLoss when the bytes do not decode; InvalidArgument when
  // FILTER_DATA_SOURCE=KEY and the record has no key.
  absl::StatusOr<const google::protobuf::Message*> Proto(const Message& m,
                                                         google::protobuf::Arena* arena,
                                                         bool allow_reuse = true);
  // The record's JSON, reused from Message::json or parsed into `*slot`.
  // DataLoss when the bytes are not JSON; InvalidArgument as above.
  absl::StatusOr<const nlohmann::json*> Json(const Message& m, nlohmann::json* slot,
                                             bool allow_reuse = true);

  // True when records are decoded as protobuf (ForProto).
  bool proto() const { return decoder_ != nullptr; }

 private:
  RecordReader() = default;
  absl::StatusOr<const std::string*> Bytes(const Message& m) const;

  std::unique_ptr<ProtoDecoder> decoder_;  // ForProto only
  std::string proto_class_;                // ForProto only, for errors
  bool key_ = false;
  bool reuse_ = false;  // the decode stage read the same source with the same schema
};

// Base of the filters that judge each record alone (JEXL, JSON): Apply keeps
// a record when EvaluateOne is true, drops it when false, and moves it to
// `failed` on an error: DESERIALIZATION_ERROR for DataLoss (does not decode),
// INVALID_MESSAGE_ERROR otherwise. With FILTER_DROP_DESERIALIZATION_ERROR=true
// a protobuf record that does not decode is dropped instead, with a warning
// naming topic/partition/offset, as Firehose's JexlFilter/JsonFilter (which
// drop only InvalidProtocolBufferException; JSON that does not parse still
// fails). The order of `batch` is kept.
class RecordFilter : public Filter {
 public:
  int Apply(std::vector<Message>* batch, std::vector<FailedMessage>* failed) override;

  // Evaluates one raw record, decoding it here (for the control API's
  // TestFilter and for tests); never touches offsets.
  absl::StatusOr<bool> Evaluate(const Message& record);

  int DeserializationDrops() const override { return deserialization_drops_; }
  std::string DeserializationDropMetric() const override { return drop_metric_; }

 protected:
  // `arena` holds what had to be decoded; `allow_reuse` lets the reader use
  // the decode stage's result.
  virtual absl::StatusOr<bool> EvaluateOne(const Message& m, google::protobuf::Arena* arena,
                                           bool allow_reuse) = 0;

  // Called by Create: FILTER_DROP_DESERIALIZATION_ERROR and the counter name
  // (Firehose's firehose_<engine>_filter_deserialization_errors_total).
  void SetDropDeserializationError(bool drop, std::string metric) {
    drop_deserialization_error_ = drop;
    drop_metric_ = std::move(metric);
  }

  std::unique_ptr<RecordReader> reader_;

 private:
  bool drop_deserialization_error_ = false;
  std::string drop_metric_;
  int deserialization_drops_ = 0;  // in the last Apply
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_FILTER_RECORD_READER_H_
