// The request fuzzer's input format and dispatch, shared by the libFuzzer
// target (request_fuzzer.cc) and its seed test (request_fuzzer_test.cc).
//
// Input: a first line naming a write route as WriteRoute::key, e.g.
// "POST /api/v1beta1/appeals", then the JSON body:
//
//   PUT /api/v1beta1/grants/{id}/revoke
//   {"id": "...", "reason": "..."}
//
// A first line that names no route picks one by a hash of the line (so
// mutated headers still land on a route deterministically), and an input
// without a newline is all body. Every write route of WriteRoutes() is
// covered: a route in DeepRoutes() runs its own handler and follow-ups
// (request_routes.cc); any other runs the generic route: the body is parsed
// as the route's whole request message (path and query parameters are
// fields an attacker sets as freely as the body; a body-field route's seed
// is {"id": ..., "<field>": {...}}), and the real gRPC handler is called
// in-process (grpc_routes.h) as an admin, then, if refused with
// PERMISSION_DENIED, as the baseline's requester and approver.
//
// Failures: crashes, sanitizer reports, uncaught exceptions, timeouts and
// memory beyond the script's limits; and, since the fakes never fail, any
// Internal or Unknown status (docs/architecture.md: Internal is for bugs and outages
// only), a method no served service has, and a reply the gateway could not
// carry (not printable as JSON, or invalid UTF-8 that gRPC's parser would
// refuse). Statuses such as InvalidArgument are the expected answer to
// hostile input and are not failures.
#ifndef SLUICE_SERVER_FUZZ_REQUEST_DISPATCH_H_
#define SLUICE_SERVER_FUZZ_REQUEST_DISPATCH_H_

#include <string>

#include "absl/strings/string_view.h"
#include "server/fuzz/write_routes.h"

namespace sluice::fuzz {

// What RunInput did.
struct Outcome {
  const WriteRoute* route = nullptr;  // never null after RunInput
  bool named = false;   // the first line named the route exactly
  bool deep = false;    // ran a DeepRoutes() handler
  bool parsed = false;  // generic: the body parsed as the request message
  int code = -1;        // generic: the last call's gRPC status code
  std::string message;  // generic: and its message
};

// The route and body of `input` (see above).
const WriteRoute& PickRoute(absl::string_view input, absl::string_view* body, bool* named);

// Runs one input; aborts on a failure (see above).
Outcome RunInput(absl::string_view input);

// Builds the baselines and the in-process services once; quiets logging.
void InitRequestFuzzing();

}  // namespace sluice::fuzz

#endif  // SLUICE_SERVER_FUZZ_REQUEST_DISPATCH_H_
