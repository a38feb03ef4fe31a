// Secret masking for GetStatus: the sink's configuration is shown to
// operators, but credentials inside it are not. A value is masked when its
// variable's name says it is secret (IsSecretName), and otherwise the secret
// parts of readable values are masked by pattern (review H6):
//   - URL userinfo:      scheme://user:pass@host -> scheme://user:****@host
//                        (scheme://token@host -> scheme://****@host)
//   - key=value secrets: password=, pwd=, sslpassword=, token=, secret=,
//                        api_key=, ... in URL queries (SINK_JDBC_URL's JDBC
//                        parameters) and libpq DSNs -> password=****
//   - header lists (variables ending in _HEADERS or _METADATA, "k:v,k2:v2",
//     e.g. SINK_HTTP_HEADERS, SINK_GRPC_METADATA,
//     SCHEMA_REGISTRY_STENCIL_FETCH_HEADERS): Authorization and
//     Proxy-Authorization keep their scheme ("Bearer ****"), secret-named
//     headers (X-Api-Key, Cookie, *-Token, ...) become "****", and any value
//     carrying Bearer/Basic/Token/Digest credentials keeps only the scheme.
//   - JSON templates (variables ending in _TEMPLATE whose value is a JSON
//     object or array, e.g. SINK_HTTPV2_HEADERS_TEMPLATE, _QUERY_TEMPLATE,
//     _JSON_BODY_TEMPLATE; review R3-L1): at any depth, members with a
//     secret-named key become "****", Authorization-like members and values
//     carrying credentials keep only the scheme, other strings get the URL
//     and key=value rules; printed compact. Such a value that does not parse
//     is masked whole.
#ifndef SLUICE_SINK_CONTROL_MASKING_H_
#define SLUICE_SINK_CONTROL_MASKING_H_

#include <map>
#include <string>

#include "absl/strings/string_view.h"
#include "sink/env.h"

namespace sluice::sink {

// What replaces a secret.
inline constexpr char kMasked[] = "****";

// `value` of variable `name` with its secrets replaced by kMasked, the rest
// kept readable (rules above).
std::string MaskSecrets(absl::string_view name, absl::string_view value);

// The sluice-sink variables of `env` (by prefix: SOURCE_, SINK_, INPUT_,
// SCHEMA_, FILTER_, ERROR_, RETRY_, DLQ_, METRIC_, APPLICATION_, KAFKA_),
// each passed through MaskSecrets.
std::map<std::string, std::string> MaskedConfig(const Env& env);

}  // namespace sluice::sink

#endif  // SLUICE_SINK_CONTROL_MASKING_H_
