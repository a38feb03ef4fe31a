// Shared validation helpers of the access core.
#ifndef SLUICE_SERVER_ACCESS_CORE_VALIDATION_H_
#define SLUICE_SERVER_ACCESS_CORE_VALIDATION_H_

#include <string>

#include <google/protobuf/timestamp.pb.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "server/access/core/repositories.h"

namespace sluice::access {

// Parses a Go-style duration ("24h", "1h30m", "90s"), optionally led by
// whole days as Guardian's docs write them ("7d", "1d12h"); must be > 0.
// InvalidArgument mentioning `field`.
absl::StatusOr<absl::Duration> ParseDurationField(absl::string_view field, absl::string_view value);

// Compiles `source` with the shared expression engine; InvalidArgument
// "<field>: <parse error with column>".
absl::Status CheckExpression(absl::string_view field, absl::string_view source);

// True when `s` holds a C0 control (incl. ESC), DEL, or a C1 control
// (U+0080..U+009F, UTF-8 C2 80..C2 9F): terminal escapes in a field printed
// by sluicectl or shown in a notification (security review F-L7).
bool HasControlCharacter(absl::string_view s);

// True for a literal email address (one '@', no spaces, control characters,
// quotes, '$' or parentheses), as opposed to an approver expression.
bool IsEmailAddress(absl::string_view s);

// True for a canonical UUID (8-4-4-4-12 hex digits).
bool IsUuid(absl::string_view s);

// True for ids matching ^[A-Za-z0-9_-]+$.
bool IsValidId(absl::string_view id);

// absl::Time <-> google.protobuf.Timestamp.
google::protobuf::Timestamp ToTimestamp(absl::Time t);
absl::Time FromTimestamp(const google::protobuf::Timestamp& ts);

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_CORE_VALIDATION_H_
