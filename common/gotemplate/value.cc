#include "common/gotemplate/value.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace sluice::gotemplate {
namespace {

// Shortest decimal digits that round-trip `d` (> 0), as strconv finds them:
// value = 0.<digits> * 10^dp.
void ShortestDigits(double d, std::string* digits, int* dp) {
  char buf[64];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*e", prec - 1, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  // buf is d.ddde±XX
  std::string s(buf);
  size_t e = s.find('e');
  std::string mant = s.substr(0, e);
  int exp = std::atoi(s.c_str() + e + 1);
  digits->clear();
  for (char c : mant) {
    if (c >= '0' && c <= '9') digits->push_back(c);
  }
  while (digits->size() > 1 && digits->back() == '0') digits->pop_back();
  *dp = exp + 1;
}

std::string FormatE(const std::string& digits, int dp) {
  std::string out(1, digits[0]);
  if (digits.size() > 1) {
    out += '.';
    out += digits.substr(1);
  }
  int exp = dp - 1;
  out += 'e';
  out += exp < 0 ? '-' : '+';
  int a = std::abs(exp);
  if (a < 10) out += '0';
  out += std::to_string(a);
  return out;
}

std::string FormatF(const std::string& digits, int dp) {
  std::string out;
  if (dp <= 0) {
    out = "0.";
    out.append(-dp, '0');
    out += digits;
  } else if (dp >= static_cast<int>(digits.size())) {
    out = digits;
    out.append(dp - digits.size(), '0');
  } else {
    out = digits.substr(0, dp) + "." + digits.substr(dp);
  }
  return out;
}

std::string SpecialFloat(double d) {
  if (std::isnan(d)) return "NaN";
  return d > 0 ? "+Inf" : "-Inf";
}

void AppendJsonString(const std::string& s, std::string* out) {
  static const char kHex[] = "0123456789abcdef";
  out->push_back('"');
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = s[i];
    if (c < 0x80) {
      if (c == '"' || c == '\\') {
        out->push_back('\\');
        out->push_back(c);
      } else if (c == '\n') {
        *out += "\\n";
      } else if (c == '\r') {
        *out += "\\r";
      } else if (c == '\t') {
        *out += "\\t";
      } else if (c < 0x20 || c == '<' || c == '>' || c == '&') {
        *out += "\\u00";
        out->push_back(kHex[c >> 4]);
        out->push_back(kHex[c & 15]);
      } else {
        out->push_back(c);
      }
      ++i;
      continue;
    }
    // Validate one UTF-8 sequence; invalid bytes become U+FFFD.
    int len = (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    bool ok = len > 0 && i + len <= s.size();
    uint32_t cp = 0;
    if (ok) {
      cp = c & (0x7f >> len);
      for (int k = 1; k < len; ++k) {
        unsigned char cc = s[i + k];
        if ((cc >> 6) != 2) {
          ok = false;
          break;
        }
        cp = (cp << 6) | (cc & 0x3f);
      }
      if (ok && ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
                 (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))) {
        ok = false;
      }
    }
    if (!ok) {
      *out += "\\ufffd";
      ++i;
      continue;
    }
    if (cp == 0x2028 || cp == 0x2029) {
      *out += cp == 0x2028 ? "\\u2028" : "\\u2029";
    } else {
      out->append(s, i, len);
    }
    i += len;
  }
  out->push_back('"');
}

void Marshal(const nlohmann::json& j, const std::string& indent, int depth, std::string* out) {
  auto newline = [&](int d) {
    if (indent.empty()) return;
    out->push_back('\n');
    for (int k = 0; k < d; ++k) *out += indent;
  };
  switch (j.type()) {
    case nlohmann::json::value_t::null:
      *out += "null";
      return;
    case nlohmann::json::value_t::boolean:
      *out += j.get<bool>() ? "true" : "false";
      return;
    case nlohmann::json::value_t::number_integer:
      *out += std::to_string(j.get<int64_t>());
      return;
    case nlohmann::json::value_t::number_unsigned:
      *out += std::to_string(j.get<uint64_t>());
      return;
    case nlohmann::json::value_t::number_float: {
      double d = j.get<double>();
      if (d == 0) {
        *out += std::signbit(d) ? "-0" : "0";
        return;
      }
      std::string digits;
      int dp;
      ShortestDigits(std::fabs(d), &digits, &dp);
      double a = std::fabs(d);
      if (d < 0) out->push_back('-');
      if (a < 1e-6 || a >= 1e21) {
        std::string e = FormatE(digits, dp);
        size_t n = e.size();
        if (n >= 4 && e[n - 4] == 'e' && e[n - 3] == '-' && e[n - 2] == '0') {
          e.erase(n - 2, 1);
        }
        *out += e;
      } else {
        *out += FormatF(digits, dp);
      }
      return;
    }
    case nlohmann::json::value_t::string:
      AppendJsonString(j.get_ref<const std::string&>(), out);
      return;
    case nlohmann::json::value_t::array: {
      out->push_back('[');
      bool first = true;
      for (const auto& e : j) {
        if (!first) out->push_back(',');
        first = false;
        newline(depth + 1);
        Marshal(e, indent, depth + 1, out);
      }
      if (!first) newline(depth);
      out->push_back(']');
      return;
    }
    case nlohmann::json::value_t::object: {
      out->push_back('{');
      bool first = true;
      for (const auto& [k, v] : j.items()) {  // nlohmann keeps keys sorted
        if (!first) out->push_back(',');
        first = false;
        newline(depth + 1);
        AppendJsonString(k, out);
        out->push_back(':');
        if (!indent.empty()) out->push_back(' ');
        Marshal(v, indent, depth + 1, out);
      }
      if (!first) newline(depth);
      out->push_back('}');
      return;
    }
    default:
      *out += "null";
  }
}

