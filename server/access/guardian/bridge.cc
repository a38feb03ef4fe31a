#include "server/access/guardian/bridge.h"

#include <vector>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/util/json_util.h>

#include "absl/strings/str_cat.h"

namespace sluice::access::guardian {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// The message name without its package ("CreateAppealRequest.Resource").
std::string ShortName(const Descriptor& d) {
  const std::string& pkg = d.file()->package();
  const std::string& full = d.full_name();
  return pkg.empty() ? full : full.substr(pkg.size() + 1);
}

// The message type to compare a nested message against, or null when the
// two sides hold the same type (a well-known type) or `to` holds no message.
const Descriptor* NestedTarget(const FieldDescriptor& from, const FieldDescriptor& to) {
  const Descriptor* a = from.message_type();
  const Descriptor* b = to.message_type();
  if (a == nullptr || b == nullptr || a == b) return nullptr;
  // A Struct or Value on one side and a typed message on the other: their
  // JSON is compared by the parser (CopyByName), not field by field.
  if (a->file()->package() == "google.protobuf" || b->file()->package() == "google.protobuf") {
    return nullptr;
  }
  if (from.is_map()) {  // compare the map values
    const FieldDescriptor* av = a->map_value();
    const FieldDescriptor* bv = b->map_value();
    if (bv == nullptr) return nullptr;
    return NestedTarget(*av, *bv);
  }
  return b;
}

}  // namespace

std::string FirstUnknownField(const Message& from, const Descriptor& to) {
  const Reflection* r = from.GetReflection();
  std::vector<const FieldDescriptor*> set;
  r->ListFields(from, &set);
  for (const FieldDescriptor* f : set) {
    const FieldDescriptor* peer = to.FindFieldByName(f->name());
    if (peer == nullptr) {
      return absl::StrCat("unknown field \"", f->name(), "\" in ", ShortName(*from.GetDescriptor()));
    }
    const Descriptor* nested = NestedTarget(*f, *peer);
    if (nested == nullptr) continue;
    if (f->is_map()) {
      const FieldDescriptor* value = f->message_type()->map_value();
      for (int i = 0; i < r->FieldSize(from, f); ++i) {
        const Message& entry = r->GetRepeatedMessage(from, f, i);
        const Message& v = entry.GetReflection()->GetMessage(entry, value);
        if (std::string why = FirstUnknownField(v, *nested); !why.empty()) return why;
      }
    } else if (f->is_repeated()) {
      for (int i = 0; i < r->FieldSize(from, f); ++i) {
        if (std::string why = FirstUnknownField(r->GetRepeatedMessage(from, f, i), *nested);
            !why.empty()) {
          return why;
        }
      }
    } else if (std::string why = FirstUnknownField(r->GetMessage(from, f), *nested);
               !why.empty()) {
      return why;
    }
  }
  return "";
}

absl::Status CopyByName(const Message& from, Message* to, bool drop_unknown) {
  if (!drop_unknown) {
    if (std::string why = FirstUnknownField(from, *to->GetDescriptor()); !why.empty()) {
      return absl::InvalidArgumentError(why);
    }
  }
  google::protobuf::util::JsonPrintOptions print;
  print.preserve_proto_field_names = true;
  std::string json;
  if (auto st = google::protobuf::util::MessageToJsonString(from, &json, print); !st.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(ShortName(*from.GetDescriptor()), ": ", std::string(st.message())));
  }
  google::protobuf::util::JsonParseOptions parse;
  parse.ignore_unknown_fields = drop_unknown;
  to->Clear();
  if (auto st = google::protobuf::util::JsonStringToMessage(json, to, parse); !st.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "invalid ", ShortName(*from.GetDescriptor()), " for ", ShortName(*to->GetDescriptor()),
        ": ", std::string(st.message())));
  }
  return absl::OkStatus();
}

}  // namespace sluice::access::guardian
