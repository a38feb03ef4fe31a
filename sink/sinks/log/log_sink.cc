#include "sink/sinks/log/log_sink.h"

#include "nlohmann/json.hpp"

#include <cerrno>
#include <charconv>
#include <cstring>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "google/protobuf/descriptor.h"
#include "sink/sinks/log/text_values.h"
#include "sink/sinks/log/wire_text.h"

namespace sluice::sink {
namespace {

using google::protobuf::FieldDescriptor;
using PbMessage = google::protobuf::Message;
using google::protobuf::Reflection;

void AppendValue(const PbMessage& m, const Reflection* r, const FieldDescriptor* f, int index,
                 std::string* out);

void AppendSingle(const PbMessage& m, const Reflection* r, const FieldDescriptor* f,
                  std::string* out) {
  AppendValue(m, r, f, -1, out);
}

// index < 0 reads a singular field; otherwise element `index` of a repeated one.
void AppendValue(const PbMessage& m, const Reflection* r, const FieldDescriptor* f, int index,
                 std::string* out) {
  const bool rep = index >= 0;
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      absl::StrAppend(out, rep ? r->GetRepeatedInt32(m, f, index) : r->GetInt32(m, f));
      break;
    case FieldDescriptor::CPPTYPE_INT64:
      absl::StrAppend(out, rep ? r->GetRepeatedInt64(m, f, index) : r->GetInt64(m, f));
      break;
    case FieldDescriptor::CPPTYPE_UINT32:
      absl::StrAppend(out, rep ? r->GetRepeatedUInt32(m, f, index) : r->GetUInt32(m, f));
      break;
    case FieldDescriptor::CPPTYPE_UINT64:
      absl::StrAppend(out, rep ? r->GetRepeatedUInt64(m, f, index) : r->GetUInt64(m, f));
      break;
    case FieldDescriptor::CPPTYPE_DOUBLE:
      AppendTextDouble(rep ? r->GetRepeatedDouble(m, f, index) : r->GetDouble(m, f), out);
      break;
    case FieldDescriptor::CPPTYPE_FLOAT:
      AppendTextDouble(rep ? r->GetRepeatedFloat(m, f, index) : r->GetFloat(m, f), out);
      break;
    case FieldDescriptor::CPPTYPE_BOOL:
      out->append((rep ? r->GetRepeatedBool(m, f, index) : r->GetBool(m, f)) ? "true"
                                                                             : "false");
      break;
    case FieldDescriptor::CPPTYPE_ENUM: {
      int n = rep ? r->GetRepeatedEnumValue(m, f, index) : r->GetEnumValue(m, f);
      const auto* v = f->enum_type()->FindValueByNumber(n);
      if (v != nullptr) {
        out->append(v->name());
      } else {
        absl::StrAppend(out, n);
      }
      break;
    }
    case FieldDescriptor::CPPTYPE_STRING: {
      std::string scratch;
      const std::string& s = rep ? r->GetRepeatedStringReference(m, f, index, &scratch)
                                 : r->GetStringReference(m, f, &scratch);
      AppendTextQuoted(s, out);
      break;
    }
    case FieldDescriptor::CPPTYPE_MESSAGE: {
      const PbMessage& sub = rep ? r->GetRepeatedMessage(m, f, index) : r->GetMessage(m, f);
      out->push_back('{');
      AppendMessageText(sub, out);
      out->push_back('}');
      break;
    }
  }
}

}  // namespace

void AppendMessageText(const google::protobuf::Message& message, std::string* out) {
  const Reflection* r = message.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  r->ListFields(message, &fields);
  bool first = true;
  for (const FieldDescriptor* f : fields) {
    if (!first) out->push_back(' ');
    first = false;
    out->append(f->name());
    if (f->is_repeated()) {
      out->append(": [");
      int n = r->FieldSize(message, f);
      for (int i = 0; i < n; ++i) {
        if (i > 0) out->append(", ");
        AppendValue(message, r, f, i, out);
      }
      out->push_back(']');
    } else if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      out->append(" { ");
      AppendMessageText(r->GetMessage(message, f), out);
      out->append(" }");
    } else {
      out->append(": ");
      AppendSingle(message, r, f, out);
    }
  }
}

