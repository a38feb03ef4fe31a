// Where an HTTPV2 request goes: the scheme, host and port of its URL. Record
// values may fill SINK_HTTPV2_SERVICE_URL's path, query or fragment, never
// these (security review R3-M1): FromEnv refuses a placeholder before the end
// of the authority, and the sink compares each request's origin with the
// pattern's.
#ifndef SLUICE_SINK_SINKS_COMMON_URL_ORIGIN_H_
#define SLUICE_SINK_SINKS_COMMON_URL_ORIGIN_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace sluice::sink {

// "<scheme>://<host>:<port>" of an absolute http(s) URL as libcurl parses it
// (the parser that sends the request), scheme and host lower-cased, the
// scheme's default port made explicit ("https://h/x" -> "https://h:443"),
// user info, path, query and fragment dropped. InvalidArgument when libcurl
// does not parse `url`.
absl::StatusOr<std::string> UrlOrigin(absl::string_view url);

// The origin (as UrlOrigin) of a URL template's `pattern` (ValueTemplate's,
// "%s" placeholders). InvalidArgument naming `variable` when a placeholder
// comes before the end of the authority (scheme "://" [userinfo "@"] host
// [":" port], which ends at the first '/', '?' or '#' after "://"), or when
// the pattern is not an http(s) URL with a host (ValidateHttpUrl).
absl::StatusOr<std::string> TemplateOrigin(absl::string_view pattern, absl::string_view variable);

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_COMMON_URL_ORIGIN_H_
