#include "server/access/core/validation.h"

#include <cstdint>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/expr/expr.h"

namespace sluice::access {

absl::StatusOr<absl::Duration> ParseDurationField(absl::string_view field,
                                                  absl::string_view value) {
  absl::Duration d;
  // Guardian's docs write days ("7d"); a leading "<n>d" is n × 24h.
  std::string rest(value);
  absl::Duration days = absl::ZeroDuration();
  size_t dpos = rest.find('d');
  int n = 0;
  if (dpos != std::string::npos && dpos > 0 && absl::SimpleAtoi(rest.substr(0, dpos), &n) &&
      n > 0 && n <= 36500) {
    days = absl::Hours(24) * n;
    rest = rest.substr(dpos + 1);
    if (rest.empty()) rest = "0s";
  }
  if (value.empty() || value == "inf" || value == "-inf" || !absl::ParseDuration(rest, &d) ||
      (d += days) <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": invalid duration \"", value, "\" (want a positive duration such as \"24h\")"));
  }
  return d;
}

absl::Status CheckExpression(absl::string_view field, absl::string_view source) {
  auto program = expr::Program::Compile(source);
  if (!program.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": ", program.status().message()));
  }
  return absl::OkStatus();
}

bool IsEmailAddress(absl::string_view s) {
  auto at = s.find('@');
  if (at == absl::string_view::npos || at == 0 || at + 1 >= s.size()) return false;
  if (s.find('@', at + 1) != absl::string_view::npos) return false;
  for (char c : s) {
    if (absl::ascii_isspace(static_cast<unsigned char>(c)) || c == ',' || c == ';' || c == '"' ||
        c == '\'' || c == '$' || c == '(' || c == ')') {
      return false;
    }
  }
  return true;
}

bool IsUuid(absl::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (s[i] != '-') return false;
    } else if (!absl::ascii_isxdigit(static_cast<unsigned char>(s[i]))) {
      return false;
    }
  }
  return true;
}

bool IsValidId(absl::string_view id) {
  if (id.empty()) return false;
  for (char c : id) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
  }
  return true;
}

google::protobuf::Timestamp ToTimestamp(absl::Time t) {
  google::protobuf::Timestamp ts;
  int64_t nanos = absl::ToUnixNanos(t);
  ts.set_seconds(nanos / 1000000000);
  ts.set_nanos(static_cast<int32_t>(nanos % 1000000000));
  if (ts.nanos() < 0) {
    ts.set_seconds(ts.seconds() - 1);
    ts.set_nanos(ts.nanos() + 1000000000);
  }
  return ts;
}

absl::Time FromTimestamp(const google::protobuf::Timestamp& ts) {
  return absl::FromUnixSeconds(ts.seconds()) + absl::Nanoseconds(ts.nanos());
}

}  // namespace sluice::access