void FormatJson(const nlohmann::json& j, std::string* out) {
  switch (j.type()) {
    case nlohmann::json::value_t::null:
      *out += "<nil>";
      return;
    case nlohmann::json::value_t::boolean:
      *out += j.get<bool>() ? "true" : "false";
      return;
    case nlohmann::json::value_t::number_integer:
      *out += std::to_string(j.get<int64_t>());
      return;
    case nlohmann::json::value_t::number_unsigned:
      *out += std::to_string(j.get<uint64_t>());
      return;
    case nlohmann::json::value_t::number_float:
      *out += FormatFloatG(j.get<double>());
      return;
    case nlohmann::json::value_t::string:
      *out += j.get_ref<const std::string&>();
      return;
    case nlohmann::json::value_t::array: {
      out->push_back('[');
      bool first = true;
      for (const auto& e : j) {
        if (!first) out->push_back(' ');
        first = false;
        FormatJson(e, out);
      }
      out->push_back(']');
      return;
    }
    case nlohmann::json::value_t::object: {
      *out += "map[";
      bool first = true;
      for (const auto& [k, v] : j.items()) {
        if (!first) out->push_back(' ');
        first = false;
        *out += k;
        out->push_back(':');
        FormatJson(v, out);
      }
      out->push_back(']');
      return;
    }
    default:
      return;
  }
}

}  // namespace

Value Value::FromJson(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null:
      return Value{GoType::kNilIface, nullptr};
    case nlohmann::json::value_t::boolean:
      return Value{GoType::kBool, j};
    case nlohmann::json::value_t::number_integer:
      return Value{GoType::kInt, j};
    case nlohmann::json::value_t::number_unsigned:
      if (j.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
        return Value{GoType::kFloat64, static_cast<double>(j.get<uint64_t>())};
      }
      return Value{GoType::kInt, static_cast<int64_t>(j.get<uint64_t>())};
    case nlohmann::json::value_t::number_float:
      return Value{GoType::kFloat64, j};
    case nlohmann::json::value_t::string:
      return Value{GoType::kString, j};
    case nlohmann::json::value_t::array:
      return Value{GoType::kAnySlice, j};
    case nlohmann::json::value_t::object:
      return Value{GoType::kMap, j};
    default:
      return Value{};
  }
}

Value Value::Unwrapped() const {
  if (type == GoType::kNilIface) return Value{};
  return *this;
}

Value Value::Deref() const {
  if (type == GoType::kRootPtr) return FromJson(j).Unwrapped();
  return *this;
}

std::string GoTypeName(const Value& v) {
  switch (v.type) {
    case GoType::kInvalid:
      return "<nil>";
    case GoType::kNilIface:
      return "interface {}";
    case GoType::kRootPtr:
      return "*interface {}";
    case GoType::kBool:
      return "bool";
    case GoType::kInt:
      return "int";
    case GoType::kInt64:
      return "int64";
    case GoType::kFloat64:
      return "float64";
    case GoType::kString:
      return "string";
    case GoType::kAnySlice:
      return "[]interface {}";
    case GoType::kStringSlice:
      return "[]string";
    case GoType::kMap:
      return "map[string]interface {}";
    case GoType::kStringMap:
      return "map[string]string";
  }
  return "?";
}

std::string FormatFloatG(double d) {
  if (std::isnan(d) || std::isinf(d)) return SpecialFloat(d);
  if (d == 0) return std::signbit(d) ? "-0" : "0";
  std::string digits;
  int dp;
  ShortestDigits(std::fabs(d), &digits, &dp);
  int exp = dp - 1;
  std::string out = d < 0 ? "-" : "";
  if (exp < -4 || exp >= 6) {  // strconv: shortest %g switches at 6
    out += FormatE(digits, dp);
  } else {
    out += FormatF(digits, dp);
  }
  return out;
}

std::string FormatValue(const Value& v) {
  if (v.type == GoType::kInvalid || v.type == GoType::kNilIface) return "<nil>";
  std::string out;
  FormatJson(v.j, &out);
  return out;
}

std::string MarshalJson(const nlohmann::json& j, const std::string& indent) {
  std::string out;
  Marshal(j, indent, 0, &out);
  return out;
}

bool IsTrue(const Value& v) {
  switch (v.type) {
    case GoType::kInvalid:
    case GoType::kNilIface:
      return false;
    case GoType::kRootPtr:
      return true;
    case GoType::kBool:
      return v.j.get<bool>();
    case GoType::kInt:
    case GoType::kInt64:
      return v.j.get<int64_t>() != 0;
    case GoType::kFloat64:
      return v.j.get<double>() != 0;
    default:
      return LengthOf(v) > 0;
  }
}

int64_t LengthOf(const Value& v) {
  const nlohmann::json& j = v.j;
  switch (v.type) {
    case GoType::kString:
      return static_cast<int64_t>(j.get_ref<const std::string&>().size());
    case GoType::kAnySlice:
    case GoType::kStringSlice:
    case GoType::kMap:
    case GoType::kStringMap:
      return static_cast<int64_t>(j.size());
    case GoType::kRootPtr:
      return LengthOf(v.Deref());
    default:
      return -1;
  }
}

}  // namespace sluice::gotemplate
