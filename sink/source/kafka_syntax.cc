// The two pieces of Java syntax Firehose configurations carry into Kafka
// settings: a JAAS login entry (sasl.jaas.config) and the topic pattern
// (SOURCE_KAFKA_TOPIC, a java.util.regex.Pattern). Declared in
// kafka_properties.h.
#include <regex.h>

#include <cctype>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "sink/source/kafka_properties.h"

namespace sluice::sink {
namespace {

// ---- JAAS --------------------------------------------------------------------

// Tokens as Kafka's JaasConfig reads them with java.io.StreamTokenizer:
// words ([A-Za-z0-9._$-]...), double-quoted strings, and single characters
// ('=' and ';'); // and /* */ comments are skipped.
struct JaasToken {
  enum Kind { kWord, kQuoted, kChar, kEnd } kind;
  std::string text;
};

class JaasLexer {
 public:
  explicit JaasLexer(absl::string_view s) : s_(s) {}

  absl::StatusOr<JaasToken> Next() {
    SkipSpaceAndComments();
    if (i_ >= s_.size()) return JaasToken{JaasToken::kEnd, ""};
    char c = s_[i_];
    if (IsWordChar(c)) {
      size_t start = i_;
      while (i_ < s_.size() && IsWordChar(s_[i_])) ++i_;
      return JaasToken{JaasToken::kWord, std::string(s_.substr(start, i_ - start))};
    }
    if (c == '"' || c == '\'') return Quoted(c);
    ++i_;
    return JaasToken{JaasToken::kChar, std::string(1, c)};
  }

 private:
  static bool IsWordChar(char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' ||
           c == '-' || c == '$' || static_cast<unsigned char>(c) >= 160;
  }
  void SkipSpaceAndComments() {
    while (i_ < s_.size()) {
      if (absl::ascii_isspace(static_cast<unsigned char>(s_[i_]))) {
        ++i_;
      } else if (s_.substr(i_, 2) == "//") {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else if (s_.substr(i_, 2) == "/*") {
        size_t end = s_.find("*/", i_ + 2);
        i_ = end == absl::string_view::npos ? s_.size() : end + 2;
      } else {
        break;
      }
    }
  }
  // StreamTokenizer's quoted strings: \n \t \r \b \f \a \v, octal \NNN, and
  // any other escaped character stands for itself.
  absl::StatusOr<JaasToken> Quoted(char quote) {
    std::string out;
    ++i_;
    while (i_ < s_.size() && s_[i_] != quote) {
      char c = s_[i_++];
      if (c == '\n') break;
      if (c != '\\' || i_ >= s_.size()) {
        out.push_back(c);
        continue;
      }
      char e = s_[i_++];
      switch (e) {
        case 'n': out.push_back('\n'); break;
        case 't': out.push_back('\t'); break;
        case 'r': out.push_back('\r'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'a': out.push_back('\a'); break;
        case 'v': out.push_back('\v'); break;
        default:
          if (e >= '0' && e <= '7') {
            int v = e - '0';
            for (int k = 0; k < 2 && i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '7'; ++k) {
              v = v * 8 + (s_[i_++] - '0');
            }
            out.push_back(static_cast<char>(v));
          } else {
            out.push_back(e);
          }
      }
    }
    if (i_ >= s_.size() || s_[i_] != quote) {
      return absl::InvalidArgumentError("JAAS config: unterminated quoted value");
    }
    ++i_;
    return JaasToken{JaasToken::kQuoted, std::move(out)};
  }

  absl::string_view s_;
  size_t i_ = 0;
};

}  // namespace

absl::StatusOr<JaasEntry> ParseJaasConfig(absl::string_view text) {
  JaasLexer lex(text);
  JaasEntry e;
  auto tok = lex.Next();
  if (!tok.ok()) return tok.status();
  if (tok->kind != JaasToken::kWord) {
    return absl::InvalidArgumentError(
        "JAAS config must start with a login module class, e.g. "
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" "
        "password=\"p\";");
  }
  e.login_module = tok->text;
  tok = lex.Next();
  if (!tok.ok()) return tok.status();
  std::string flag = tok->kind == JaasToken::kWord ? absl::AsciiStrToLower(tok->text) : "";
  if (flag != "required" && flag != "requisite" && flag != "sufficient" && flag != "optional") {
    return absl::InvalidArgumentError(absl::StrCat(
        "JAAS config: expected a control flag (required, requisite, sufficient, optional) after ",
        e.login_module));
  }
  e.flag = flag;
  while (true) {
    tok = lex.Next();
    if (!tok.ok()) return tok.status();
    if (tok->kind == JaasToken::kChar && tok->text == ";") break;
    if (tok->kind != JaasToken::kWord) {
      return absl::InvalidArgumentError(
          "JAAS config: expected an option name or ';' (each entry ends with ';')");
    }
    std::string key = tok->text;
    auto eq = lex.Next();
    if (!eq.ok()) return eq.status();
    if (eq->kind != JaasToken::kChar || eq->text != "=") {
      return absl::InvalidArgumentError(absl::StrCat("JAAS config: expected '=' after option ", key));
    }
    auto value = lex.Next();
    if (!value.ok()) return value.status();
    if (value->kind != JaasToken::kWord && value->kind != JaasToken::kQuoted) {
      return absl::InvalidArgumentError(absl::StrCat("JAAS config: option ", key, " has no value"));
    }
    e.options[key] = value->text;
  }
  tok = lex.Next();
  if (!tok.ok()) return tok.status();
  if (tok->kind != JaasToken::kEnd) {
    return absl::InvalidArgumentError(
        "JAAS config must contain exactly one login module entry (as Kafka's clients require)");
  }
  return e;
}

// ---- SOURCE_KAFKA_TOPIC ------------------------------------------------------

namespace {

absl::Status Unsupported(absl::string_view construct, absl::string_view why = "") {
  return absl::InvalidArgumentError(absl::StrCat(
      "SOURCE_KAFKA_TOPIC: the Java regex construct ", construct,
      " cannot be translated for librdkafka's POSIX regular expressions",
      why.empty() ? "" : " (", why, why.empty() ? "" : ")",
      "; rewrite the pattern without it"));
}

bool IsEreMeta(char c) {
  return c == '.' || c == '[' || c == ']' || c == '(' || c == ')' || c == '{' || c == '}' ||
         c == '*' || c == '+' || c == '?' || c == '^' || c == '$' || c == '|' || c == '\\';
}

// A literal character outside brackets.
std::string Literal(char c) {
  return IsEreMeta(c) ? std::string{'\\', c} : std::string(1, c);
}

class TopicRegex {
 public:
  explicit TopicRegex(absl::string_view s) : s_(s) {}

