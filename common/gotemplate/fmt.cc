// Go's fmt printing for template values: Sprint/Sprintln/Sprintf, and
// strconv.Quote. Only the verbs templates use are implemented; see funcs.h.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "absl/strings/str_cat.h"
#include "common/gotemplate/funcs.h"
#include "common/gotemplate/unquote.h"

namespace sluice::gotemplate {
namespace {

bool IsStringArg(const Value& v) { return v.type == GoType::kString; }

// strconv.QuoteRune for the ASCII range (other runes are kept as UTF-8).
std::string QuoteRune(int64_t r) {
  static const char kHex[] = "0123456789abcdef";
  switch (r) {
    case '\a': return "'\\a'";
    case '\b': return "'\\b'";
    case '\f': return "'\\f'";
    case '\n': return "'\\n'";
    case '\r': return "'\\r'";
    case '\t': return "'\\t'";
    case '\v': return "'\\v'";
    case '\\': return "'\\\\'";
    case '\'': return "'\\''";
    default: break;
  }
  if ((r >= 0 && r < 0x20) || r == 0x7f) {
    return std::string("'\\x") + kHex[r >> 4] + kHex[r & 15] + "'";
  }
  return "'" + EncodeRune(r) + "'";
}

struct Spec {
  bool minus = false, plus = false, sharp = false, zero = false, space = false;
  int width = -1, prec = -1;
};

std::string Pad(const std::string& s, const Spec& sp, bool numeric) {
  int len = 0;
  for (unsigned char c : s) len += (c & 0xc0) != 0x80;  // runes, as fmt counts
  if (sp.width < 0 || len >= sp.width) return s;
  std::string pad(sp.width - len, (sp.zero && !sp.minus && numeric) ? '0' : ' ');
  if (sp.minus) return s + pad;
  if (pad[0] == '0' && !s.empty() && (s[0] == '-' || s[0] == '+' || s[0] == ' ')) {
    return s.substr(0, 1) + pad + s.substr(1);
  }
  return pad + s;
}

std::string BadVerb(char verb, const Value& v) {
  if (!v.valid() || v.type == GoType::kNilIface) return absl::StrCat("%!", std::string(1, verb), "(<nil>)");
  return absl::StrCat("%!", std::string(1, verb), "(", GoTypeName(v), "=", FormatValue(v), ")");
}

std::string FormatInt(int64_t i, char verb, const Spec& sp) {
  std::string digits;
  uint64_t u = i < 0 ? 0 - static_cast<uint64_t>(i) : static_cast<uint64_t>(i);
  int base = verb == 'x' || verb == 'X' ? 16 : verb == 'o' ? 8 : verb == 'b' ? 2 : 10;
  const char* set = verb == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
  do {
    digits.insert(digits.begin(), set[u % base]);
    u /= base;
  } while (u != 0);
  if (sp.prec >= 0 && static_cast<int>(digits.size()) < sp.prec) {
    digits.insert(0, sp.prec - digits.size(), '0');
  }
  if (sp.prec == 0 && i == 0) digits.clear();
  if (sp.sharp) {
    if (base == 16) digits = (verb == 'X' ? "0X" : "0x") + digits;
    if (base == 8 && (digits.empty() || digits[0] != '0')) digits = "0" + digits;
  }
  std::string sign = i < 0 ? "-" : sp.plus ? "+" : sp.space ? " " : "";
  Spec s2 = sp;
  if (sp.prec >= 0) s2.zero = false;
  return Pad(sign + digits, s2, true);
}

std::string FormatFloat(double d, char verb, const Spec& sp) {
  std::string s;
  if (verb == 'v' || (verb == 'g' && sp.prec < 0)) {
    s = FormatFloatG(d);
    if (sp.plus && d >= 0) s = "+" + s;
  } else {
    char fmt[32];
    std::snprintf(fmt, sizeof fmt, "%%%s%s.%d%c", sp.plus ? "+" : "", sp.sharp ? "#" : "",
                  sp.prec < 0 ? 6 : sp.prec, verb);
    char buf[512];
    std::snprintf(buf, sizeof buf, fmt, d);
    s = buf;
  }
  return Pad(s, sp, true);
}

std::string HexString(const std::string& s, bool upper, const Spec& sp) {
  const char* set = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    if (sp.space && !out.empty()) out.push_back(' ');
    if (sp.sharp && (sp.space || out.empty())) out += upper ? "0X" : "0x";
    out.push_back(set[c >> 4]);
    out.push_back(set[c & 15]);
  }
  return out;
}

std::string FormatOne(const Value& v0, char verb, const Spec& sp) {
  Value v = v0.Deref();
  if (v.type == GoType::kNilIface) v = Value::Invalid();
  if (!v.valid()) {
    if (verb == 'v') return Pad("<nil>", sp, false);
    return BadVerb(verb, v);
  }
  switch (v.type) {
    case GoType::kBool:
      if (verb == 'v' || verb == 't') return Pad(v.j.get<bool>() ? "true" : "false", sp, false);
      return BadVerb(verb, v);
    case GoType::kInt:
    case GoType::kInt64: {
      int64_t i = v.j.get<int64_t>();
      switch (verb) {
        case 'v': case 'd': return FormatInt(i, 'd', sp);
        case 'x': case 'X': case 'o': case 'b': return FormatInt(i, verb, sp);
        case 'c': return Pad(EncodeRune(i), sp, false);
        case 'q': return Pad(QuoteRune(i), sp, false);
        case 'e': case 'f': case 'g': case 'E': case 'F': case 'G': return BadVerb(verb, v);
        default: return BadVerb(verb, v);
      }
    }
    case GoType::kFloat64: {
      double d = v.j.get<double>();
      switch (verb) {
        case 'v': case 'e': case 'f': case 'g': case 'E': case 'F': case 'G':
          return FormatFloat(d, verb, sp);
        case 'x': case 'X': {
          // Go's %x of a float: hex mantissa, exponent with at least 2 digits.
          char buf[64];
          std::snprintf(buf, sizeof buf, verb == 'x' ? "%a" : "%A", d);
          std::string h = buf;
          size_t p = h.find_first_of("pP");
          if (p != std::string::npos && h.size() - p == 3) h.insert(p + 2, "0");
          return Pad(h, sp, true);
        }
        default:
          return BadVerb(verb, v);
      }
    }
    case GoType::kString: {
      std::string s = v.j.get<std::string>();
      switch (verb) {
        case 'v': case 's': {
          if (sp.prec >= 0) {
            // precision counts runes
            size_t i = 0;
            int n = 0;
            while (i < s.size() && n < sp.prec) {
              ++i;
              while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xc0) == 0x80) ++i;
              ++n;
            }
            s = s.substr(0, i);
          }
          return Pad(s, sp, false);
        }
        case 'q':
          return Pad(GoQuote(s), sp, false);
        case 'x': case 'X':
          return Pad(HexString(s, verb == 'X', sp), sp, false);
        default:
          return BadVerb(verb, v);
      }
    }
    case GoType::kAnySlice:
    case GoType::kStringSlice: {
      // fmt applies the verb to each element (and the width to each).
      std::string out = "[";
      for (size_t i = 0; i < v.j.size(); ++i) {
        if (i > 0) out.push_back(' ');
        out += FormatOne(Value::FromJson(v.j[i]), verb, sp);
      }
      return out + "]";
    }
    case GoType::kMap:
    case GoType::kStringMap: {
      std::string out = "map[";
      bool first = true;
      for (const auto& [k, e] : v.j.items()) {
        if (!first) out.push_back(' ');
        first = false;
        out += FormatOne(Value::String(k), verb, sp) + ":" + FormatOne(Value::FromJson(e), verb, sp);
      }
      return out + "]";
    }
    default:
      if (verb == 'v') return Pad(FormatValue(v), sp, false);
      return BadVerb(verb, v);
  }
}

