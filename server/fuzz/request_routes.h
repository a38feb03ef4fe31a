// The request fuzzer's deep routes (see request_routes.cc).
#ifndef SLUICE_SERVER_FUZZ_REQUEST_ROUTES_H_
#define SLUICE_SERVER_FUZZ_REQUEST_ROUTES_H_

#include <map>
#include <string>

#include "absl/strings/string_view.h"

namespace sluice::fuzz {

// Runs one body against a route; failures abort (fuzz_checks.h).
using RouteFn = void (*)(absl::string_view body);

// The routes with a handler of their own, by WriteRoute::key
// ("POST /api/v1beta1/appeals"). request_fuzzer_test checks each key is a
// write route.
const std::map<std::string, RouteFn>& DeepRoutes();

}  // namespace sluice::fuzz

#endif  // SLUICE_SERVER_FUZZ_REQUEST_ROUTES_H_
