#include "common/grpc_util.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"

namespace sluice {

bool IsEmail(absl::string_view s) {
  auto at = s.find('@');
  if (at == absl::string_view::npos || at == 0 || at + 1 >= s.size()) return false;
  if (s.find('@', at + 1) != absl::string_view::npos) return false;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ';') return false;
  }
  return true;
}

grpc::Status RecoverFromException(absl::string_view method, const char* what) {
  spdlog::error("rpc={} recovered exception: {}", std::string(method), what);
  return grpc::Status(grpc::StatusCode::INTERNAL,
                      absl::StrCat("internal error in ", method, "; see server log"));
}

}  // namespace sluice