// The bytes of a string operand, known before it is formatted (0 for other
// kinds, whose text is bounded by the data they came from).
size_t StringBytes(const Value& v) {
  Value u = v.Unwrapped();
  return u.j.is_string() ? u.j.get_ref<const std::string&>().size() : 0;
}

// Appends FormatOne(v, verb, sp) to `out` unless that would take it past
// `max_bytes`: the operand's known size is checked before anything is built
// (security review R3-L6), the result after.
bool AppendFormatted(std::string& out, const Value& v, char verb, const Spec& sp, size_t max_bytes) {
  size_t width = sp.width > 0 ? static_cast<size_t>(sp.width) : 0;
  size_t known = StringBytes(v);
  if (sp.prec >= 0) known = std::min(known, static_cast<size_t>(sp.prec));  // %.3s truncates
  if (out.size() + std::max(known, width) > max_bytes) return false;
  out += FormatOne(v, verb, sp);
  return out.size() <= max_bytes;
}

absl::Status TooLarge(const char* fn, size_t max_bytes) {
  return absl::ResourceExhaustedError(absl::StrCat(fn, " result is over ", max_bytes, " bytes"));
}

}  // namespace

absl::StatusOr<std::string> Sprint(const std::vector<Value>& args, size_t max_bytes) {
  std::string out;
  for (size_t i = 0; i < args.size(); ++i) {
    if (i > 0 && !IsStringArg(args[i]) && !IsStringArg(args[i - 1])) out.push_back(' ');
    if (!AppendFormatted(out, args[i], 'v', Spec(), max_bytes)) return TooLarge("print", max_bytes);
  }
  return out;
}

