#include "sink/schema/json_decoder.h"

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace sluice::sink {

void JsonDecoder::Decode(std::vector<Message>* batch, std::vector<FailedMessage>* failed) {
  size_t kept = 0;
  for (size_t i = 0; i < batch->size(); ++i) {
    Message& m = (*batch)[i];
    std::string error;
    if (parse_key_ && !m.key.has_value()) {
      error = "JSON input: the record has no key (KAFKA_RECORD_PARSER_MODE=key)";
    } else {
      const std::string& bytes = parse_key_ ? *m.key : m.value;
      // Without exceptions: a parse error yields a discarded value.
      nlohmann::json j = nlohmann::json::parse(bytes, nullptr, /*allow_exceptions=*/false);
      if (j.is_discarded()) {
        // Re-parse with exceptions only for the message (byte offset).
        try {
          (void)nlohmann::json::parse(bytes);
          error = "JSON input: not a JSON document";
        } catch (const nlohmann::json::exception& e) {
          error = absl::StrCat("JSON input: ", e.what());
        }
      } else {
        m.json = std::make_shared<const nlohmann::json>(std::move(j));
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
