#include "sink/sinks/httpv2/value_template.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "common/http_client.h"
#include "sink/sinks/common/json_values.h"
#include "sink/sinks/common/proto_values.h"

namespace sluice::sink {
namespace {

namespace pb = google::protobuf;

absl::Status Bad(absl::string_view variable, absl::string_view text, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(variable, ": template \"", text, "\" ", why));
}

// depot splits with Splitter.onPattern("(?<!/,),(?!/)"): a comma preceded by
// "/," or followed by '/' does not split.
std::vector<std::string> SplitTemplate(absl::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  for (size_t i = 0; i < text.size(); ++i) {
    bool split = text[i] == ',' && !(i >= 2 && text.substr(i - 2, 2) == "/,") &&
                 !(i + 1 < text.size() && text[i + 1] == '/');
    if (!split) {
      cur.push_back(text[i]);
      continue;
    }
    out.push_back(std::move(cur));
    cur.clear();
  }
  out.push_back(std::move(cur));
  std::vector<std::string> trimmed;
  for (std::string& s : out) {
    std::string t(absl::StripAsciiWhitespace(s));
    if (!t.empty()) trimmed.push_back(std::move(t));
  }
  return trimmed;
}

}  // namespace

absl::StatusOr<ValueTemplate> ValueTemplate::Parse(absl::string_view text,
                                                   const pb::Descriptor* descriptor,
                                                   absl::string_view variable) {
  std::vector<std::string> parts = SplitTemplate(text);
  if (parts.empty()) return Bad(variable, text, "is empty");
  ValueTemplate t;
  t.pattern_ = absl::StrReplaceAll(parts[0], {{"/,/", ","}});
  t.pieces_ = absl::StrSplit(t.pattern_, "%s");
  size_t percents = std::count(t.pattern_.begin(), t.pattern_.end(), '%');
  size_t values = parts.size() - 1;
  if (percents != values || t.pieces_.size() - 1 != values) {
    return Bad(variable, text,
               absl::StrCat("is not valid: ", percents, " '%' and ", t.pieces_.size() - 1,
                            " %s in the pattern, ", values, " field(s)"));
  }
  for (size_t i = 1; i < parts.size(); ++i) {
    Field f;
    f.spec = parts[i];
    std::vector<std::string> steps = absl::StrSplit(f.spec, '.');
    if (descriptor == nullptr) {
      f.names = std::move(steps);
      t.fields_.push_back(std::move(f));
      continue;
    }
    const pb::Descriptor* d = descriptor;
    const pb::FieldDescriptor* field = nullptr;
    for (size_t s = 0; s < steps.size(); ++s) {
      if (d == nullptr || (field != nullptr && field->is_repeated())) {
        return Bad(variable, text, absl::StrCat("field \"", f.spec, "\" goes through a field that is not a singular message"));
      }
      int number;
      field = absl::SimpleAtoi(steps[s], &number) ? d->FindFieldByNumber(number)
                                                   : d->FindFieldByName(steps[s]);
      if (field == nullptr) {
        return Bad(variable, text, absl::StrCat("field \"", f.spec, "\" names no field of ", d->full_name()));
      }
      f.numbers.push_back(field->number());
      d = field->message_type();
    }
    f.cpp_type = field->cpp_type();
    f.singular_message = !field->is_repeated() && field->message_type() != nullptr &&
                         !IsTimestamp(field->message_type());
    f.structured = field->is_repeated() ||
                   (field->message_type() != nullptr && !IsTimestamp(field->message_type()));
    t.fields_.push_back(std::move(f));
  }
  return t;
}

absl::StatusOr<std::string> ValueTemplate::FieldText(const Field& f, const RecordView& r) const {
  std::optional<std::string> text;
  if (!f.names.empty()) {
    if (r.json == nullptr) return absl::InvalidArgumentError("the record was not decoded as JSON");
    text = JsonFieldText(*r.json, f.names);
  } else {
    if (r.proto == nullptr) return absl::InvalidArgumentError("the record was not decoded as protobuf");
    auto v = FieldValueTextByNumbers(*r.proto, f.numbers);
    if (!v.ok()) return absl::InvalidArgumentError(absl::StrCat(f.spec, ": ", v.status().message()));
    text = *std::move(v);
  }
  if (!text) return absl::InvalidArgumentError(absl::StrCat("field \"", f.spec, "\" is absent"));
  return *std::move(text);
}

