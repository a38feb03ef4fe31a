#include "sink/sinks/common/record_fields.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "nlohmann/json.hpp"
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

namespace {

using Typed = RecordField::Typed;

std::optional<Typed> TypedJson(const nlohmann::json& record, const std::vector<std::string>& path) {
  const nlohmann::json* node = JsonMemberAt(record, path);
  if (node == nullptr) return std::nullopt;
  if (node->is_boolean()) return Typed{Typed::Kind::kBool, node->get<bool>() ? "true" : "false"};
  if (node->is_number_integer()) return Typed{Typed::Kind::kInt, node->dump()};
  if (node->is_number_float()) return Typed{Typed::Kind::kDouble, node->dump()};
  if (node->is_string()) return Typed{Typed::Kind::kString, node->get<std::string>()};
  return Typed{Typed::Kind::kString, node->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)};
}

// Timestamp/Duration as milliseconds (seconds * 1000 + nanos / 1e6).
std::string Millis(const google::protobuf::Message& m) {
  const auto* d = m.GetDescriptor();
  const auto* r = m.GetReflection();
  int64_t seconds = r->GetInt64(m, d->FindFieldByName("seconds"));
  int32_t nanos = r->GetInt32(m, d->FindFieldByName("nanos"));
  return std::to_string(seconds * 1000 + nanos / 1000000);
}

}  // namespace

absl::StatusOr<std::optional<Typed>> RecordField::ReadTyped(const Message& m) const {
  if (json_) {
    if (m.json == nullptr) return absl::InvalidArgumentError("the record was not decoded as JSON");
    return TypedJson(*m.json, names_);
  }
  if (m.decoded == nullptr) return absl::InvalidArgumentError("the record was not decoded as protobuf");
  // Walk to the last field against the message's own descriptor.
  namespace pb = google::protobuf;
  const pb::Message* msg = m.decoded.get();
  const pb::FieldDescriptor* f = nullptr;
  std::vector<const pb::FieldDescriptor*> path;  // for the text rendering below
  path.reserve(numbers_.size());
  for (size_t i = 0; i < numbers_.size(); ++i) {
    f = msg->GetDescriptor()->FindFieldByNumber(numbers_[i]);
    if (f == nullptr) return std::optional<Typed>();
    path.push_back(f);
    if (i + 1 < numbers_.size()) {
      if (f->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE || f->is_repeated()) {
        return std::optional<Typed>();
      }
      msg = &msg->GetReflection()->GetMessage(*msg, f);
    }
  }
  const pb::Reflection* r = msg->GetReflection();
  if (!f->is_repeated()) {
    switch (f->cpp_type()) {
      case pb::FieldDescriptor::CPPTYPE_INT32: return Typed{Typed::Kind::kInt, std::to_string(r->GetInt32(*msg, f))};
      case pb::FieldDescriptor::CPPTYPE_INT64: return Typed{Typed::Kind::kInt, std::to_string(r->GetInt64(*msg, f))};
      case pb::FieldDescriptor::CPPTYPE_UINT32: return Typed{Typed::Kind::kInt, std::to_string(r->GetUInt32(*msg, f))};
      case pb::FieldDescriptor::CPPTYPE_UINT64: return Typed{Typed::Kind::kInt, std::to_string(r->GetUInt64(*msg, f))};
      case pb::FieldDescriptor::CPPTYPE_BOOL: return Typed{Typed::Kind::kBool, r->GetBool(*msg, f) ? "true" : "false"};
      case pb::FieldDescriptor::CPPTYPE_MESSAGE: {
        const std::string& type = f->message_type()->full_name();
        if (type == "google.protobuf.Timestamp" || type == "google.protobuf.Duration") {
          if (!r->HasField(*msg, f)) return std::optional<Typed>();
          return Typed{Typed::Kind::kInt, Millis(r->GetMessage(*msg, f)), /*time_ms=*/true};
        }
        break;
      }
      default: break;
    }
  }
  // Strings, enums, floats, messages and lists: proto_values' rendering, on
  // the path already resolved against this message's descriptors.
  auto text = FieldValueText(*m.decoded, path);
  if (!text.ok()) return absl::InvalidArgumentError(absl::StrCat(spec_, ": ", text.status().message()));
  if (!text->has_value()) return std::optional<Typed>();
  bool floating = !f->is_repeated() && (f->cpp_type() == pb::FieldDescriptor::CPPTYPE_DOUBLE ||
                                        f->cpp_type() == pb::FieldDescriptor::CPPTYPE_FLOAT);
  return Typed{floating ? Typed::Kind::kDouble : Typed::Kind::kString, **text};
}

namespace {

absl::Status Flatten(const nlohmann::json& node, const std::string& prefix,
                     const google::protobuf::Descriptor* d, absl::string_view variable,
                     std::vector<NamedField>* out) {
  for (auto it = node.begin(); it != node.end(); ++it) {
    std::string spec = prefix.empty() ? it.key() : absl::StrCat(prefix, ".", it.key());
    if (it.value().is_object()) {
      if (absl::Status s = Flatten(it.value(), spec, d, variable, out); !s.ok()) return s;
      continue;
    }
    if (!it.value().is_string() || it.value().get_ref<const std::string&>().empty()) {
      return Bad(variable, spec, "must map to a name or a nested object");
    }
    auto f = RecordField::Parse(spec, d, variable);
    if (!f.ok()) return f.status();
    out->push_back({*std::move(f), it.value().get<std::string>()});
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<NamedField>> ParseFieldMapping(absl::string_view text,
                                                          const google::protobuf::Descriptor* descriptor,
                                                          absl::string_view variable, bool non_empty) {
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object() || (non_empty && doc.empty())) {
    return absl::InvalidArgumentError(absl::StrCat(variable, " must be a ", non_empty ? "non-empty " : "",
                                                   "JSON object such as {\"2\":\"order_number\"}"));
  }
  std::vector<NamedField> out;
  if (absl::Status s = Flatten(doc, "", descriptor, variable, &out); !s.ok()) return s;
  return out;
}

absl::Status ParseFieldMappingVariable(const Env& env, absl::string_view variable,
                                       const google::protobuf::Descriptor* descriptor, bool required,
                                       std::vector<NamedField>* out) {
  auto text = env.Get(variable);
  if (!text) {
    return required ? absl::InvalidArgumentError(absl::StrCat(variable, " is required")) : absl::OkStatus();
  }
  auto parsed = ParseFieldMapping(*text, descriptor, variable, required);
  if (!parsed.ok()) return parsed.status();
  *out = *std::move(parsed);
  return absl::OkStatus();
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
