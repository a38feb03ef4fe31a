#include "sink/sinks/common/proto_values.h"

#include <charconv>
#include <set>
#include <cstdio>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "google/protobuf/descriptor.pb.h"
#include "google/protobuf/util/json_util.h"
#include "nlohmann/json.hpp"
#include "sink/sinks/common/json_text.h"

namespace sluice::sink {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using PbMessage = google::protobuf::Message;
using google::protobuf::Reflection;

absl::Status Walk(const nlohmann::json& obj, const Descriptor* d,
                  std::vector<const FieldDescriptor*>* prefix, absl::string_view variable,
                  std::vector<ColumnMapping>* out) {
  if (!obj.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(variable, " must be a JSON object"));
  }
  std::vector<std::pair<int, const nlohmann::json*>> entries;
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    int number;
    if (!absl::SimpleAtoi(it.key(), &number)) {
      return absl::InvalidArgumentError(
          absl::StrCat(variable, ": key \"", it.key(), "\" is not a field number"));
    }
    entries.emplace_back(number, &it.value());
  }
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [number, value] : entries) {
    const FieldDescriptor* f = d->FindFieldByNumber(number);
    if (f == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(variable, ": ", d->full_name(),
                                                     " has no field number ", number));
    }
    prefix->push_back(f);
    if (value->is_string()) {
      out->push_back(ColumnMapping{*prefix, value->get<std::string>()});
    } else if (value->is_object()) {
      if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE || f->is_repeated()) {
        return absl::InvalidArgumentError(absl::StrCat(variable, ": field ", f->full_name(),
                                                       " is not a singular message"));
      }
      absl::Status s = Walk(*value, f->message_type(), prefix, variable, out);
      if (!s.ok()) return s;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          variable, ": value for field ", number, " must be a column name or an object"));
    }
    prefix->pop_back();
  }
  return absl::OkStatus();
}

std::string Double(double v) {
  char buf[32];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, res.ptr);
}

// RFC 3339 UTC of a Timestamp, with the fraction trimmed to ms/us/ns as
// needed. Hand-rolled (days-to-civil, H. Hinnant) because absl::FormatTime is
// the slowest step of a jdbc row.
std::string TimestampText(const PbMessage& ts) {
  const Descriptor* d = ts.GetDescriptor();
  const Reflection* r = ts.GetReflection();
  int64_t seconds = r->GetInt64(ts, d->FindFieldByNumber(1));
  int32_t nanos = r->GetInt32(ts, d->FindFieldByNumber(2));
  int64_t days = seconds >= 0 ? seconds / 86400 : -((-seconds + 86399) / 86400);
  int64_t sod = seconds - days * 86400;
  int64_t z = days + 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = yoe + era * 400;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  int64_t day = doy - (153 * mp + 2) / 5 + 1;
  int64_t month = mp < 10 ? mp + 3 : mp - 9;
  if (month <= 2) ++y;
  char buf[48];
  int n = std::snprintf(buf, sizeof(buf), "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld",
                        static_cast<long long>(y), static_cast<long long>(month),
                        static_cast<long long>(day), static_cast<long long>(sod / 3600),
                        static_cast<long long>(sod / 60 % 60), static_cast<long long>(sod % 60));
  std::string out(buf, n);
  if (nanos > 0 && nanos < 1000000000) {
    char frac[16];
    std::snprintf(frac, sizeof(frac), ".%09d", nanos);
    size_t len = 10;
    while (len > 1 && frac[len - 1] == '0') --len;
    out.append(frac, len);
  }
  out.push_back('Z');
  return out;
}

