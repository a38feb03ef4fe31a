// Secrets that authenticate a hop (the gateway's proxy token, an alert hook
// token, the sink control token): where they are read from and how they are
// compared.
#ifndef SLUICE_COMMON_AUTH_SECRET_H_
#define SLUICE_COMMON_AUTH_SECRET_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace sluice::auth {

// Where a secret lives: a file (read whole; one trailing newline is dropped,
// as `echo token > file` writes it) or an environment variable. At most one
// is set; neither set means "no secret".
struct SecretSource {
  std::string file;  // path of a file holding the secret (e.g. a mounted Kubernetes Secret)
  std::string env;   // name of an environment variable holding it
  bool empty() const { return file.empty() && env.empty(); }
};

// Reads the secret. `what` names the setting in errors. InvalidArgument when
// both are set, NotFound when the file cannot be read or the variable is
// unset, InvalidArgument when the value is empty or shorter than 16 bytes
// (a guessable token is no authentication). "" for an empty source.
absl::StatusOr<std::string> LoadSecret(const SecretSource& source, absl::string_view what);

// Compares without an early exit, so the time taken does not tell how many
// leading bytes matched (OpenSSL CRYPTO_memcmp). Different lengths compare
// unequal (the length of a token is not secret).
bool ConstantTimeEquals(absl::string_view a, absl::string_view b);

}  // namespace sluice::auth

#endif  // SLUICE_COMMON_AUTH_SECRET_H_
