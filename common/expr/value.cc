#include "common/expr/value.h"

#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/expr/access.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "google/protobuf/util/message_differencer.h"

namespace sluice::expr {

namespace pb = google::protobuf;
using FieldRef = ValueAccess::FieldRef;

Value Value::String(std::string s) {
  auto owned = std::make_shared<const std::string>(std::move(s));
  Value v = StringView(*owned);
  v.owned_ = std::move(owned);
  return v;
}

Value Value::MakeList(List items) {
  auto owned = std::make_shared<const List>(std::move(items));
  Value v;
  v.tag_ = Tag::kList;
  v.u_.list = owned.get();
  v.owned_ = std::move(owned);
  return v;
}

Value Value::MakeMap(Map items) {
  auto owned = std::make_shared<const Map>(std::move(items));
  Value v;
  v.tag_ = Tag::kMap;
  v.u_.map = owned.get();
  v.owned_ = std::move(owned);
  return v;
}

Value Value::Json(const nlohmann::json* json) {
  if (json == nullptr) return Value();
  switch (json->type()) {
    case nlohmann::json::value_t::boolean:
      return Bool(json->get_ref<const bool&>());
    case nlohmann::json::value_t::number_integer:
      return Int(json->get_ref<const int64_t&>());
    case nlohmann::json::value_t::number_unsigned: {
      uint64_t u = json->get_ref<const uint64_t&>();
      if (u <= static_cast<uint64_t>(INT64_MAX)) return Int(static_cast<int64_t>(u));
      return Double(static_cast<double>(u));
    }
    case nlohmann::json::value_t::number_float:
      return Double(json->get_ref<const double&>());
    case nlohmann::json::value_t::string:
      return StringView(json->get_ref<const std::string&>());
    case nlohmann::json::value_t::array:
    case nlohmann::json::value_t::object: {
      Value v;
      v.tag_ = Tag::kJson;
      v.u_.json = json;
      return v;
    }
    default:  // null, discarded, binary
      return Value();
  }
}

Value Value::ProtoField(const pb::Message* message, const pb::FieldDescriptor* field) {
  Value v;
  v.tag_ = Tag::kField;
  v.u_.field = FieldRef{message, field};
  return v;
}

Value::Kind Value::SlowKind() const {
  switch (tag_) {
    case Tag::kJson: return u_.json->is_array() ? Kind::kList : Kind::kMap;
    case Tag::kField: return u_.field.field->is_map() ? Kind::kMap : Kind::kList;
    default: return Kind::kNull;
  }
}

const char* Value::KindName(Kind kind) {
  switch (kind) {
    case Kind::kNull: return "null";
    case Kind::kBool: return "bool";
    case Kind::kInt: return "int";
    case Kind::kDouble: return "double";
    case Kind::kString: return "string";
    case Kind::kList: return "list";
    case Kind::kMap: return "map";
  }
  return "?";
}

size_t Value::size() const {
  switch (tag_) {
    case Tag::kString: return u_.s.size;
    case Tag::kList: return u_.list->size();
    case Tag::kMap: return u_.map->size();
    case Tag::kJson: return u_.json->size();
    case Tag::kMessage: return Keys().size();
    case Tag::kField: return u_.field.message->GetReflection()->FieldSize(*u_.field.message,
                                                                          u_.field.field);
    default: return 0;
  }
}

absl::StatusOr<Value> Value::Element(size_t index) const {
  if (kind() != Kind::kList) {
    return absl::InvalidArgumentError(absl::StrCat("cannot index a ", kind_name(), " by position"));
  }
  if (index >= size()) {
    return absl::OutOfRangeError(absl::StrCat("index ", index, " out of range (size ", size(), ")"));
  }
  switch (tag_) {
    case Tag::kList: return (*u_.list)[index];
    case Tag::kJson: return Json(&(*u_.json)[index]);
    case Tag::kField:
      return internal::ReadRepeated(*u_.field.message, u_.field.field, static_cast<int>(index));
    default: return Value();
  }
}

absl::StatusOr<Value> Value::Find(absl::string_view key) const {
  return internal::Index(*this, StringView(key));
}

std::vector<std::string> Value::Keys() const {
  std::vector<std::string> keys;
  switch (tag_) {
    case Tag::kMap:
      for (const auto& [k, v] : *u_.map) keys.push_back(k);
      break;
    case Tag::kJson: {
      const nlohmann::json& j = *u_.json;
      if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
      }
      break;
    }
    case Tag::kMessage: {
      const pb::Message& m = *u_.message;
      std::vector<const pb::FieldDescriptor*> fields;
      m.GetReflection()->ListFields(m, &fields);
      for (const auto* f : fields) keys.push_back(f->name());
      break;
    }
    case Tag::kField: {
      const FieldRef& f = u_.field;
      if (!f.field->is_map()) break;
      int n = f.message->GetReflection()->FieldSize(*f.message, f.field);
      for (int i = 0; i < n; ++i) {
        const pb::Message& entry =
            f.message->GetReflection()->GetRepeatedMessage(*f.message, f.field, i);
        Value k = internal::ReadField(entry, {entry.GetDescriptor()->map_key(),
                                              internal::FieldAccess::kValue});
        keys.push_back(internal::ToText(k));
      }
      break;
    }
    default: break;
  }
  return keys;
}

