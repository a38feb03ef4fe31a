#include "sink/filter/timestamp_filter.h"

#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "sink/sinks/common/proto_values.h"

namespace sluice::sink {
namespace {

namespace pb = google::protobuf;

// Types Firehose's extractTimestampValue reads: Java Long/Integer (every
// integer type), String, and google.protobuf.Timestamp.
bool SupportedField(const pb::FieldDescriptor* f) {
  if (f->is_repeated()) return false;
  switch (f->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_INT32:
    case pb::FieldDescriptor::CPPTYPE_INT64:
    case pb::FieldDescriptor::CPPTYPE_UINT32:
    case pb::FieldDescriptor::CPPTYPE_UINT64:
      return true;
    case pb::FieldDescriptor::CPPTYPE_STRING:
      return f->type() == pb::FieldDescriptor::TYPE_STRING;
    case pb::FieldDescriptor::CPPTYPE_MESSAGE:
      return IsTimestamp(f->message_type());
    default:
      return false;
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<TimestampFilter>> TimestampFilter::Create(
    const FilterConfig& filter, const SchemaConfig& schema, const SchemaRegistry* registry,
    std::function<absl::Time()> now) {
  if (registry == nullptr) {
    return absl::InvalidArgumentError(
        "FILTER_ENGINE=TIMESTAMP reads protobuf records: it needs INPUT_SCHEMA_DATA_TYPE=protobuf "
        "and FILTER_SCHEMA_PROTO_CLASS");
  }
  auto f = std::unique_ptr<TimestampFilter>(new TimestampFilter());
  auto reader = RecordReader::ForProto(filter, schema, registry);
  if (!reader.ok()) return reader.status();
  f->reader_ = *std::move(reader);
  f->field_ = filter.timestamp_field;
  f->past_seconds_ = filter.timestamp_past_window_seconds;
  f->future_seconds_ = filter.timestamp_future_window_seconds;
  f->key_ = filter.data_source_key;
  f->drop_errors_ = filter.drop_deserialization_error;
  f->now_ = std::move(now);
  f->SetDropDeserializationError(filter.drop_deserialization_error,
                                 "firehose_timestamp_filter_deserialization_errors_total");
  const pb::Descriptor* desc = *registry->Current()->FindMessage(filter.proto_class);
  const pb::FieldDescriptor* field = desc->FindFieldByName(f->field_);
  if (field == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("FILTER_TIMESTAMP_PROTO_FIELD_NAME: \"", f->field_,
                                                   "\" is not a field of ", desc->full_name()));
  }
  if (!SupportedField(field)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "FILTER_TIMESTAMP_PROTO_FIELD_NAME: field \"", f->field_, "\" of ", desc->full_name(),
        " must be a single integer (seconds), string or google.protobuf.Timestamp"));
  }
  return f;
}

absl::StatusOr<std::optional<int64_t>> TimestampFilter::Seconds(const pb::Message& record) const {
  const pb::FieldDescriptor* f = record.GetDescriptor()->FindFieldByName(field_);
  if (f == nullptr || !SupportedField(f)) {
    return absl::InvalidArgumentError(absl::StrCat("timestamp field \"", field_, "\" not found in ",
                                                   record.GetDescriptor()->full_name()));
  }
  const pb::Reflection* r = record.GetReflection();
  // Firehose: !message.hasField(field) -> RECORD_MISSING_TIMESTAMP_FIELD.
  if (!r->HasField(record, f)) return std::optional<int64_t>();
  switch (f->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_INT32: return std::optional<int64_t>(r->GetInt32(record, f));
    case pb::FieldDescriptor::CPPTYPE_INT64: return std::optional<int64_t>(r->GetInt64(record, f));
    // Java reads unsigned types into signed Integer/Long.
    case pb::FieldDescriptor::CPPTYPE_UINT32:
      return std::optional<int64_t>(static_cast<int32_t>(r->GetUInt32(record, f)));
    case pb::FieldDescriptor::CPPTYPE_UINT64:
      return std::optional<int64_t>(static_cast<int64_t>(r->GetUInt64(record, f)));
    case pb::FieldDescriptor::CPPTYPE_STRING: {
      std::string s = r->GetString(record, f);
      int64_t v;
      if (absl::SimpleAtoi(s, &v)) return std::optional<int64_t>(v);
      absl::Time t;
      std::string err;
      if (absl::ParseTime(absl::RFC3339_full, s, &t, &err)) {
        return std::optional<int64_t>(absl::ToUnixSeconds(t));
      }
      return absl::InvalidArgumentError(
          absl::StrCat("timestamp field \"", field_, "\": could not parse string value as timestamp"));
    }
    default: {
      const pb::Message& ts = r->GetMessage(record, f);
      const pb::FieldDescriptor* seconds = ts.GetDescriptor()->FindFieldByName("seconds");
      // Firehose's extractFromDynamicTimestamp: hasField(seconds) is false
      // for 0 in proto3, which it reports as an error.
      if (seconds == nullptr || !ts.GetReflection()->HasField(ts, seconds)) {
        return absl::InvalidArgumentError(
            absl::StrCat("timestamp field \"", field_, "\": Timestamp message does not contain 'seconds'"));
      }
      return std::optional<int64_t>(ts.GetReflection()->GetInt64(ts, seconds));
    }
  }
}

absl::StatusOr<bool> TimestampFilter::EvaluateOne(const Message& m, pb::Arena* arena,
                                                  bool allow_reuse) {
  // Firehose: empty data is skipped as invalid (dropped).
  if (key_ ? (!m.key || m.key->empty()) : m.value.empty()) return false;
  auto record = reader_->Proto(m, arena, allow_reuse);
  if (!record.ok()) return record.status();
  auto seconds = Seconds(**record);
  if (!seconds.ok()) {
    if (drop_errors_) return false;
    return seconds.status();
  }
  if (!seconds->has_value()) return false;
  const int64_t now = absl::ToUnixSeconds(now_());
  const int64_t t = **seconds;
  return !(t > now + future_seconds_ || t < now - past_seconds_);
}

}  // namespace sluice::sink
