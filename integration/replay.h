// The pieces of an upstream API replay (guardian_replay_test.cc,
// siren_replay_test.cc) that do not need a stack: `{{name}}` substitution,
// response paths, checks, and the shape of a route row. The runner that
// drives a stack with a route table is replay_runner.h; the tables are
// guardian_routes.json and siren_routes.json.
#ifndef SLUICE_INTEGRATION_REPLAY_H_
#define SLUICE_INTEGRATION_REPLAY_H_

#include <optional>
#include <set>
#include <string>

#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace sluice::integration::replay {

// Replaces every `{{name}}` in the strings of `v` by vars[name]. A string
// that is exactly `{{name}}` becomes the variable's JSON value (so an object
// can be substituted); elsewhere a string variable is inserted as is and any
// other value as its JSON text. Names not in `vars` are added to `missing`
// and left in place.
nlohmann::json Substitute(const nlohmann::json& v, const nlohmann::json& vars,
                          std::set<std::string>* missing);

// The value at `path` in `doc`, or nullopt. A path is dot-separated object
// keys, each optionally followed by `[n]` (array index) or `[key=value]`
// (the first array element whose `key` is the string `value`, or whose
// non-string value prints as `value`). "" is `doc` itself. Selector values
// may contain dots (`[account_id=user@example.com]`).
std::optional<nlohmann::json> Lookup(const nlohmann::json& doc, absl::string_view path);

// Evaluates one check {at, eq|contains|exists|nonempty} against `doc`.
// Returns "" when it holds, else why not (naming the path, the value found
// and, for `eq`, what `upstream` ("Guardian", "Siren") gives). `contains`
// holds for an array with an element equal to the value, or a string
// containing it.
std::string Check(const nlohmann::json& doc, const nlohmann::json& check,
                  absl::string_view upstream);

// Evaluates an expectation {status, code?, message_has?, checks?} against a
// response (HTTP status + body parsed as JSON, null when not JSON). Returns
// "" when it holds, else why not, naming what `upstream` answers.
std::string Expect(const nlohmann::json& expect, long status, const nlohmann::json& body,
                   absl::string_view upstream);

// Checks that `path` (query string allowed) is an instance of the upstream's
// `route` template ("GET /v1beta1/providers/{id}", or "GET /v1/..." for an
// older API version) with the same `method`; `path` is relative to the
// route's version prefix. Returns "" when it is, else why not.
std::string MatchesRoute(absl::string_view route, absl::string_view method, absl::string_view path);

}  // namespace sluice::integration::replay

#endif  // SLUICE_INTEGRATION_REPLAY_H_