  absl::StatusOr<std::string> Translate() {
    int depth = 0;
    bool atom = false;  // something a quantifier may follow
    while (i_ < s_.size()) {
      char c = s_[i_++];
      absl::Status st;
      switch (c) {
        case '\\':
          st = Escape();
          atom = true;
          break;
        case '[':
          st = Class();
          atom = true;
          break;
        case '(':
          st = Group();
          ++depth;
          atom = false;
          break;
        case ')':
          if (depth == 0) return Unsupported("')'", "unbalanced parenthesis");
          --depth;
          out_ += ')';
          atom = true;
          break;
        case '*':
        case '+':
        case '?':
          if (!atom) return Unsupported(absl::StrCat("'", std::string(1, c), "'"), "nothing to repeat");
          out_ += c;
          st = QuantifierSuffix();
          atom = false;
          break;
        case '{':
          if (!atom) return Unsupported("'{'", "nothing to repeat");
          st = Braces();
          atom = false;
          break;
        case '|':
        case '^':
        case '$':
          out_ += c;
          atom = c == '$';
          break;
        case '.':
          out_ += '.';
          atom = true;
          break;
        case '}':
        case ']':
          out_ += Literal(c);
          atom = true;
          break;
        default:
          out_ += c;
          atom = true;
      }
      if (!st.ok()) return st;
    }
    if (depth != 0) return Unsupported("'('", "unbalanced parenthesis");
    return out_;
  }

