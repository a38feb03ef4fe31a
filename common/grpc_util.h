// Helpers for gRPC handlers: caller identity from metadata and the recovery
// path that turns an escaping exception into INTERNAL plus a log line.
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

// Metadata key carrying the caller's email. The gateway fills it from the
// `X-Auth-Email` header set by the auth proxy (Guardian's convention).
inline constexpr char kAuthEmailMetadata[] = "x-auth-email";

// The `x-auth-email` metadata value, or "" when absent.
std::string CallerEmail(const grpc::ServerContext& context);

// The caller's email; Unauthenticated when it is missing or not an email.
absl::StatusOr<std::string> RequireCallerEmail(const grpc::ServerContext& context);

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