void AppendRfc3339Millis(int64_t ms, std::string* out) {
  int64_t sec = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
  int millis = static_cast<int>(ms - sec * 1000);
  out->append(absl::FormatTime("%Y-%m-%dT%H:%M:%S", absl::FromUnixSeconds(sec),
                               absl::UTCTimeZone()));
  char buf[6] = {'.', static_cast<char>('0' + millis / 100),
                 static_cast<char>('0' + millis / 10 % 10), static_cast<char>('0' + millis % 10),
                 'Z', 0};
  out->append(buf, 5);
}

absl::StatusOr<LogSinkConfig> LogSinkConfig::FromEnv(const Env&, const SinkContext&) {
  return LogSinkConfig{};
}

absl::StatusOr<std::unique_ptr<LogSink>> LogSink::Create(LogSinkConfig, Metrics*) {
  return std::make_unique<LogSink>(stdout);
}

std::vector<FailedMessage> LogSink::Prepare(const std::vector<Message>& batch) {
  Render(batch);
  prepared_ = batch;
  return {};
}

std::vector<FailedMessage> LogSink::Execute() {
  std::vector<FailedMessage> failed;
  std::string cause = Flush();
  if (!cause.empty()) {
    failed.reserve(prepared_.size());
    for (Message& m : prepared_) {
      failed.push_back(FailedMessage{std::move(m), ErrorType::kSinkUnknownError, cause});
    }
  }
  prepared_.clear();
  return failed;
}

std::vector<FailedMessage> LogSink::Push(const std::vector<Message>& batch) {
  Render(batch);
  prepared_.clear();
  std::vector<FailedMessage> failed;
  std::string cause = Flush();
  if (!cause.empty()) {
    for (const Message& m : batch) {
      failed.push_back(FailedMessage{m, ErrorType::kSinkUnknownError, cause});
    }
  }
  return failed;
}

void LogSink::Render(const std::vector<Message>& batch) {
  buffer_.clear();
  buffer_.reserve(batch.size() * 256);
  for (const Message& m : batch) {
    buffer_.append("topic=");
    buffer_.append(m.topic);
    absl::StrAppend(&buffer_, " partition=", m.partition, " offset=", m.offset, " timestamp=");
    // Formatting a time is the slowest part of a line; a batch usually spans
    // few distinct seconds, so cache the last one.
    int64_t sec = m.timestamp_ms >= 0 ? m.timestamp_ms / 1000 : -((-m.timestamp_ms + 999) / 1000);
    if (sec != cached_second_) {
      cached_second_ = sec;
      cached_second_text_.clear();
      AppendRfc3339Millis(sec * 1000, &cached_second_text_);
      cached_second_text_.resize(cached_second_text_.size() - 5);  // drop ".000Z"
    }
    buffer_.append(cached_second_text_);
    int millis = static_cast<int>(m.timestamp_ms - sec * 1000);
    char frac[5] = {'.', static_cast<char>('0' + millis / 100),
                    static_cast<char>('0' + millis / 10 % 10),
                    static_cast<char>('0' + millis % 10), 'Z'};
    buffer_.append(frac, 5);
    if (m.key.has_value()) {
      buffer_.append(" key=");
      AppendTextQuoted(*m.key, &buffer_);
    }
    buffer_.append(" message=");
    if (m.decoded != nullptr) {
      buffer_.push_back('{');
      // From the bytes the message was parsed from, where they tell the same
      // text; by reflection otherwise (wire_text.h).
      const std::string* bytes = m.decoded_from_key && m.key ? &*m.key : &m.value;
      if (!AppendWireText(m.decoded->GetDescriptor(), *bytes, &buffer_)) {
        AppendMessageText(*m.decoded, &buffer_);
      }
      buffer_.push_back('}');
    } else if (m.json != nullptr) {
      buffer_.append(m.json->dump());  // compact; the decoder checked it is JSON
    } else {
      AppendTextQuoted(m.value, &buffer_);
    }
    buffer_.push_back('\n');
  }
}

std::string LogSink::Flush() {
  std::string cause;
  if (!buffer_.empty()) {
    size_t written = std::fwrite(buffer_.data(), 1, buffer_.size(), out_);
    int flush = std::fflush(out_);
    if (written != buffer_.size() || flush != 0) {
      cause = absl::StrCat("log sink: write to output failed: ", std::strerror(errno));
    }
  }
  buffer_.clear();
  return cause;
}

}  // namespace sluice::sink
