#include "sink/sinks/http/message_to_json.h"

#include <vector>

#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/util/json_util.h"
#include "nlohmann/json.hpp"

namespace sluice::sink {

std::string GsonDateText(int64_t seconds) {
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const absl::CivilSecond c = absl::ToCivilSecond(absl::FromUnixSeconds(seconds),
                                                  absl::UTCTimeZone());
  // "hh" without an am/pm marker: 12 is read as hour 0 (AM), 13..23 leniently
  // as themselves.
  const int hour = c.hour() == 12 ? 0 : c.hour();
  const int h12 = hour % 12 == 0 ? 12 : hour % 12;
  return absl::StrFormat("%s %d, %04d %d:%02d:%02d %s", kMonths[c.month() - 1], c.day(),
                         c.year(), h12, c.minute(), c.second(), hour < 12 ? "AM" : "PM");
}

std::string FirehoseMessageJson(const google::protobuf::Message& message,
                                bool simple_date_format) {
  std::string out;
  (void)google::protobuf::util::MessageToJsonString(message, &out,
                                                    google::protobuf::util::JsonPrintOptions());
  if (!simple_date_format) return out;
  const google::protobuf::Reflection* r = message.GetReflection();
  std::vector<std::pair<std::string, int64_t>> stamps;
  for (int i = 0; i < message.GetDescriptor()->field_count(); ++i) {
    const google::protobuf::FieldDescriptor* f = message.GetDescriptor()->field(i);
    if (f->is_repeated() || f->message_type() == nullptr ||
        f->message_type()->full_name() != "google.protobuf.Timestamp" || !r->HasField(message, f)) {
      continue;
    }
    const google::protobuf::Message& ts = r->GetMessage(message, f);
    const google::protobuf::FieldDescriptor* sec = ts.GetDescriptor()->FindFieldByName("seconds");
    stamps.emplace_back(f->json_name(), ts.GetReflection()->GetInt64(ts, sec));
  }
  if (stamps.empty()) return out;
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(out, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return out;
  for (const auto& [name, seconds] : stamps) {
    if (j.contains(name)) j[name] = GsonDateText(seconds);
  }
  return j.dump();
}

}  // namespace sluice::sink
