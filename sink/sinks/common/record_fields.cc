#include "sink/sinks/common/record_fields.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "sink/sinks/common/json_values.h"
#include "sink/sinks/common/proto_values.h"

namespace sluice::sink {
namespace {

absl::Status Bad(absl::string_view variable, absl::string_view spec, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(variable, ": \"", spec, "\" ", why));
}

}  // namespace

absl::StatusOr<RecordField> RecordField::Parse(absl::string_view spec,
                                               const google::protobuf::Descriptor* descriptor,
                                               absl::string_view variable) {
  RecordField f;
  f.spec_ = std::string(absl::StripAsciiWhitespace(spec));
  if (f.spec_.empty()) return Bad(variable, spec, "is empty");
  std::vector<std::string> parts = absl::StrSplit(f.spec_, '.');
  if (descriptor == nullptr) {
    f.json_ = true;
    int number;
    if (absl::SimpleAtoi(parts[0], &number)) {
      return Bad(variable, f.spec_, "is a proto field number, but the input is JSON: name the member");
    }
    f.names_ = std::move(parts);
    return f;
  }
  const google::protobuf::Descriptor* d = descriptor;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (d == nullptr) return Bad(variable, f.spec_, "goes through a field that is not a message");
    int number;
    const google::protobuf::FieldDescriptor* field =
        absl::SimpleAtoi(parts[i], &number) ? d->FindFieldByNumber(number) : d->FindFieldByName(parts[i]);
    if (field == nullptr) {
      return Bad(variable, f.spec_, absl::StrCat("names no field of ", d->full_name()));
    }
    if (i + 1 < parts.size() && (field->message_type() == nullptr || field->is_repeated())) {
      return Bad(variable, f.spec_, "goes through a field that is not a singular message");
    }
    f.numbers_.push_back(field->number());
    d = field->message_type();
  }
  return f;
}

absl::StatusOr<std::optional<std::string>> RecordField::Read(const Message& m) const {
  if (json_) {
    if (m.json == nullptr) return absl::InvalidArgumentError("the record was not decoded as JSON");
    return JsonFieldText(*m.json, names_);
  }
  if (m.decoded == nullptr) return absl::InvalidArgumentError("the record was not decoded as protobuf");
  auto v = FieldValueTextByNumbers(*m.decoded, numbers_);
  if (!v.ok()) return absl::InvalidArgumentError(absl::StrCat(spec_, ": ", v.status().message()));
  return v;
}

absl::StatusOr<FieldTemplate> FieldTemplate::Parse(absl::string_view text,
                                                   const google::protobuf::Descriptor* descriptor,
                                                   absl::string_view variable) {
  // depot splits on commas that are not part of "/,/".
  constexpr char kComma[] = "\x01";
  std::string escaped = absl::StrReplaceAll(text, {{"/,/", kComma}});
  std::vector<std::string> parts = absl::StrSplit(escaped, ',', absl::SkipWhitespace());
  if (parts.empty()) return Bad(variable, text, "is empty");
  FieldTemplate t;
  std::string pattern = absl::StrReplaceAll(absl::StripAsciiWhitespace(parts[0]), {{kComma, ","}});
  std::string piece;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%') {
      piece.push_back(pattern[i]);
    } else if (i + 1 < pattern.size() && pattern[i + 1] == '%') {
      piece.push_back('%');
      ++i;
    } else if (i + 1 < pattern.size() && pattern[i + 1] == 's') {
      t.pieces_.push_back(std::move(piece));
      piece.clear();
      ++i;
    } else {
      return Bad(variable, text, "has a placeholder other than %s (use %% for a percent sign)");
    }
  }
  t.pieces_.push_back(std::move(piece));
  for (size_t i = 1; i < parts.size(); ++i) {
    auto f = RecordField::Parse(parts[i], descriptor, variable);
    if (!f.ok()) return f.status();
    t.fields_.push_back(*std::move(f));
  }
  if (t.fields_.size() + 1 != t.pieces_.size()) {
    return Bad(variable, text,
               absl::StrCat("has ", t.pieces_.size() - 1, " %s placeholder(s) but ", t.fields_.size(),
                            " field(s)"));
  }
  return t;
}

absl::StatusOr<std::string> FieldTemplate::Render(const Message& m) const {
  std::string out = pieces_[0];
  for (size_t i = 0; i < fields_.size(); ++i) {
    auto v = fields_[i].Read(m);
    if (!v.ok()) return v.status();
    if (!v->has_value()) {
      return absl::InvalidArgumentError(absl::StrCat("field \"", fields_[i].spec(), "\" is absent"));
    }
    absl::StrAppend(&out, **v, pieces_[i + 1]);
  }
  return out;
}

}  // namespace sluice::sink
