// What the sinks that speak HTTP share: Firehose's `*_HEADERS` lists and
// `*_STATUS_CODE_RANGES`, and its status-code -> error-type mapping.
#ifndef SLUICE_SINK_SINKS_COMMON_HTTP_OPTIONS_H_
#define SLUICE_SINK_SINKS_COMMON_HTTP_OPTIONS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "sink/env.h"
#include "sink/message.h"

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

// Where an HTTP sink sends its requests.
struct HttpTarget {
  std::string url;        // http:// or https://, without trailing '/'
  int timeout_ms = 10000;  // request timeout
};

// Reads the required `url_variable` (http:// or https:// only; trailing '/'
// removed) and the optional `timeout_variable` (positive ms, `default_ms`
// when unset), as the prometheus, influxdb and clickhouse sinks name them.
// InvalidArgument naming the variable: "<VAR> is required", "<VAR> must be
// an http:// or https:// URL", "<VAR> must be a positive integer".
absl::StatusOr<HttpTarget> ReadHttpTarget(const Env& env, absl::string_view url_variable,
                                          absl::string_view timeout_variable, int default_ms);

// Firehose's error type for a failed HTTP answer: SINK_5XX_ERROR for 5xx,
// SINK_4XX_ERROR for 4xx, SINK_UNKNOWN_ERROR otherwise (firehose:
// sink/http/response handling, depot's HttpSinkResponse).
ErrorType HttpStatusErrorType(int status);

// What an HTTP answer means for the records it carried, by Firehose's HTTP
// sink rule.
enum class HttpOutcome {
  kDelivered,  // 2xx
  kFailed,     // in the retry ranges: fails with HttpStatusErrorType
  kNotStored,  // 1xx/3xx (redirects are not followed) or outside HTTP's classes:
               // nothing was stored, fails with DEFAULT_ERROR
  kDropped,    // another 4xx/5xx: dropped and counted, as in Firehose
};
HttpOutcome FirehoseHttpOutcome(int status, const std::vector<std::pair<int, int>>& retry_ranges);

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_COMMON_HTTP_OPTIONS_H_