// JSON of one value (element `index` of a repeated field, or the singular field).
nlohmann::json ValueJson(const PbMessage& m, const FieldDescriptor* f, int index) {
  const Reflection* r = m.GetReflection();
  const bool rep = index >= 0;
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      return rep ? r->GetRepeatedInt32(m, f, index) : r->GetInt32(m, f);
    case FieldDescriptor::CPPTYPE_INT64:
      return rep ? r->GetRepeatedInt64(m, f, index) : r->GetInt64(m, f);
    case FieldDescriptor::CPPTYPE_UINT32:
      return rep ? r->GetRepeatedUInt32(m, f, index) : r->GetUInt32(m, f);
    case FieldDescriptor::CPPTYPE_UINT64:
      return rep ? r->GetRepeatedUInt64(m, f, index) : r->GetUInt64(m, f);
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return rep ? r->GetRepeatedDouble(m, f, index) : r->GetDouble(m, f);
    case FieldDescriptor::CPPTYPE_FLOAT:
      return rep ? r->GetRepeatedFloat(m, f, index) : r->GetFloat(m, f);
    case FieldDescriptor::CPPTYPE_BOOL:
      return rep ? r->GetRepeatedBool(m, f, index) : r->GetBool(m, f);
    case FieldDescriptor::CPPTYPE_ENUM: {
      int n = rep ? r->GetRepeatedEnumValue(m, f, index) : r->GetEnumValue(m, f);
      const auto* v = f->enum_type()->FindValueByNumber(n);
      if (v != nullptr) return v->name();
      return n;
    }
    case FieldDescriptor::CPPTYPE_STRING: {
      std::string s = rep ? r->GetRepeatedString(m, f, index) : r->GetString(m, f);
      if (f->type() == FieldDescriptor::TYPE_BYTES) return absl::Base64Escape(s);
      return s;
    }
    case FieldDescriptor::CPPTYPE_MESSAGE: {
      const PbMessage& sub = rep ? r->GetRepeatedMessage(m, f, index) : r->GetMessage(m, f);
      if (IsTimestamp(sub.GetDescriptor())) return TimestampText(sub);
      return nlohmann::json::parse(MessageJson(sub), nullptr, false);
    }
  }
  return nullptr;
}

}  // namespace

bool IsTimestamp(const Descriptor* d) {
  return d != nullptr && d->full_name() == "google.protobuf.Timestamp";
}

std::string MessageJson(const PbMessage& message, bool with_defaults) {
  google::protobuf::util::JsonPrintOptions opts;
  opts.preserve_proto_field_names = true;
  opts.always_print_primitive_fields = with_defaults;
  std::string out;
  if (!google::protobuf::util::MessageToJsonString(message, &out, opts).ok()) return "{}";
  return out;
}

absl::StatusOr<std::vector<ColumnMapping>> ParseColumnMapping(absl::string_view json,
                                                              const Descriptor* descriptor,
                                                              absl::string_view variable) {
  nlohmann::json parsed =
      nlohmann::json::parse(json.begin(), json.end(), nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    return absl::InvalidArgumentError(absl::StrCat(variable, " is not valid JSON"));
  }
  std::vector<ColumnMapping> out;
  std::vector<const FieldDescriptor*> prefix;
  absl::Status s = Walk(parsed, descriptor, &prefix, variable, &out);
  if (!s.ok()) return s;
  if (out.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(variable, " maps no columns"));
  }
  return out;
}

