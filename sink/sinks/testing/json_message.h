// A JSON record as the decode stage leaves it (INPUT_SCHEMA_DATA_TYPE=json),
// for sink unit tests.
#ifndef SLUICE_SINK_SINKS_TESTING_JSON_MESSAGE_H_
#define SLUICE_SINK_SINKS_TESTING_JSON_MESSAGE_H_

#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "sink/message.h"

namespace sluice::sink::testing {

// A message at `offset` of `topic`, partition 0, whose value is `text` and
// whose parsed JSON is set. `text` must be valid JSON (nlohmann throws).
inline Message JsonMessage(int64_t offset, const std::string& text, const std::string& topic = "") {
  Message m;
  m.topic = topic;
  m.offset = offset;
  m.value = text;
  m.json = std::make_shared<const nlohmann::json>(nlohmann::json::parse(text));
  return m;
}

}  // namespace sluice::sink::testing

#endif  // SLUICE_SINK_SINKS_TESTING_JSON_MESSAGE_H_
