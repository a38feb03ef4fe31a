// Helpers for gRPC handlers: the recovery path that turns an escaping
// exception into INTERNAL plus a log line. (Who is calling is decided by
// common/auth/authenticator.h.)
#ifndef SLUICE_COMMON_GRPC_UTIL_H_
#define SLUICE_COMMON_GRPC_UTIL_H_

#include <exception>
#include <string>

#include <grpcpp/server_context.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/status.h"

namespace sluice {

// True for a plausible email: one '@', non-empty local part and a dotted-or-
// plain domain without spaces. Not RFC 5322; good enough to reject junk.
bool IsEmail(absl::string_view s);

// Logs an exception that escaped handler `method` and returns the INTERNAL
// status sent to the client (the message hides the exception text).
grpc::Status RecoverFromException(absl::string_view method, const char* what);

// Runs `fn` (returning absl::Status) as the body of handler `method`. An
// escaping exception becomes INTERNAL and a log line; it never kills the
// process. Use in every handler: `return Guarded("Svc/Method", [&]{...});`
template <typename Fn>
grpc::Status Guarded(absl::string_view method, Fn&& fn) {
  try {
    return ToGrpcStatus(fn());
  } catch (const std::exception& e) {
    return RecoverFromException(method, e.what());
  } catch (...) {
    return RecoverFromException(method, "non-standard exception");
  }
}

}  // namespace sluice

#endif  // SLUICE_COMMON_GRPC_UTIL_H_