 private:
  absl::Status Escape() {
    if (i_ >= s_.size()) return Unsupported("a trailing '\\'");
    char e = s_[i_++];
    switch (e) {
      case 'd': out_ += "[0-9]"; return absl::OkStatus();
      case 'D': out_ += "[^0-9]"; return absl::OkStatus();
      case 'w': out_ += "[A-Za-z0-9_]"; return absl::OkStatus();
      case 'W': out_ += "[^A-Za-z0-9_]"; return absl::OkStatus();
      case 'Q': {
        // \Q...\E quotes literally.
        size_t end = s_.find("\\E", i_);
        absl::string_view lit = s_.substr(i_, end == absl::string_view::npos ? end : end - i_);
        out_ += '(';
        for (char c : lit) out_ += Literal(c);
        out_ += ')';
        i_ = end == absl::string_view::npos ? s_.size() : end + 2;
        return absl::OkStatus();
      }
      default:
        break;
    }
    if (e >= '0' && e <= '9') {
      return Unsupported(absl::StrCat("\\", std::string(1, e)),
                         e == '0' ? "an octal escape" : "a back reference");
    }
    if (e == 'k') return Unsupported("\\k<name>", "a named back reference");
    if (absl::ascii_isalpha(static_cast<unsigned char>(e))) {
      return Unsupported(absl::StrCat("\\", std::string(1, e)),
                         "a character class, boundary or escape POSIX reads differently");
    }
    out_ += Literal(e);
    return absl::OkStatus();
  }

  // A bracket expression; Java escapes inside are resolved, since POSIX
  // reads '\' in brackets literally.
  absl::Status Class() {
    bool negated = false;
    if (i_ < s_.size() && s_[i_] == '^') {
      negated = true;
      ++i_;
    }
    std::vector<std::pair<char, char>> items;  // ranges, single chars as (c, c)
    bool closed = false;
    while (i_ < s_.size()) {
      char c = s_[i_++];
      if (c == ']') {
        if (items.empty()) return Unsupported("'[]...]'", "an empty or ']'-first class");
        closed = true;
        break;
      }
      if (c == '[') return Unsupported("a nested class [..[..]..]", "class union");
      if (c == '&' && i_ < s_.size() && s_[i_] == '&') {
        return Unsupported("'&&'", "class intersection");
      }
      if (c == '\\') {
        if (i_ >= s_.size()) return Unsupported("a trailing '\\'");
        char e = s_[i_++];
        if (e == 'd') {
          items.push_back({'0', '9'});
          continue;
        }
        if (e == 'w') {
          items.insert(items.end(), {{'A', 'Z'}, {'a', 'z'}, {'0', '9'}, {'_', '_'}});
          continue;
        }
        if (absl::ascii_isalnum(static_cast<unsigned char>(e))) {
          return Unsupported(absl::StrCat("\\", std::string(1, e), " inside [...]"));
        }
        c = e;
      }
      // A range "a-z" (a '-' before ']' is literal).
      if (i_ + 1 < s_.size() && s_[i_] == '-' && s_[i_ + 1] != ']') {
        char hi = s_[i_ + 1];
        if (hi == '\\' || hi == '[') return Unsupported("a range ending in an escape or '['");
        i_ += 2;
        if (hi < c) return Unsupported(absl::StrCat("the range ", std::string(1, c), "-", std::string(1, hi)), "reversed");
        items.push_back({c, hi});
        continue;
      }
      items.push_back({c, c});
    }
    if (!closed) return Unsupported("'['", "unclosed class");
    // POSIX placement: ']' first, '[' before the end, '^' not first, '-' last.
    std::string body;
    bool close_bracket = false, open_bracket = false, caret = false, dash = false;
    for (auto [lo, hi] : items) {
      if (lo != hi) {
        for (char x : {lo, hi}) {
          if (x == ']' || x == '^' || x == '-' || x == '[') {
            return Unsupported(absl::StrCat("a range with '", std::string(1, x), "'"));
          }
        }
        absl::StrAppend(&body, std::string(1, lo), "-", std::string(1, hi));
        continue;
      }
      switch (lo) {
        case ']': close_bracket = true; break;
        case '[': open_bracket = true; break;
        case '^': caret = true; break;
        case '-': dash = true; break;
        default: body += lo;
      }
    }
    if (body.empty() && caret && !close_bracket && !open_bracket && !dash && !negated) {
      out_ += "\\^";
      return absl::OkStatus();
    }
    out_ += '[';
    if (negated) out_ += '^';
    if (close_bracket) out_ += ']';
    out_ += body;
    if (open_bracket) out_ += '[';
    if (caret) out_ += '^';
    if (dash) out_ += '-';
    out_ += ']';
    return absl::OkStatus();
  }

