#include "sink/schema/json_decoder.h"

#include "absl/strings/str_cat.h"

namespace sluice::sink {
namespace {

// True when `bytes` nests arrays/objects deeper than `limit`. Brackets inside
// strings do not count. Linear, no allocation.
bool NestsDeeperThan(absl::string_view bytes, int limit) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < bytes.size(); ++i) {
    char c = bytes[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

}  // namespace

absl::StatusOr<nlohmann::json> ParseJsonRecord(absl::string_view bytes) {
  if (NestsDeeperThan(bytes, kMaxJsonDepth)) {
    return absl::InvalidArgumentError(
        absl::StrCat("JSON input: nested deeper than ", kMaxJsonDepth, " levels"));
  }
  // Without exceptions: a parse error yields a discarded value.
  nlohmann::json j = nlohmann::json::parse(bytes, nullptr, /*allow_exceptions=*/false);
  if (!j.is_discarded()) return j;
  // Re-parse with exceptions only for the message (byte offset).
  try {
    nlohmann::json unused = nlohmann::json::parse(bytes);
    (void)unused;
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("JSON input: ", e.what()));
  }
  return absl::InvalidArgumentError("JSON input: not a JSON document");
}

void JsonDecoder::Decode(std::vector<Message>* batch, std::vector<FailedMessage>* failed) {
  size_t kept = 0;
  for (size_t i = 0; i < batch->size(); ++i) {
    Message& m = (*batch)[i];
    std::string error;
    if (parse_key_ && !m.key.has_value()) {
      error = "JSON input: the record has no key (KAFKA_RECORD_PARSER_MODE=key)";
    } else {
      absl::StatusOr<nlohmann::json> j = ParseJsonRecord(parse_key_ ? *m.key : m.value);
      if (j.ok()) {
        m.json = std::make_shared<const nlohmann::json>(*std::move(j));
      } else {
        error = std::string(j.status().message());
      }
    }
    if (!error.empty()) {
      failed->push_back({std::move(m), ErrorType::kDeserializationError, std::move(error)});
      continue;
    }
    if (kept != i) (*batch)[kept] = std::move(m);
    ++kept;
  }
  batch->resize(kept);
}

}  // namespace sluice::sink