absl::StatusOr<nlohmann::json> ValueTemplate::FieldJson(const Field& f, const RecordView& r,
                                                        bool with_defaults) const {
  if (!f.names.empty()) {
    if (r.json == nullptr) return absl::InvalidArgumentError("the record was not decoded as JSON");
    const nlohmann::json* node = JsonMemberAt(*r.json, f.names);
    if (node == nullptr || node->is_null()) {
      return absl::InvalidArgumentError(absl::StrCat("field \"", f.spec, "\" is absent"));
    }
    return *node;
  }
  auto text = FieldText(f, r);
  if (!text.ok()) return text.status();
  if (f.singular_message && with_defaults) {
    // Walk to the message by field number, against the record's own
    // descriptor (it may come from another pool than the one parsed against).
    const pb::Message* msg = r.proto;
    for (int number : f.numbers) {
      const pb::FieldDescriptor* fd = msg->GetDescriptor()->FindFieldByNumber(number);
      if (fd == nullptr || fd->message_type() == nullptr || fd->is_repeated()) break;
      msg = &msg->GetReflection()->GetMessage(*msg, fd);
    }
    auto parsed = nlohmann::json::parse(MessageJson(*msg, true), nullptr, false);
    if (!parsed.is_discarded()) return parsed;
  }
  if (f.structured) {
    auto parsed = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (!parsed.is_discarded()) return parsed;
    return nlohmann::json(*text);
  }
  switch (f.cpp_type) {
    case pb::FieldDescriptor::CPPTYPE_INT32:
    case pb::FieldDescriptor::CPPTYPE_INT64: {
      int64_t v;
      if (absl::SimpleAtoi(*text, &v)) return nlohmann::json(v);
      break;
    }
    case pb::FieldDescriptor::CPPTYPE_UINT32:
    case pb::FieldDescriptor::CPPTYPE_UINT64: {
      uint64_t v;
      if (absl::SimpleAtoi(*text, &v)) return nlohmann::json(v);
      break;
    }
    case pb::FieldDescriptor::CPPTYPE_FLOAT:
    case pb::FieldDescriptor::CPPTYPE_DOUBLE: {
      double v;
      if (absl::SimpleAtod(*text, &v) && std::isfinite(v)) return nlohmann::json(v);
      break;
    }
    case pb::FieldDescriptor::CPPTYPE_BOOL:
      return nlohmann::json(*text == "true");
    default:
      break;
  }
  return nlohmann::json(*text);
}

absl::StatusOr<std::string> ValueTemplate::RenderText(const RecordView& record,
                                                      bool url_escape) const {
  std::string out = pieces_[0];
  for (size_t i = 0; i < fields_.size(); ++i) {
    auto text = FieldText(fields_[i], record);
    if (!text.ok()) return text.status();
    absl::StrAppend(&out, url_escape ? UrlEscape(*text) : *text, pieces_[i + 1]);
  }
  return out;
}

absl::StatusOr<std::string> ValueTemplate::Render(const RecordView& record) const {
  return RenderText(record, /*url_escape=*/false);
}

absl::StatusOr<std::string> ValueTemplate::RenderUrl(const RecordView& record) const {
  return RenderText(record, /*url_escape=*/true);
}

absl::StatusOr<nlohmann::json> ValueTemplate::RenderJson(const RecordView& record,
                                                         bool with_defaults) const {
  if (fields_.size() == 1 && pattern_ == "%s") return FieldJson(fields_[0], record, with_defaults);
  auto text = Render(record);
  if (!text.ok()) return text.status();
  // depot strips one pair of surrounding quotes from a string result.
  std::string s = *std::move(text);
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  return nlohmann::json(std::move(s));
}

}  // namespace sluice::sink
