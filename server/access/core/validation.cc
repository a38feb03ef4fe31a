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
  // Guardian's documented configs write days ("7d"); absl, like Go, has no
  // day unit, so a leading whole number of days is read as 24h each.
  std::string text(value);
  int64_t days = 0;
  auto dpos = text.find('d');
  if (dpos != std::string::npos && dpos > 0 && absl::SimpleAtoi(text.substr(0, dpos), &days) &&
      days >= 0 && days <= 100000) {
    text = text.substr(dpos + 1);
    if (text.empty()) text = "0s";
  } else {
    days = 0;
  }
  if (value.empty() || value == "inf" || value == "-inf" || !absl::ParseDuration(text, &d) ||
      (d += absl::Hours(24 * days)) <= absl::ZeroDuration()) {
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

bool HasControlCharacter(absl::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) return true;
    if (c == 0xc2 && i + 1 < s.size()) {
      unsigned char n = static_cast<unsigned char>(s[i + 1]);
      if (n >= 0x80 && n <= 0x9f) return true;
    }
  }
  return false;
}

bool IsEmailAddress(absl::string_view s) {
  auto at = s.find('@');
  if (at == absl::string_view::npos || at == 0 || at + 1 >= s.size()) return false;
  if (s.find('@', at + 1) != absl::string_view::npos) return false;
  // Control characters (NUL, ESC, DEL, C1 ...) would reach logs, headers and
  // provider calls; none belongs in an address (RFC 5322 atext).
  if (HasControlCharacter(s)) return false;
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
