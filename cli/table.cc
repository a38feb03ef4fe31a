#include "cli/table.h"

#include <algorithm>
#include <map>

#include <google/protobuf/timestamp.pb.h>
#include <google/protobuf/util/time_util.h>

#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace sluice::cli {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// Columns chosen for the lists people read most; other types fall back to
// their scalar fields.
const std::map<std::string, std::vector<std::string>>& KnownColumns() {
  static const auto* known = new std::map<std::string, std::vector<std::string>>{
      {"sluice.access.v1beta1.Grant",
       {"id", "status", "account_id", "role", "resource.provider_type", "resource.urn", "owner",
        "source", "expiration_date"}},
      // grant.status: an approved appeal stays approved after its grant is
      // revoked (Guardian's statuses), so the grant says if access is held.
      {"sluice.access.v1beta1.Appeal",
       {"id", "status", "grant.status", "account_id", "role", "resource.provider_type",
        "resource.urn", "created_by", "created_at"}},
      {"sluice.access.v1beta1.Approval",
       {"id", "appeal_id", "name", "status", "actor", "appeal.account_id", "appeal.role"}},
      {"sluice.access.v1beta1.Provider", {"id", "type", "urn", "created_at"}},
      {"sluice.access.v1beta1.Policy", {"id", "version", "description", "created_by"}},
      {"sluice.access.v1beta1.Resource",
       {"id", "provider_type", "provider_urn", "type", "urn", "name", "is_deleted"}},
  };
  return *known;
}

std::string Scalar(const Message& m, const FieldDescriptor* f, int index) {
  const Reflection* r = m.GetReflection();
  bool rep = f->is_repeated();
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_STRING:
      return rep ? r->GetRepeatedString(m, f, index) : r->GetString(m, f);
    case FieldDescriptor::CPPTYPE_INT32:
      return std::to_string(rep ? r->GetRepeatedInt32(m, f, index) : r->GetInt32(m, f));
    case FieldDescriptor::CPPTYPE_INT64:
      return std::to_string(rep ? r->GetRepeatedInt64(m, f, index) : r->GetInt64(m, f));
    case FieldDescriptor::CPPTYPE_UINT32:
      return std::to_string(rep ? r->GetRepeatedUInt32(m, f, index) : r->GetUInt32(m, f));
    case FieldDescriptor::CPPTYPE_UINT64:
      return std::to_string(rep ? r->GetRepeatedUInt64(m, f, index) : r->GetUInt64(m, f));
    case FieldDescriptor::CPPTYPE_BOOL:
      return (rep ? r->GetRepeatedBool(m, f, index) : r->GetBool(m, f)) ? "true" : "false";
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return std::to_string(rep ? r->GetRepeatedDouble(m, f, index) : r->GetDouble(m, f));
    case FieldDescriptor::CPPTYPE_FLOAT:
      return std::to_string(rep ? r->GetRepeatedFloat(m, f, index) : r->GetFloat(m, f));
    case FieldDescriptor::CPPTYPE_ENUM:
      return (rep ? r->GetRepeatedEnum(m, f, index) : r->GetEnum(m, f))->name();
    case FieldDescriptor::CPPTYPE_MESSAGE: {
      const Message& sub = rep ? r->GetRepeatedMessage(m, f, index) : r->GetMessage(m, f);
      if (sub.GetDescriptor()->full_name() == "google.protobuf.Timestamp") {
        const auto& ts = static_cast<const google::protobuf::Timestamp&>(sub);
        if (ts.seconds() == 0 && ts.nanos() == 0) return "";
        return google::protobuf::util::TimeUtil::ToString(ts);
      }
      return "{...}";
    }
  }
  return "";
}

// `s` without C0 controls (incl. ESC, CR, LF, TAB), DEL, C1 controls
// (U+0080..U+009F, e.g. CSI U+009B) and bytes that are not valid UTF-8:
// cell values are server data (a grant's owner is set by any owner), and
// must not drive the terminal (security review F-L7) or break the columns.
std::string Printable(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    bool valid = len > 0 && i + len <= s.size() && !(len == 2 && c < 0xc2);
    for (size_t k = 1; valid && k < len; ++k) {
      valid = (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80;
    }
    if (!valid) {  // a stray byte: dropped
      ++i;
      continue;
    }
    bool control = len == 1 ? (c < 0x20 || c == 0x7f)
                            : (len == 2 && c == 0xc2 && static_cast<unsigned char>(s[i + 1]) <= 0x9f);
    if (!control) out.append(s, i, len);
    i += len;
  }
  return out;
}

}  // namespace

std::vector<std::string> TableColumns(const google::protobuf::Descriptor& element) {
  auto it = KnownColumns().find(element.full_name());
  if (it != KnownColumns().end()) return it->second;
  std::vector<std::string> out;
  for (int i = 0; i < element.field_count(); ++i) {
    const FieldDescriptor* f = element.field(i);
    if (!f->is_repeated() && f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) {
      out.push_back(f->name());
    }
  }
  return out;
}

std::string Cell(const Message& message, const std::string& path) {
  const Message* m = &message;
  std::vector<std::string> parts = absl::StrSplit(path, '.');
  for (size_t i = 0; i < parts.size(); ++i) {
    const FieldDescriptor* f = m->GetDescriptor()->FindFieldByName(parts[i]);
    if (f == nullptr) return "";
    const Reflection* r = m->GetReflection();
    bool last = i + 1 == parts.size();
    if (f->is_repeated()) {
      if (!last) return "";
      std::vector<std::string> items;
      for (int j = 0; j < r->FieldSize(*m, f); ++j) items.push_back(Scalar(*m, f, j));
      return absl::StrJoin(items, ",");
    }
    if (last) return Scalar(*m, f, 0);
    if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE || !r->HasField(*m, f)) return "";
    m = &r->GetMessage(*m, f);
  }
  return "";
}

bool PrintTable(const Message& message, std::ostream& out) {
  const auto* d = message.GetDescriptor();
  const FieldDescriptor* list = nullptr;
  for (int i = 0; i < d->field_count() && list == nullptr; ++i) {
    const FieldDescriptor* f = d->field(i);
    if (f->is_repeated() && f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE && !f->is_map()) {
      list = f;
    }
  }
  if (list == nullptr) return false;
  std::vector<std::string> columns = TableColumns(*list->message_type());
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header;
  for (const auto& c : columns) header.push_back(Printable(absl::AsciiStrToUpper(c)));
  rows.push_back(header);
  const Reflection* r = message.GetReflection();
  for (int i = 0; i < r->FieldSize(message, list); ++i) {
    const Message& e = r->GetRepeatedMessage(message, list, i);
    std::vector<std::string> row;
    for (const auto& c : columns) row.push_back(Printable(Cell(e, c)));
    rows.push_back(std::move(row));
  }
  std::vector<size_t> width(columns.size(), 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line += std::string(width[c] - row[c].size() + 2, ' ');
    }
    out << line << "\n";
  }
  if (const FieldDescriptor* total = d->FindFieldByName("total");
      total != nullptr && !total->is_repeated()) {
    out << "total: " << Scalar(message, total, 0) << "\n";
  }
  return true;
}

}  // namespace sluice::cli