bool Value::IsZero() const {
  switch (kind()) {
    case Kind::kNull: return true;
    case Kind::kBool: return !bool_value();
    case Kind::kInt: return int_value() == 0;
    case Kind::kDouble: return number_value() == 0.0;
    case Kind::kString: return string_value().empty();
    case Kind::kList: return size() == 0;
    case Kind::kMap:
      // A message is a struct: never zero (Guardian evaluates Go structs so).
      return message() == nullptr && size() == 0;
  }
  return true;
}

Value Value::Materialize() const {
  switch (kind()) {
    case Kind::kNull:
    case Kind::kBool:
    case Kind::kInt:
    case Kind::kDouble:
      return *this;
    case Kind::kString:
      return String(std::string(string_value()));
    case Kind::kList: {
      List out;
      size_t n = size();
      out.reserve(n);
      for (size_t i = 0; i < n; ++i) {
        absl::StatusOr<Value> e = Element(i);
        out.push_back(e.ok() ? e->Materialize() : Value());
      }
      return MakeList(std::move(out));
    }
    case Kind::kMap: {
      Map out;
      if (tag_ == Tag::kMap) {
        for (const auto& [k, v] : *u_.map) out.emplace(k, v.Materialize());
        return MakeMap(std::move(out));
      }
      if (tag_ == Tag::kField) {  // proto map field: keys may be non-strings
        const FieldRef& f = u_.field;
        const pb::Reflection* r = f.message->GetReflection();
        int n = r->FieldSize(*f.message, f.field);
        for (int i = 0; i < n; ++i) {
          const pb::Message& entry = r->GetRepeatedMessage(*f.message, f.field, i);
          const pb::Descriptor* d = entry.GetDescriptor();
          Value k = internal::ReadField(entry, {d->map_key(), internal::FieldAccess::kValue});
          Value v = internal::ReadField(entry, {d->map_value(), internal::FieldAccess::kValue});
          out[internal::ToText(k)] = v.Materialize();
        }
        return MakeMap(std::move(out));
      }
      for (const std::string& k : Keys()) {
        absl::StatusOr<Value> v = Find(k);
        out.emplace(k, v.ok() ? v->Materialize() : Value());
      }
      return MakeMap(std::move(out));
    }
  }
  return Value();
}

nlohmann::json Value::ToJson() const {
  switch (kind()) {
    case Kind::kNull: return nullptr;
    case Kind::kBool: return bool_value();
    case Kind::kInt: return int_value();
    case Kind::kDouble: return number_value();
    case Kind::kString: return std::string(string_value());
    case Kind::kList:
    case Kind::kMap:
      if (const nlohmann::json* j = json()) return *j;
      break;
  }
  Value m = Materialize();
  if (m.kind() == Kind::kList) {
    nlohmann::json out = nlohmann::json::array();
    for (const Value& e : *m.u_.list) out.push_back(e.ToJson());
    return out;
  }
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [k, v] : *m.u_.map) out[k] = v.ToJson();
  return out;
}

std::string Value::DebugString() const {
  nlohmann::json j = ToJson();
  // Invalid UTF-8 must not throw: replace bad bytes.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool operator==(const Value& a, const Value& b) {
  using K = Value::Kind;
  K ka = a.kind(), kb = b.kind();
  if (a.is_number() && b.is_number()) {
    if (ka == K::kInt && kb == K::kInt) return a.int_value() == b.int_value();
    return a.number_value() == b.number_value();
  }
  if (ka != kb) return false;
  switch (ka) {
    case K::kNull: return true;
    case K::kBool: return a.bool_value() == b.bool_value();
    case K::kString: return a.string_value() == b.string_value();
    case K::kList: {
      size_t n = a.size();
      if (n != b.size()) return false;
      for (size_t i = 0; i < n; ++i) {
        absl::StatusOr<Value> x = a.Element(i), y = b.Element(i);
        if (!x.ok() || !y.ok() || *x != *y) return false;
      }
      return true;
    }
    case K::kMap: {
      const pb::Message* ma = a.message();
      const pb::Message* mb = b.message();
      if (ma != nullptr && mb != nullptr) {
        return ma->GetDescriptor() == mb->GetDescriptor() &&
               pb::util::MessageDifferencer::Equals(*ma, *mb);
      }
      std::vector<std::string> keys = a.Keys();
      if (keys.size() != b.Keys().size()) return false;
      for (const std::string& k : keys) {
        absl::StatusOr<Value> x = a.Find(k), y = b.Find(k);
        if (!x.ok() || !y.ok() || *x != *y) return false;
      }
      return true;
    }
    default: return false;
  }
}

}  // namespace sluice::expr
