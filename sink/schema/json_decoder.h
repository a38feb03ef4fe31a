// The decode stage for INPUT_SCHEMA_DATA_TYPE=json: each record's value (or
// key, per KAFKA_RECORD_PARSER_MODE) is parsed once into Message::json, which
// sinks and filters read field by field.
#ifndef SLUICE_SINK_SCHEMA_JSON_DECODER_H_
#define SLUICE_SINK_SCHEMA_JSON_DECODER_H_

#include <vector>

#include "sink/message.h"
#include "sink/stages.h"

namespace sluice::sink {

class JsonDecoder : public Decoder {
 public:
  // `parse_key`: parse the record key instead of the value.
  explicit JsonDecoder(bool parse_key) : parse_key_(parse_key) {}

  // Sets Message::json. A record that is not one valid JSON document (RFC
  // 8259, UTF-8), or has no key in key mode, moves to `failed` with
  // DESERIALIZATION_ERROR naming the reason and byte offset, to be routed by
  // ERROR_TYPES_* like any other failure: never dropped, never a crash.
  void Decode(std::vector<Message>* batch, std::vector<FailedMessage>* failed) override;

 private:
  bool parse_key_;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SCHEMA_JSON_DECODER_H_
