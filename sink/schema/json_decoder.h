// The decode stage for INPUT_SCHEMA_DATA_TYPE=json: each record's value (or
// key, per KAFKA_RECORD_PARSER_MODE) is parsed once into Message::json, which
// sinks and filters read field by field.
#ifndef SLUICE_SINK_SCHEMA_JSON_DECODER_H_
#define SLUICE_SINK_SCHEMA_JSON_DECODER_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "sink/message.h"
#include "sink/stages.h"

namespace sluice::sink {

// Deepest nesting of arrays/objects a record may have: Jackson's default
// (StreamReadConstraints.DEFAULT_MAX_DEPTH, 1000), the parser Firehose uses.
// Deeper documents would overflow the stack of the recursive printer and of
// the filters, so they are refused before parsing.
inline constexpr int kMaxJsonDepth = 1000;

// Parses one record as a single JSON document (RFC 8259, UTF-8). Errors
// (InvalidArgument) read "JSON input: <reason>" with the byte offset from the
// parser, or name the nesting limit. Never throws.
absl::StatusOr<nlohmann::json> ParseJsonRecord(absl::string_view bytes);

class JsonDecoder : public Decoder {
 public:
  // `parse_key`: parse the record key instead of the value.
  explicit JsonDecoder(bool parse_key) : parse_key_(parse_key) {}

  // Sets Message::json with ParseJsonRecord. A record that does not parse, or
  // has no key in key mode, moves to `failed` with DESERIALIZATION_ERROR
  // naming the reason, to be routed by ERROR_TYPES_* like any other failure:
  // never dropped, never a crash.
  void Decode(std::vector<Message>* batch, std::vector<FailedMessage>* failed) override;

 private:
  bool parse_key_;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SCHEMA_JSON_DECODER_H_
