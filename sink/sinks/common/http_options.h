// HTTP option parsing shared by the sinks that speak HTTP (http, prometheus):
// Firehose's `*_HEADERS` lists and `*_STATUS_CODE_RANGES`.
#ifndef SLUICE_SINK_SINKS_COMMON_HTTP_OPTIONS_H_
#define SLUICE_SINK_SINKS_COMMON_HTTP_OPTIONS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace sluice::sink {

// True when `value` may be sent as an HTTP header value: no CR, LF, NUL or
// other control character except horizontal tab (RFC 9110 §5.5).
bool IsValidHeaderValue(absl::string_view value);

// True for a non-empty RFC 9110 token, the syntax of a header name.
bool IsHeaderName(absl::string_view name);

// Parses "400-600,200-201" into inclusive ranges. InvalidArgument naming `variable`.
absl::StatusOr<std::vector<std::pair<int, int>>> ParseStatusRanges(absl::string_view text,
                                                                   absl::string_view variable);

// True when `status` lies in one of `ranges`.
bool InStatusRanges(const std::vector<std::pair<int, int>>& ranges, int status);

// Parses Firehose's "Name:value, Name2:value2" header list. InvalidArgument
// naming `variable` for an entry without ':', a bad name, or a value with
// control characters.
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> ParseHeaderList(
    absl::string_view text, absl::string_view variable);

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_COMMON_HTTP_OPTIONS_H_
