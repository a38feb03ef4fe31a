#include "common/gotemplate/unquote.h"

#include <cmath>
#include <cstdlib>

namespace sluice::gotemplate {
namespace {

absl::Status Syntax() { return absl::InvalidArgumentError("invalid syntax"); }

int HexVal(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// One possibly escaped character of a quoted literal at s[*i]; appends its
// bytes to *out. `quote` is the literal's quote character.
absl::Status UnquoteOne(const std::string& s, size_t* i, char quote, std::string* out, int64_t* rune) {
  unsigned char c = s[*i];
  if (c != '\\') {
    if (c == quote && quote == '\'') return Syntax();
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    if (*i + len > s.size()) len = 1;
    out->append(s, *i, len);
    if (rune != nullptr) {
      int64_t r = len == 1 ? c : (c & (0x7f >> len));
      for (size_t k = 1; k < len; ++k) r = (r << 6) | (s[*i + k] & 0x3f);
      *rune = r;
    }
    *i += len;
    return absl::OkStatus();
  }
  if (*i + 1 >= s.size()) return Syntax();
  char e = s[*i + 1];
  *i += 2;
  int64_t r;
  switch (e) {
    case 'a': r = 7; break;
    case 'b': r = 8; break;
    case 'f': r = 12; break;
    case 'n': r = 10; break;
    case 'r': r = 13; break;
    case 't': r = 9; break;
    case 'v': r = 11; break;
    case '\\': r = '\\'; break;
    case '\'':
    case '"':
      if (e != quote) return Syntax();
      r = e;
      break;
    case 'x': case 'u': case 'U': {
      int n = e == 'x' ? 2 : e == 'u' ? 4 : 8;
      if (*i + n > s.size()) return Syntax();
      r = 0;
      for (int k = 0; k < n; ++k) {
        int h = HexVal(s[*i + k]);
        if (h < 0) return Syntax();
        r = r * 16 + h;
      }
      *i += n;
      if (e == 'x') {
        out->push_back(static_cast<char>(r));
        if (rune != nullptr) *rune = r;
        return absl::OkStatus();
      }
      if (r > 0x10ffff || (r >= 0xd800 && r < 0xe000)) return Syntax();
      break;
    }
    case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
      if (*i + 2 > s.size()) return Syntax();
      r = e - '0';
      for (int k = 0; k < 2; ++k) {
        char d = s[*i + k];
        if (d < '0' || d > '7') return Syntax();
        r = r * 8 + (d - '0');
      }
      if (r > 255) return Syntax();
      *i += 2;
      out->push_back(static_cast<char>(r));
      if (rune != nullptr) *rune = r;
      return absl::OkStatus();
    }
    default:
      return Syntax();
  }
  *out += EncodeRune(r);
  if (rune != nullptr) *rune = r;
  return absl::OkStatus();
}

// strconv.ParseUint(s, 0, 64) on an unsigned text (with Go's '_' rule).
bool ParseUintBase0(const std::string& s0, uint64_t* out) {
  std::string s = s0;
  int base = 10;
  size_t p = 0;
  bool prefixed = false;
  if (s.size() >= 1 && s[0] == '0') {
    if (s.size() >= 2 && (s[1] == 'x' || s[1] == 'X')) {
      base = 16; p = 2; prefixed = true;
    } else if (s.size() >= 2 && (s[1] == 'o' || s[1] == 'O')) {
      base = 8; p = 2; prefixed = true;
    } else if (s.size() >= 2 && (s[1] == 'b' || s[1] == 'B')) {
      base = 2; p = 2; prefixed = true;
    } else {
      base = 8; p = 1; prefixed = true;
    }
  }
  // underscoreOK: '_' only between digits or after a prefix.
  char saw = prefixed ? '0' : '^';
  bool any = false;
  uint64_t v = 0;
  if (p == s.size() && !(base == 8 && p == 1)) return false;
  for (size_t i = p; i < s.size(); ++i) {
    char c = s[i];
    if (c == '_') {
      if (saw != '0' && saw != 'd') return false;
      saw = '_';
      continue;
    }
    int d = HexVal(c);
    if (d < 0 || d >= base) return false;
    if (saw == '_' && false) return false;
    saw = 'd';
    any = true;
    if (v > (UINT64_MAX - d) / base) return false;
    v = v * base + d;
  }
  if (saw == '_') return false;
  if (!any && !(base == 8 && p == 1)) return false;
  *out = v;
  return true;
}

}  // namespace

std::string EncodeRune(int64_t r) {
  if (r < 0 || r > 0x10ffff || (r >= 0xd800 && r < 0xe000)) r = 0xfffd;
  std::string out;
  if (r < 0x80) {
    out.push_back(static_cast<char>(r));
  } else if (r < 0x800) {
    out.push_back(static_cast<char>(0xc0 | (r >> 6)));
    out.push_back(static_cast<char>(0x80 | (r & 0x3f)));
  } else if (r < 0x10000) {
    out.push_back(static_cast<char>(0xe0 | (r >> 12)));
    out.push_back(static_cast<char>(0x80 | ((r >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (r & 0x3f)));
  } else {
    out.push_back(static_cast<char>(0xf0 | (r >> 18)));
    out.push_back(static_cast<char>(0x80 | ((r >> 12) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | ((r >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (r & 0x3f)));
  }
  return out;
}

absl::StatusOr<std::string> Unquote(const std::string& lit) {
  if (lit.size() < 2 || lit.front() != lit.back()) return Syntax();
  std::string body = lit.substr(1, lit.size() - 2);
  if (lit.front() == '`') {
    if (body.find('`') != std::string::npos) return Syntax();
    std::string out;
    for (char c : body) {
      if (c != '\r') out.push_back(c);
    }
    return out;
  }
  if (lit.front() != '"') return Syntax();
  std::string out;
  size_t i = 0;
  while (i < body.size()) {
    if (body[i] == '"' || body[i] == '\n') return Syntax();
    absl::Status st = UnquoteOne(body, &i, '"', &out, nullptr);
    if (!st.ok()) return st;
  }
  return out;
}

absl::StatusOr<int64_t> UnquoteChar(const std::string& lit) {
  if (lit.size() < 3 || lit.front() != '\'' || lit.back() != '\'') return Syntax();
  std::string body = lit.substr(1, lit.size() - 2);
  size_t i = 0;
  std::string out;
  int64_t r = 0;
  absl::Status st = UnquoteOne(body, &i, '\'', &out, &r);
  if (!st.ok()) return st;
  if (i != body.size()) return absl::InvalidArgumentError("malformed character constant: " + lit);
  return r;
}

absl::StatusOr<Number> ParseNumber(const std::string& text, bool is_char, bool is_complex) {
  Number n;
  n.text = text;
  if (is_char) {
    auto r = UnquoteChar(text);
    if (!r.ok()) return r.status();
    n.is_int = n.is_uint = n.is_float = true;
    n.i = *r;
    n.u = static_cast<uint64_t>(*r);
    n.f = static_cast<double>(*r);
    return n;
  }
  if (is_complex || (!text.empty() && text.back() == 'i')) {
    return absl::InvalidArgumentError("complex constants are not supported: " + text);
  }
  std::string digits = text;
  bool neg = false;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    neg = digits[0] == '-';
    digits = digits.substr(1);
  }
  uint64_t u;
  bool uok = text[0] != '+' && text[0] != '-' && ParseUintBase0(digits, &u);
  if (uok) {
    n.is_uint = true;
    n.u = u;
  }
  uint64_t mag;
  if (ParseUintBase0(digits, &mag)) {
    if (!neg && mag <= static_cast<uint64_t>(INT64_MAX)) {
      n.is_int = true;
      n.i = static_cast<int64_t>(mag);
    } else if (neg && mag <= static_cast<uint64_t>(INT64_MAX) + 1) {
      n.is_int = true;
      n.i = mag == static_cast<uint64_t>(INT64_MAX) + 1 ? INT64_MIN : -static_cast<int64_t>(mag);
    }
    if (n.is_int && n.i == 0) {
      n.is_uint = true;
      n.u = 0;
    }
  }
  if (n.is_int) {
    n.is_float = true;
    n.f = static_cast<double>(n.i);
  } else if (n.is_uint) {
    n.is_float = true;
    n.f = static_cast<double>(n.u);
  } else {
    std::string clean;
    for (char c : text) {
      if (c != '_') clean.push_back(c);
    }
    bool hex = clean.find("0x") != std::string::npos || clean.find("0X") != std::string::npos;
    char* end = nullptr;
    double f = std::strtod(clean.c_str(), &end);
    bool ok = end != nullptr && *end == '\0' && !clean.empty() && !std::isinf(f);
    if (hex && clean.find_first_of("pP") == std::string::npos &&
        clean.find('.') != std::string::npos) {
      ok = false;  // Go requires a 'p' exponent in hex floats
    }
    if (ok) {
      if (text.find_first_of(".eEpP") == std::string::npos) {
        return absl::InvalidArgumentError("integer overflow: \"" + text + "\"");
      }
      n.is_float = true;
      n.f = f;
      if (f >= -9.2233720368547758e18 && f < 9.2233720368547758e18 && static_cast<double>(static_cast<int64_t>(f)) == f) {
        n.is_int = true;
        n.i = static_cast<int64_t>(f);
      }
      if (f >= 0 && f < 1.8446744073709552e19 && static_cast<double>(static_cast<uint64_t>(f)) == f) {
        n.is_uint = true;
        n.u = static_cast<uint64_t>(f);
      }
    }
  }
  if (!n.is_int && !n.is_uint && !n.is_float) {
    return absl::InvalidArgumentError("illegal number syntax: \"" + text + "\"");
  }
  return n;
}

}  // namespace sluice::gotemplate
