#include "common/auth/secret.h"

#include <openssl/crypto.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace sluice::auth {

absl::StatusOr<std::string> LoadSecret(const SecretSource& source, absl::string_view what) {
  if (source.empty()) return std::string();
  if (!source.file.empty() && !source.env.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": set either a file or an environment variable, not both"));
  }
  std::string value;
  if (!source.file.empty()) {
    std::ifstream in(source.file, std::ios::binary);
    if (!in) {
      return absl::NotFoundError(
          absl::StrCat(what, ": cannot read file \"", source.file, "\""));
    }
    std::stringstream ss;
    ss << in.rdbuf();
    value = ss.str();
    if (absl::EndsWith(value, "\r\n")) {
      value.resize(value.size() - 2);
    } else if (absl::EndsWith(value, "\n")) {
      value.pop_back();
    }
  } else {
    const char* v = std::getenv(source.env.c_str());
    if (v == nullptr) {
      return absl::NotFoundError(
          absl::StrCat(what, ": environment variable ", source.env, " is not set"));
    }
    value = v;
  }
  if (value.size() < 16) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": the secret must be at least 16 bytes"));
  }
  return value;
}

bool ConstantTimeEquals(absl::string_view a, absl::string_view b) {
  if (a.size() != b.size()) return false;
  if (a.empty()) return true;
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace sluice::auth
