#include "sink/sinks/bigquery/bigquery_schema.h"

#include <cmath>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "google/protobuf/util/json_util.h"

namespace sluice::sink::bigquery {
namespace {

namespace pb = google::protobuf;
using FD = pb::FieldDescriptor;

// BigQuery allows 15 levels of nested RECORDs.
constexpr int kMaxDepth = 15;

std::string FieldType(const FD* f) {
  switch (f->type()) {
    case FD::TYPE_BYTES: return "BYTES";
    case FD::TYPE_STRING:
    case FD::TYPE_ENUM: return "STRING";
    case FD::TYPE_DOUBLE:
    case FD::TYPE_FLOAT: return "FLOAT";
    case FD::TYPE_BOOL: return "BOOLEAN";
    case FD::TYPE_MESSAGE:
    case FD::TYPE_GROUP: {
      const std::string& name = f->message_type()->full_name();
      if (name == "google.protobuf.Timestamp") return "TIMESTAMP";
      if (name == "google.protobuf.Struct") return "STRING";
      return "RECORD";
    }
    default: return "INTEGER";
  }
}

std::string FieldMode(const FD* f) {
  if (f->is_repeated()) return "REPEATED";
  if (f->is_required()) return "REQUIRED";
  return "NULLABLE";
}

nlohmann::json Fields(const pb::Descriptor* d, int depth) {
  nlohmann::json out = nlohmann::json::array();
  for (int i = 0; i < d->field_count(); ++i) {
    const FD* f = d->field(i);
    nlohmann::json field = {{"name", f->name()}, {"type", FieldType(f)}, {"mode", FieldMode(f)}};
    if (field["type"] == "RECORD") {
      if (depth + 1 >= kMaxDepth) continue;
      field["fields"] = Fields(f->message_type(), depth + 1);
    }
    out.push_back(std::move(field));
  }
  return out;
}

const std::set<std::string>& MetadataNames() {
  static const auto* names = new std::set<std::string>{
      "message_offset", "message_partition", "message_topic", "message_timestamp", "load_time", "message_key"};
  return *names;
}

const std::set<std::string>& BigQueryTypes() {
  static const auto* types = new std::set<std::string>{
      "STRING", "BYTES", "INTEGER", "INT64", "FLOAT", "FLOAT64", "NUMERIC", "BIGNUMERIC", "BOOLEAN",
      "BOOL", "TIMESTAMP", "DATE", "TIME", "DATETIME", "GEOGRAPHY", "JSON"};
  return *types;
}

// "a=b,c=d" → pairs; InvalidArgument naming `variable` on a malformed entry.
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> Pairs(absl::string_view spec,
                                                                       absl::string_view variable) {
  std::vector<std::pair<std::string, std::string>> out;
  for (absl::string_view entry : absl::StrSplit(spec, ',', absl::SkipWhitespace())) {
    std::vector<std::string> kv = absl::StrSplit(entry, absl::MaxSplits('=', 1));
    if (kv.size() != 2) {
      return absl::InvalidArgumentError(absl::StrCat(variable, ": \"", entry, "\" is not name=type"));
    }
    std::string name(absl::StripAsciiWhitespace(kv[0]));
    std::string type = absl::AsciiStrToUpper(absl::StripAsciiWhitespace(kv[1]));
    if (name.empty() || !BigQueryTypes().count(type)) {
      return absl::InvalidArgumentError(
          absl::StrCat(variable, ": \"", entry, "\" needs a column name and a BigQuery type"));
    }
    out.emplace_back(std::move(name), std::move(type));
  }
  return out;
}

// Appends `s` as a JSON string (nlohmann's escaping). InvalidArgument naming
// `field` when `s` is not UTF-8 (possible in proto2 and in bytes of keys).
absl::Status AppendString(absl::string_view s, const FD* field, std::string* out) {
  try {
    out->append(nlohmann::json(std::string(s)).dump());
  } catch (const nlohmann::json::exception&) {
    return absl::InvalidArgumentError(absl::StrCat("field ", field->full_name(), " is not valid UTF-8"));
  }
  return absl::OkStatus();
}

absl::Status AppendRow(const pb::Message& message, std::string* out);

absl::Status AppendMessage(const pb::Message& sub, const FD* f, std::string* out) {
  const std::string& name = sub.GetDescriptor()->full_name();
  if (name == "google.protobuf.Timestamp") {
    const pb::Reflection* r = sub.GetReflection();
    const pb::Descriptor* d = sub.GetDescriptor();
    int64_t seconds = r->GetInt64(sub, d->FindFieldByNumber(1));
    int32_t nanos = r->GetInt32(sub, d->FindFieldByNumber(2));
    absl::StrAppend(out, "\"", TimestampText(absl::FromUnixSeconds(seconds) + absl::Nanoseconds(nanos)), "\"");
    return absl::OkStatus();
  }
  if (name == "google.protobuf.Struct") {
    std::string json;
    if (!pb::util::MessageToJsonString(sub, &json).ok()) {
      return absl::InvalidArgumentError(absl::StrCat("field ", f->full_name(), " is not a valid Struct"));
    }
    return AppendString(json, f, out);
  }
  return AppendRow(sub, out);
}

// Appends the value of a singular field, or element `index` (>= 0) of a
// repeated one.
absl::Status AppendValue(const pb::Message& m, const FD* f, int index, std::string* out) {
  const pb::Reflection* r = m.GetReflection();
  const bool rep = index >= 0;
  switch (f->cpp_type()) {
    case FD::CPPTYPE_INT32: absl::StrAppend(out, rep ? r->GetRepeatedInt32(m, f, index) : r->GetInt32(m, f)); break;
    case FD::CPPTYPE_INT64: absl::StrAppend(out, rep ? r->GetRepeatedInt64(m, f, index) : r->GetInt64(m, f)); break;
    case FD::CPPTYPE_UINT32: absl::StrAppend(out, rep ? r->GetRepeatedUInt32(m, f, index) : r->GetUInt32(m, f)); break;
    case FD::CPPTYPE_UINT64: absl::StrAppend(out, rep ? r->GetRepeatedUInt64(m, f, index) : r->GetUInt64(m, f)); break;
    case FD::CPPTYPE_BOOL: out->append((rep ? r->GetRepeatedBool(m, f, index) : r->GetBool(m, f)) ? "true" : "false"); break;
    case FD::CPPTYPE_DOUBLE:
    case FD::CPPTYPE_FLOAT: {
      double v = f->cpp_type() == FD::CPPTYPE_DOUBLE
                     ? (rep ? r->GetRepeatedDouble(m, f, index) : r->GetDouble(m, f))
                     : (rep ? r->GetRepeatedFloat(m, f, index) : r->GetFloat(m, f));
      if (!std::isfinite(v)) {
        return absl::InvalidArgumentError(absl::StrCat("field ", f->full_name(), " is NaN or infinite"));
      }
      out->append(nlohmann::json(v).dump());  // shortest round-trip form
      break;
    }
    case FD::CPPTYPE_ENUM: {
      int number = rep ? r->GetRepeatedEnumValue(m, f, index) : r->GetEnumValue(m, f);
      const pb::EnumValueDescriptor* e = f->enum_type()->FindValueByNumber(number);
      absl::StrAppend(out, "\"", e != nullptr ? e->name() : std::to_string(number), "\"");
      break;
    }
    case FD::CPPTYPE_STRING: {
      std::string scratch;
      const std::string& s = rep ? r->GetRepeatedStringReference(m, f, index, &scratch)
                                 : r->GetStringReference(m, f, &scratch);
      if (f->type() == FD::TYPE_BYTES) {
        absl::StrAppend(out, "\"", absl::Base64Escape(s), "\"");
        break;
      }
      return AppendString(s, f, out);
    }
    case FD::CPPTYPE_MESSAGE:
      return AppendMessage(rep ? r->GetRepeatedMessage(m, f, index) : r->GetMessage(m, f), f, out);
  }
  return absl::OkStatus();
}

absl::Status AppendRow(const pb::Message& message, std::string* out) {
  std::vector<const FD*> set;
  message.GetReflection()->ListFields(message, &set);
  out->push_back('{');
  for (size_t k = 0; k < set.size(); ++k) {
    const FD* f = set[k];
    absl::StrAppend(out, k ? ",\"" : "\"", f->name(), "\":");  // proto names need no escaping
    if (!f->is_repeated()) {
      if (absl::Status s = AppendValue(message, f, -1, out); !s.ok()) return s;
      continue;
    }
    out->push_back('[');
    int n = message.GetReflection()->FieldSize(message, f);
    for (int i = 0; i < n; ++i) {
      if (i) out->push_back(',');
      if (absl::Status s = AppendValue(message, f, i, out); !s.ok()) return s;
    }
    out->push_back(']');
  }
  out->push_back('}');
  return absl::OkStatus();
}

}  // namespace

nlohmann::json ProtoSchema(const pb::Descriptor* d) { return Fields(d, 0); }

absl::StatusOr<std::vector<MetadataColumn>> ParseMetadataColumns(absl::string_view spec,
                                                                 absl::string_view variable) {
  auto pairs = Pairs(spec, variable);
  if (!pairs.ok()) return pairs.status();
  std::vector<MetadataColumn> out;
  for (auto& [name, type] : *pairs) {
    if (!MetadataNames().count(name)) {
      return absl::InvalidArgumentError(absl::StrCat(
          variable, ": unknown metadata column \"", name,
          "\" (known: message_offset, message_partition, message_topic, message_timestamp, load_time, "
          "message_key)"));
    }
    out.push_back({name, type});
  }
  return out;
}

nlohmann::json MetadataSchema(const std::vector<MetadataColumn>& columns, const std::string& ns) {
  nlohmann::json fields = nlohmann::json::array();
  for (const MetadataColumn& c : columns) {
    fields.push_back({{"name", c.name}, {"type", c.type}, {"mode", "NULLABLE"}});
  }
  if (ns.empty()) return fields;
  return nlohmann::json::array({{{"name", ns}, {"type", "RECORD"}, {"mode", "NULLABLE"}, {"fields", fields}}});
}

absl::StatusOr<nlohmann::json> ParseDefaultColumns(absl::string_view spec, absl::string_view variable) {
  auto pairs = Pairs(spec, variable);
  if (!pairs.ok()) return pairs.status();
  nlohmann::json fields = nlohmann::json::array();
  for (auto& [name, type] : *pairs) fields.push_back({{"name", name}, {"type", type}, {"mode", "NULLABLE"}});
  return fields;
}

nlohmann::json JsonColumn(const std::string& name, const nlohmann::json& value, bool all_strings) {
  std::string type = "STRING";
  if (!all_strings) {
    if (value.is_boolean()) type = "BOOLEAN";
    else if (value.is_number_integer()) type = "INTEGER";
    else if (value.is_number()) type = "FLOAT";
  }
  return {{"name", name}, {"type", type}, {"mode", "NULLABLE"}};
}

bool MergeSchema(nlohmann::json* fields, const nlohmann::json& wanted) {
  bool changed = false;
  for (const nlohmann::json& w : wanted) {
    nlohmann::json* have = nullptr;
    for (nlohmann::json& f : *fields) {
      if (f.value("name", "") == w.value("name", "")) have = &f;
    }
    if (have == nullptr) {
      nlohmann::json add = w;
      // A new column cannot be REQUIRED in an existing table.
      if (add.value("mode", "") == "REQUIRED") add["mode"] = "NULLABLE";
      fields->push_back(std::move(add));
      changed = true;
    } else if (w.contains("fields") && have->value("type", "") == "RECORD") {
      if (!have->contains("fields")) (*have)["fields"] = nlohmann::json::array();
      changed |= MergeSchema(&(*have)["fields"], w["fields"]);
    }
  }
  return changed;
}

absl::StatusOr<std::string> ProtoRow(const pb::Message& message) {
  std::string out;
  if (absl::Status s = AppendRow(message, &out); !s.ok()) return s;
  return out;
}

absl::StatusOr<nlohmann::json> JsonRow(const nlohmann::json& record, bool all_strings) {
  if (!record.is_object()) return absl::InvalidArgumentError("the JSON record is not an object");
  nlohmann::json row = nlohmann::json::object();
  for (auto it = record.begin(); it != record.end(); ++it) {
    const nlohmann::json& v = it.value();
    if (v.is_null()) continue;
    if (v.is_string()) {
      row[it.key()] = v;
    } else if (v.is_object() || v.is_array() || all_strings) {
      row[it.key()] = v.dump();
    } else {
      row[it.key()] = v;
    }
  }
  return row;
}

void AddMetadata(nlohmann::json* row, const Message& m, const std::vector<MetadataColumn>& columns,
                 const std::string& ns, const std::string& load_time) {
  nlohmann::json meta = nlohmann::json::object();
  for (const MetadataColumn& c : columns) {
    if (c.name == "message_offset") meta[c.name] = m.offset;
    else if (c.name == "message_partition") meta[c.name] = m.partition;
    else if (c.name == "message_topic") meta[c.name] = m.topic;
    else if (c.name == "message_timestamp") meta[c.name] = TimestampText(absl::FromUnixMillis(m.timestamp_ms));
    else if (c.name == "load_time") meta[c.name] = load_time;
    else if (c.name == "message_key" && m.key.has_value()) {
      meta[c.name] = c.type == "BYTES" ? absl::Base64Escape(*m.key) : *m.key;
    }
  }
  if (ns.empty()) {
    for (auto it = meta.begin(); it != meta.end(); ++it) (*row)[it.key()] = it.value();
  } else {
    (*row)[ns] = std::move(meta);
  }
}

std::string TimestampText(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", t, absl::UTCTimeZone());
}

}  // namespace sluice::sink::bigquery
