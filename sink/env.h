// Environment-variable configuration, Firehose style: every setting of
// sluice-sink is a variable such as SOURCE_KAFKA_TOPIC. Parsers report the
// variable name in every error so that start-up failures are actionable.
#ifndef SLUICE_SINK_ENV_H_
#define SLUICE_SINK_ENV_H_

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace sluice::sink {

// An immutable snapshot of name → value. Empty values count as unset, as in
// Firehose's owner-config (an exported-but-empty variable takes the default).
// True for "host:port": a non-empty host without '/', '@', '?' or ',' and a
// port in 1..65535 after the last colon.
bool IsHostPort(absl::string_view s);

class Env {
 public:
  Env() = default;
  explicit Env(std::map<std::string, std::string> vars) : vars_(std::move(vars)) {}

  // Snapshot of the process environment (`environ`).
  static Env FromProcess();

  // The value, or nullopt when unset or empty.
  std::optional<std::string> Get(absl::string_view name) const;

  // The value, or `def` when unset.
  std::string GetOr(absl::string_view name, absl::string_view def) const;

  // The value; InvalidArgument "<name> is required" when unset.
  absl::StatusOr<std::string> Require(absl::string_view name) const;

  // Integer value or `def`; InvalidArgument naming the variable on bad syntax.
  absl::StatusOr<int64_t> GetInt(absl::string_view name, int64_t def) const;

  // Floating value or `def`; InvalidArgument naming the variable on bad syntax.
  absl::StatusOr<double> GetDouble(absl::string_view name, double def) const;

  // Boolean (true/false, case-insensitive) or `def`; InvalidArgument otherwise.
  absl::StatusOr<bool> GetBool(absl::string_view name, bool def) const;

  // Integer in 1..INT32_MAX or `def`; InvalidArgument "<name> must be a
  // positive integer" otherwise.
  absl::StatusOr<int> GetPositiveInt(absl::string_view name, int def) const;

  // A duration given in milliseconds (Firehose's *_MS variables), >= 0, or
  // `def` when unset. InvalidArgument "<name> must be a number of
  // milliseconds >= 0, got \"x\"" otherwise.
  absl::StatusOr<absl::Duration> GetDuration(absl::string_view name, absl::Duration def) const;

  // The comma-separated entries of `name`, trimmed, empty ones skipped
  // (Firehose's list variables, e.g. SINK_JDBC_UNIQUE_KEYS); empty when unset.
  std::vector<std::string> GetList(absl::string_view name) const;

  // A required TCP port in 1..65535. InvalidArgument "<name> is required" or
  // "<name> must be a port in 1-65535, got \"x\"".
  absl::StatusOr<int> RequirePort(absl::string_view name) const;

  // TCP/UDP port in 0..65535 or `def` (0 usually means "off");
  // InvalidArgument "<name> out of range" otherwise.
  absl::StatusOr<int> GetPort(absl::string_view name, int def) const;

  // The required comma-separated "host:port" list of `name`, entries trimmed
  // (see IsHostPort). InvalidArgument "<name> is required" when unset,
  // "<name>: \"x\" is not host:port (e.g. <example>)" for a bad entry and
  // "<name> is empty" for a list of nothing but commas.
  absl::StatusOr<std::vector<std::string>> GetHostPorts(absl::string_view name,
                                                        absl::string_view example) const;

  // One of `allowed` (upper-case names), compared case-insensitively after
  // trimming, returned upper-cased; `def` when unset. InvalidArgument
  // "<name> must be A, B or C, got \"x\"" otherwise.
  absl::StatusOr<std::string> GetEnum(absl::string_view name, absl::string_view def,
                                      std::initializer_list<absl::string_view> allowed) const;

  // Every variable whose name starts with `prefix`, keyed by the rest of the name.
  std::map<std::string, std::string> WithPrefix(absl::string_view prefix) const;

  // All variables (for masked status reports).
  const std::map<std::string, std::string>& All() const { return vars_; }

 private:
  std::map<std::string, std::string> vars_;
};

// True for names whose values must never be printed (passwords, tokens, keys,
// secrets, SASL/SSL credentials).
bool IsSecretName(absl::string_view name);

}  // namespace sluice::sink

#endif  // SLUICE_SINK_ENV_H_