absl::StatusOr<std::string> Sprintln(const std::vector<Value>& args, size_t max_bytes) {
  std::string out;
  for (size_t i = 0; i < args.size(); ++i) {
    if (i > 0) out.push_back(' ');
    if (!AppendFormatted(out, args[i], 'v', Spec(), max_bytes)) return TooLarge("println", max_bytes);
  }
  out.push_back('\n');
  if (out.size() > max_bytes) return TooLarge("println", max_bytes);
  return out;
}

absl::StatusOr<std::string> Sprintf(const std::string& f, const std::vector<Value>& args, size_t max_bytes) {
  std::string out;
  size_t argi = 0;
  size_t i = 0;
  while (i < f.size()) {
    if (out.size() > max_bytes) return TooLarge("printf", max_bytes);
    if (f[i] != '%') {
      out.push_back(f[i++]);
      continue;
    }
    ++i;
    Spec sp;
    for (; i < f.size(); ++i) {
      char c = f[i];
      if (c == '-') { sp.minus = true; sp.zero = false; }
      else if (c == '+') sp.plus = true;
      else if (c == '#') sp.sharp = true;
      else if (c == '0') sp.zero = !sp.minus;
      else if (c == ' ') sp.space = true;
      else break;
    }
    while (i < f.size() && f[i] >= '0' && f[i] <= '9') {
      sp.width = (sp.width < 0 ? 0 : sp.width) * 10 + (f[i++] - '0');
      if (sp.width > 1000000) sp.width = 1000000;
    }
    if (i < f.size() && f[i] == '.') {
      ++i;
      sp.prec = 0;
      while (i < f.size() && f[i] >= '0' && f[i] <= '9') {
        sp.prec = sp.prec * 10 + (f[i++] - '0');
        if (sp.prec > 1000000) sp.prec = 1000000;
      }
    }
    if (i >= f.size()) {
      out += "%!(NOVERB)";
      break;
    }
    char verb = f[i++];
    if (verb == '%') {
      out.push_back('%');
      continue;
    }
    if (argi >= args.size()) {
      out += absl::StrCat("%!", std::string(1, verb), "(MISSING)");
      continue;
    }
    if (!AppendFormatted(out, args[argi++], verb, sp, max_bytes)) return TooLarge("printf", max_bytes);
  }
  if (argi < args.size()) {
    out += "%!(EXTRA ";
    for (size_t k = argi; k < args.size(); ++k) {
      if (k > argi) out += ", ";
      const Value& v = args[k];
      if (!v.valid() || v.type == GoType::kNilIface) {
        out += "<nil>";
      } else {
        if (out.size() + StringBytes(v) > max_bytes) return TooLarge("printf", max_bytes);
        out += GoTypeName(v) + "=" + FormatValue(v.Deref());
      }
    }
    out += ")";
  }
  if (out.size() > max_bytes) return TooLarge("printf", max_bytes);
  return out;
}

std::string GoQuote(const std::string& s) {
  static const char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '\a': out += "\\a"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\v': out += "\\v"; break;
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += "\\x";
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 15]);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  out += "\"";
  return out;
}

}  // namespace sluice::gotemplate
