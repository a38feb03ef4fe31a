#include "sink/sinks/log/wire_text.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/wire_format_lite.h"
#include "sink/sinks/log/text_values.h"

namespace sluice::sink {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::FileDescriptor;
using google::protobuf::OneofDescriptor;
using google::protobuf::io::CodedInputStream;
using WFL = google::protobuf::internal::WireFormatLite;

// protobuf's own nesting limit (CodedInputStream's default recursion limit).
constexpr int kMaxDepth = 100;

WFL::WireType ExpectedWireType(const FieldDescriptor* f) {
  return WFL::WireTypeForFieldType(static_cast<WFL::FieldType>(f->type()));
}

// Reads one scalar of `f` and appends its text. `implicit_presence`: the
// field is a singular one without presence, whose default value reflection
// would not list: such a value makes the caller fall back.
bool AppendScalar(const FieldDescriptor* f, CodedInputStream* in, bool implicit_presence,
                  std::string* out) {
  uint64_t v64 = 0;
  uint32_t v32 = 0;
  switch (f->type()) {
    case FieldDescriptor::TYPE_DOUBLE: {
      if (!in->ReadLittleEndian64(&v64)) return false;
      double d;
      std::memcpy(&d, &v64, sizeof(d));
      if (implicit_presence && d == 0) return false;
      AppendTextDouble(d, out);
      return true;
    }
    case FieldDescriptor::TYPE_FLOAT: {
      if (!in->ReadLittleEndian32(&v32)) return false;
      float x;
      std::memcpy(&x, &v32, sizeof(x));
      if (implicit_presence && x == 0) return false;
      AppendTextDouble(x, out);
      return true;
    }
    case FieldDescriptor::TYPE_INT64:
    case FieldDescriptor::TYPE_UINT64:
    case FieldDescriptor::TYPE_INT32:
    case FieldDescriptor::TYPE_UINT32:
    case FieldDescriptor::TYPE_SINT32:
    case FieldDescriptor::TYPE_SINT64:
    case FieldDescriptor::TYPE_BOOL:
    case FieldDescriptor::TYPE_ENUM:
      if (!in->ReadVarint64(&v64)) return false;
      break;
    case FieldDescriptor::TYPE_FIXED64:
    case FieldDescriptor::TYPE_SFIXED64:
      if (!in->ReadLittleEndian64(&v64)) return false;
      break;
    case FieldDescriptor::TYPE_FIXED32:
    case FieldDescriptor::TYPE_SFIXED32:
      if (!in->ReadLittleEndian32(&v32)) return false;
      v64 = v32;
      break;
    default:
      return false;
  }
  switch (f->type()) {
    case FieldDescriptor::TYPE_INT64:
    case FieldDescriptor::TYPE_SFIXED64:
      if (implicit_presence && v64 == 0) return false;
      absl::StrAppend(out, static_cast<int64_t>(v64));
      return true;
    case FieldDescriptor::TYPE_UINT64:
    case FieldDescriptor::TYPE_FIXED64:
      if (implicit_presence && v64 == 0) return false;
      absl::StrAppend(out, v64);
      return true;
    case FieldDescriptor::TYPE_INT32:
    case FieldDescriptor::TYPE_SFIXED32:
      if (implicit_presence && static_cast<int32_t>(v64) == 0) return false;
      absl::StrAppend(out, static_cast<int32_t>(v64));
      return true;
    case FieldDescriptor::TYPE_UINT32:
    case FieldDescriptor::TYPE_FIXED32:
      if (implicit_presence && static_cast<uint32_t>(v64) == 0) return false;
      absl::StrAppend(out, static_cast<uint32_t>(v64));
      return true;
    case FieldDescriptor::TYPE_SINT32: {
      int32_t v = WFL::ZigZagDecode32(static_cast<uint32_t>(v64));
      if (implicit_presence && v == 0) return false;
      absl::StrAppend(out, v);
      return true;
    }
    case FieldDescriptor::TYPE_SINT64: {
      int64_t v = WFL::ZigZagDecode64(v64);
      if (implicit_presence && v == 0) return false;
      absl::StrAppend(out, v);
      return true;
    }
    case FieldDescriptor::TYPE_BOOL:
      if (implicit_presence && v64 == 0) return false;
      out->append(v64 != 0 ? "true" : "false");
      return true;
    case FieldDescriptor::TYPE_ENUM: {
      const int32_t n = static_cast<int32_t>(v64);
      if (implicit_presence && n == 0) return false;
      const auto* value = f->enum_type()->FindValueByNumber(n);
      if (value != nullptr) {
        out->append(value->name());
        return true;
      }
      // A closed (proto2) enum keeps an unknown number among the unknown
      // fields, which the reflection renderer does not print.
      if (f->file()->syntax() == FileDescriptor::SYNTAX_PROTO2) return false;
      absl::StrAppend(out, n);
      return true;
    }
    default:
      return false;
  }
}

bool AppendBytes(CodedInputStream* in, const char* base, bool implicit_presence,
                 std::string* out) {
  uint32_t len = 0;
  if (!in->ReadVarint32(&len)) return false;
  const int at = in->CurrentPosition();
  if (implicit_presence && len == 0) return false;
  if (!in->Skip(static_cast<int>(len))) return false;
  AppendTextQuoted(absl::string_view(base + at, len), out);
  return true;
}

bool AppendMessage(const Descriptor* type, CodedInputStream* in, const char* base, int depth,
                   std::string* out);

// A length-delimited sub-message: its fields, bounded by its length.
bool AppendSubMessage(const Descriptor* type, CodedInputStream* in, const char* base, int depth,
                      std::string* out) {
  uint32_t len = 0;
  if (!in->ReadVarint32(&len) || static_cast<int64_t>(len) > in->BytesUntilLimit()) return false;
  CodedInputStream::Limit limit = in->PushLimit(static_cast<int>(len));
  const bool ok = AppendMessage(type, in, base, depth + 1, out) && in->BytesUntilLimit() == 0;
  in->PopLimit(limit);
  return ok;
}

// One element of a repeated field (not packed).
bool AppendElement(const FieldDescriptor* f, CodedInputStream* in, const char* base, int depth,
                   std::string* out) {
  switch (f->type()) {
    case FieldDescriptor::TYPE_MESSAGE: {
      out->push_back('{');
      if (!AppendSubMessage(f->message_type(), in, base, depth, out)) return false;
      out->push_back('}');
      return true;
    }
    case FieldDescriptor::TYPE_STRING:
    case FieldDescriptor::TYPE_BYTES:
      return AppendBytes(in, base, false, out);
    default:
      return AppendScalar(f, in, false, out);
  }
}

// The fields of one message up to the current limit, in AppendMessageText's
// form; false where that form cannot be told from the bytes alone.
bool AppendMessage(const Descriptor* type, CodedInputStream* in, const char* base, int depth,
                   std::string* out) {
  if (depth > kMaxDepth) return false;
  int last = 0;                             // the last known field's number
  const FieldDescriptor* open = nullptr;    // a repeated field whose "[" is open
  int elements = 0;                         // elements printed of `open`
  std::vector<const OneofDescriptor*> oneofs;  // oneofs with a member seen
  bool first = true;
  while (in->BytesUntilLimit() > 0) {
    const uint32_t tag = in->ReadTag();
    if (tag == 0) return false;
    const int number = static_cast<int>(WFL::GetTagFieldNumber(tag));
    const WFL::WireType wire = WFL::GetTagWireType(tag);
    const FieldDescriptor* f = type->FindFieldByNumber(number);
    if (f == nullptr) {
      // An extension may be known to the decoder's pool and listed.
      if (type->IsExtensionNumber(number)) return false;
      // An unknown field: reflection keeps it aside and does not print it.
      if (!WFL::SkipField(in, tag)) return false;
      continue;
    }
    if (number < last || (number == last && !f->is_repeated())) return false;
    if (f->is_map() || f->type() == FieldDescriptor::TYPE_GROUP) return false;
    const WFL::WireType expected = ExpectedWireType(f);
    const bool packed = f->is_repeated() && wire == WFL::WIRETYPE_LENGTH_DELIMITED &&
                        expected != WFL::WIRETYPE_LENGTH_DELIMITED;
    if (!packed && wire != expected) return false;
    if (number != last) {
      if (open != nullptr) out->push_back(']');
      open = nullptr;
      last = number;
      if (const OneofDescriptor* o = f->containing_oneof()) {
        // A later member of the same oneof replaces an earlier one.
        for (const OneofDescriptor* seen : oneofs) {
          if (seen == o) return false;
        }
        oneofs.push_back(o);
      }
      if (!first) out->push_back(' ');
      first = false;
      out->append(f->name());
    }
    if (f->is_repeated()) {
      if (open == nullptr) {
        out->append(": [");
        open = f;
        elements = 0;
      }
      if (packed) {
        uint32_t len = 0;
        // An empty packed run adds no element: reflection may list no field.
        if (!in->ReadVarint32(&len) || len == 0 ||
            static_cast<int64_t>(len) > in->BytesUntilLimit()) {
          return false;
        }
        CodedInputStream::Limit limit = in->PushLimit(static_cast<int>(len));
        while (in->BytesUntilLimit() > 0) {
          if (elements++ > 0) out->append(", ");
          if (!AppendScalar(f, in, false, out)) return false;
        }
        in->PopLimit(limit);
      } else {
        if (elements++ > 0) out->append(", ");
        if (!AppendElement(f, in, base, depth, out)) return false;
      }
      continue;
    }
    const bool implicit_presence = !f->has_presence();
    switch (f->type()) {
      case FieldDescriptor::TYPE_MESSAGE:
        out->append(" { ");
        if (!AppendSubMessage(f->message_type(), in, base, depth, out)) return false;
        out->append(" }");
        break;
      case FieldDescriptor::TYPE_STRING:
      case FieldDescriptor::TYPE_BYTES:
        out->append(": ");
        if (!AppendBytes(in, base, implicit_presence, out)) return false;
        break;
      default:
        out->append(": ");
        if (!AppendScalar(f, in, implicit_presence, out)) return false;
    }
  }
  if (open != nullptr) out->push_back(']');
  return in->BytesUntilLimit() == 0;
}

}  // namespace

bool AppendWireText(const Descriptor* type, absl::string_view bytes, std::string* out) {
  const size_t mark = out->size();
  if (bytes.size() > static_cast<size_t>(INT32_MAX / 2)) return false;
  CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                      static_cast<int>(bytes.size()));
  CodedInputStream::Limit limit = in.PushLimit(static_cast<int>(bytes.size()));
  const bool ok = AppendMessage(type, &in, bytes.data(), 0, out);
  in.PopLimit(limit);
  if (!ok) out->resize(mark);
  return ok;
}

}  // namespace sluice::sink
