#include "server/notification/receivers/file/file_receiver.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "server/notification/receivers/config_util.h"

namespace sluice::notification::receivers {

absl::Status FileReceiver::ValidateConfig(const nlohmann::json& config) const {
  if (auto st = RequireString(config, "url"); !st.ok()) return st;
  std::string path = config["url"].get<std::string>();
  if (absl::StartsWith(path, "file://")) path = path.substr(7);
  if (path.empty() || path[0] != '/') {
    return absl::InvalidArgumentError("configurations.url: must be an absolute file path");
  }
  return absl::OkStatus();
}

absl::Status FileReceiver::Send(const nlohmann::json& config, const nlohmann::json& payload) {
  std::string path = config.value("url", "");
  if (absl::StartsWith(path, "file://")) path = path.substr(7);
  std::string line = payload.dump() + "\n";
  absl::MutexLock lock(&mu_);
  FILE* f = std::fopen(path.c_str(), "a");
  if (f == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat("open ", path, ": ", std::strerror(errno)));
  }
  size_t n = std::fwrite(line.data(), 1, line.size(), f);
  int closed = std::fclose(f);
  if (n != line.size() || closed != 0) {
    return absl::UnavailableError(absl::StrCat("write ", path, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace sluice::notification::receivers
