// Scalar spellings shared by the log sink's two renderers (AppendMessageText
// by reflection, AppendWireText from wire bytes), so both print a value the
// same way.
#ifndef SLUICE_SINK_SINKS_LOG_TEXT_VALUES_H_
#define SLUICE_SINK_SINKS_LOG_TEXT_VALUES_H_

#include <string>

#include "absl/strings/string_view.h"

namespace sluice::sink {

// Appends `v` in its shortest round-trip form (std::to_chars), like
// protobuf's text format, e.g. "12.5", "1e+100", "nan".
void AppendTextDouble(double v, std::string* out);

// Appends `s` C-escaped in double quotes, like absl::Utf8SafeCEscape (bytes
// >= 0x80 kept so UTF-8 stays readable) but without a temporary string.
void AppendTextQuoted(absl::string_view s, std::string* out);

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_LOG_TEXT_VALUES_H_