  absl::Status Group() {
    if (i_ >= s_.size() || s_[i_] != '?') {
      out_ += '(';
      return absl::OkStatus();
    }
    absl::string_view rest = s_.substr(i_ + 1);
    if (!rest.empty() && rest[0] == ':') {
      i_ += 2;
      out_ += '(';  // grouping only: the same whole-name matches
      return absl::OkStatus();
    }
    if (rest.size() >= 2 && rest[0] == '<' && absl::ascii_isalpha(static_cast<unsigned char>(rest[1]))) {
      size_t end = rest.find('>');
      if (end == absl::string_view::npos) return Unsupported("(?<", "unclosed group name");
      i_ += 1 + end + 1;
      out_ += '(';  // a named group matches as a plain one (back references are refused)
      return absl::OkStatus();
    }
    if (!rest.empty() && (rest[0] == '=' || rest[0] == '!')) {
      return Unsupported(absl::StrCat("(?", std::string(1, rest[0]), "...)"), "lookahead");
    }
    if (rest.size() >= 2 && rest[0] == '<' && (rest[1] == '=' || rest[1] == '!')) {
      return Unsupported(absl::StrCat("(?<", std::string(1, rest[1]), "...)"), "lookbehind");
    }
    if (!rest.empty() && rest[0] == '>') return Unsupported("(?>...)", "atomic group");
    return Unsupported("(?flags)", "inline flags such as (?i)");
  }

  // After a quantifier: Java's lazy '?' matches the same whole names (drop
  // it); possessive '+' can make a match fail (refuse).
  absl::Status QuantifierSuffix() {
    if (i_ < s_.size() && s_[i_] == '?') {
      ++i_;
    } else if (i_ < s_.size() && s_[i_] == '+') {
      return Unsupported("a possessive quantifier (*+, ++, ?+, {n}+)");
    }
    return absl::OkStatus();
  }

  absl::Status Braces() {
    size_t end = s_.find('}', i_);
    if (end == absl::string_view::npos) return Unsupported("'{'", "unclosed repetition");
    absl::string_view body = s_.substr(i_, end - i_);
    bool ok = !body.empty() && absl::ascii_isdigit(static_cast<unsigned char>(body[0]));
    int commas = 0;
    for (char c : body) {
      if (c == ',') {
        ++commas;
      } else if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) {
        ok = false;
      }
    }
    if (!ok || commas > 1) return Unsupported(absl::StrCat("{", body, "}"), "not a repetition");
    absl::StrAppend(&out_, "{", body, "}");
    i_ = end + 1;
    return QuantifierSuffix();
  }

  absl::string_view s_;
  size_t i_ = 0;
  std::string out_;
};

}  // namespace

absl::StatusOr<std::string> TopicSubscription(absl::string_view java_regex) {
  if (java_regex.empty()) return absl::InvalidArgumentError("SOURCE_KAFKA_TOPIC is empty");
  bool plain = true;
  for (char c : java_regex) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') plain = false;
  }
  if (plain) return std::string(java_regex);
  auto body = TopicRegex(java_regex).Translate();
  if (!body.ok()) return body.status();
  std::string ere = absl::StrCat("^(", *body, ")$");
  // librdkafka compiles subscriptions with regcomp(REG_EXTENDED); check here
  // so that a pattern it would reject fails at start, naming the variable.
  regex_t re;
  int rc = regcomp(&re, ere.c_str(), REG_EXTENDED | REG_NOSUB);
  if (rc != 0) {
    char err[256];
    regerror(rc, &re, err, sizeof(err));
    return absl::InvalidArgumentError(
        absl::StrCat("SOURCE_KAFKA_TOPIC: ", java_regex, " (as POSIX ", ere, "): ", err));
  }
  regfree(&re);
  return ere;
}

}  // namespace sluice::sink
