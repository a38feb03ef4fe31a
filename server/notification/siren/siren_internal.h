// Helpers shared by the Siren handlers' .cc files (not a public API).
#ifndef SLUICE_SERVER_NOTIFICATION_SIREN_SIREN_INTERNAL_H_
#define SLUICE_SERVER_NOTIFICATION_SIREN_SIREN_INTERNAL_H_

#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/auth/secret.h"
#include "common/grpc_util.h"
#include "common/paging.h"
#include "server/notification/api/convert.h"
#include "server/notification/siren/siren_convert.h"
#include "server/notification/siren/siren_service.h"

namespace sluice::notification::siren {

// The method-name prefix in logs and errors.
inline constexpr char kSvc[] = "siren.v1beta1.SirenService/";

using auth::Caller;
using api::SenderOf;

// Siren's lists are unpaged: the first kMaxPageSize matches.
inline const Page kAll{kMaxPageSize, 0};

// Siren's silence_id subscription filter reads its notification log, which
// Sluice does not keep.
inline absl::Status NoSilenceLog() {
  return absl::UnimplementedError(
      "silence_id: not supported (Sluice keeps no log of the subscriptions a silence applied to; "
      "GET /v1beta1/alerts/...?silence_id= lists the alerts it applied to)");
}

// The Idempotency-Key header (metadata idempotency-key), or "".
inline std::string IdempotencyKey(const grpc::ServerContext& ctx) {
  auto it = ctx.client_metadata().find("idempotency-key");
  if (it == ctx.client_metadata().end()) return "";
  return std::string(it->second.data(), it->second.size());
}

// Siren's string notification id → Sluice's number; InvalidArgument naming
// notification_id otherwise.
inline absl::StatusOr<uint64_t> ParseNotificationId(const std::string& text) {
  uint64_t id = 0;
  if (!absl::SimpleAtoi(text, &id) || id == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("notification_id: \"", text, "\" is not a notification id (a positive number)"));
  }
  return id;
}

// A string map as a JSON object.
inline nlohmann::json ObjectOf(const google::protobuf::Map<std::string, std::string>& m) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : m) j[k] = v;
  return j;
}

// Runs `fn(caller)` after authenticating, as NotificationGrpcService does.
template <typename Fn>
grpc::Status SirenGrpcService::Call(grpc::ServerContext* ctx, const char* method, Fn&& fn) {
  return auth::WithCaller(*s_.authenticator, ctx, absl::StrCat(kSvc, method), fn);
}

// Call, for notification admins only (PermissionDenied naming `what`).
template <typename Fn>
grpc::Status SirenGrpcService::AdminCall(grpc::ServerContext* ctx, const char* method,
                                         const char* what, Fn&& fn) {
  return Call(ctx, method, [&](const Caller& caller) -> absl::Status {
    if (auto st = s_.admins->Require(caller, what, "notification.admins"); !st.ok()) return st;
    return fn(caller);
  });
}

}  // namespace sluice::notification::siren

#endif  // SLUICE_SERVER_NOTIFICATION_SIREN_SIREN_INTERNAL_H_
