// The log sink's text form rendered straight from a record's wire bytes, with
// protobuf's own CodedInputStream, instead of walking the decoded message by
// reflection (which took half of sluice-sink's instructions per record in the
// log-sink benchmark, issue #40).
#ifndef SLUICE_SINK_SINKS_LOG_WIRE_TEXT_H_
#define SLUICE_SINK_SINKS_LOG_WIRE_TEXT_H_

#include <string>

#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"

namespace sluice::sink {

// Appends to `out` exactly what AppendMessageText (log_sink.h) appends for
// the message of type `type` that `bytes` parse into, and returns true; or
// returns false, with `out` as it was, when that cannot be told from one pass
// over the bytes: fields out of number order, a singular field twice, a field
// of an unexpected wire type, a map or group field, an implicit-presence
// scalar at its default, a closed enum's unknown value, or bytes that do not
// parse. The caller then renders the decoded message (AppendMessageText).
// `bytes` must be what the decoded message was parsed from.
bool AppendWireText(const google::protobuf::Descriptor* type, absl::string_view bytes,
                    std::string* out);

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_LOG_WIRE_TEXT_H_