absl::StatusOr<std::optional<std::string>> FieldValueText(
    const PbMessage& root, const std::vector<const FieldDescriptor*>& path, ValueKind* kind) {
  if (kind != nullptr) *kind = ValueKind::kText;
  const PbMessage* m = &root;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    m = &m->GetReflection()->GetMessage(*m, path[i]);
  }
  const FieldDescriptor* f = path.back();
  const Reflection* r = m->GetReflection();
  if (f->is_map() || f->is_repeated()) {
    if (kind != nullptr) *kind = ValueKind::kJson;
    int n = r->FieldSize(*m, f);
    nlohmann::json out = f->is_map() ? nlohmann::json::object() : nlohmann::json::array();
    for (int i = 0; i < n; ++i) {
      if (f->is_map()) {
        const PbMessage& entry = r->GetRepeatedMessage(*m, f, i);
        const Descriptor* ed = entry.GetDescriptor();
        nlohmann::json key = ValueJson(entry, ed->map_key(), -1);
        // Map keys are strings, integers or bools: only a string can be bad
        // UTF-8, and the dump below reports it.
        std::string k = key.is_string() ? key.get<std::string>() : key.dump();
        out[k] = ValueJson(entry, ed->map_value(), -1);
      } else {
        out.push_back(ValueJson(*m, f, i));
      }
    }
    // proto2 does not validate UTF-8 on parse, so a string element may hold
    // any bytes; dump() would throw on them.
    auto text = DumpJson(out, absl::StrCat("field ", f->name()));
    if (!text.ok()) return text.status();
    return std::optional<std::string>(*std::move(text));
  }
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_MESSAGE: {
      if (!r->HasField(*m, f)) return std::nullopt;
      const PbMessage& sub = r->GetMessage(*m, f);
      if (IsTimestamp(sub.GetDescriptor())) return TimestampText(sub);
      if (kind != nullptr) *kind = ValueKind::kJson;
      return MessageJson(sub);
    }
    case FieldDescriptor::CPPTYPE_STRING:
      if (f->type() == FieldDescriptor::TYPE_BYTES) return absl::Base64Escape(r->GetString(*m, f));
      return r->GetString(*m, f);
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return Double(r->GetDouble(*m, f));
    case FieldDescriptor::CPPTYPE_FLOAT:
      return Double(r->GetFloat(*m, f));
    default: {
      nlohmann::json v = ValueJson(*m, f, -1);
      return v.is_string() ? v.get<std::string>() : v.dump();
    }
  }
}

absl::StatusOr<std::optional<std::string>> FieldValueTextByNumbers(
    const PbMessage& root, const std::vector<int>& numbers, ValueKind* kind) {
  std::vector<const FieldDescriptor*> path;
  path.reserve(numbers.size());
  const Descriptor* d = root.GetDescriptor();
  for (size_t i = 0; i < numbers.size(); ++i) {
    const FieldDescriptor* f = d == nullptr ? nullptr : d->FindFieldByNumber(numbers[i]);
    if (f == nullptr) return std::optional<std::string>();
    if (i + 1 < numbers.size() &&
        (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE || f->is_repeated())) {
      return std::optional<std::string>();
    }
    path.push_back(f);
    d = f->message_type();
  }
  return FieldValueText(root, path, kind);
}

namespace {

void CollectFiles(const google::protobuf::FileDescriptor* f,
                  std::set<const google::protobuf::FileDescriptor*>* seen,
                  std::vector<google::protobuf::FileDescriptorProto>* out) {
  if (!seen->insert(f).second) return;
  for (int i = 0; i < f->dependency_count(); ++i) CollectFiles(f->dependency(i), seen, out);
  out->emplace_back();
  f->CopyTo(&out->back());  // dependencies first: BuildFile needs them
}

}  // namespace

absl::StatusOr<std::unique_ptr<OwnedDescriptor>> OwnedDescriptor::Copy(const Descriptor* d) {
  std::set<const google::protobuf::FileDescriptor*> seen;
  std::vector<google::protobuf::FileDescriptorProto> files;
  CollectFiles(d->file(), &seen, &files);
  auto owned = std::make_unique<OwnedDescriptor>();
  owned->pool_ = std::make_unique<google::protobuf::DescriptorPool>();
  for (const auto& f : files) {
    if (owned->pool_->BuildFile(f) == nullptr) {
      return absl::InternalError(absl::StrCat("cannot copy schema file ", f.name()));
    }
  }
  owned->descriptor_ = owned->pool_->FindMessageTypeByName(d->full_name());
  if (owned->descriptor_ == nullptr) {
    return absl::InternalError(absl::StrCat("cannot copy message type ", d->full_name()));
  }
  return owned;
}

}  // namespace sluice::sink
