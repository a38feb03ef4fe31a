#include "sink/sinks/common/json_text.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace sluice::sink {

absl::StatusOr<std::string> DumpJson(const nlohmann::json& value, absl::string_view what) {
  try {
    return value.dump();
  } catch (const nlohmann::json::exception& e) {
    // e.what() is "[json.exception.type_error.316] invalid UTF-8 byte at ...":
    // it names the offending byte, never the record's content.
    return absl::InvalidArgumentError(absl::StrCat(what, ": cannot serialize as JSON: ", e.what()));
  }
}

}  // namespace sluice::sink
