#include "sink/sample/sample_gen.h"

#include "google/protobuf/unknown_field_set.h"

namespace sluice::sample {
namespace {

constexpr const char* kCities[] = {"Pune", "Jakarta", "Bengaluru", "Singapore"};
constexpr DriverStatus kStatuses[] = {ONLINE, OFFLINE, ON_TRIP};

}  // namespace

void MakeSample(uint64_t i, int64_t now_ms, SampleLogMessage* out) {
  out->Clear();
  out->set_order_number("ORD-" + std::to_string(i));
  out->set_driver_id("driver-" + std::to_string(i % 10));
  out->set_status(kStatuses[i % 3]);
  Location* pickup = out->mutable_pickup();
  pickup->set_latitude(-6.2 + static_cast<double>(i % 100) / 1000);
  pickup->set_longitude(106.8);
  pickup->set_city(kCities[i % 4]);
  out->mutable_event_timestamp()->set_seconds(now_ms / 1000);
  out->mutable_event_timestamp()->set_nanos(static_cast<int32_t>(now_ms % 1000) * 1000000);
  out->add_tags(i % 2 == 0 ? "even" : "odd");
  out->add_tags("sample");
  Location* wp = out->add_waypoints();
  wp->set_city(kCities[(i + 1) % 4]);
  out->set_amount_paid_cents(static_cast<int64_t>(100 + i % 5000));
  out->set_is_priority(i % 7 == 0);
}

std::string SampleBytes(uint64_t i, int64_t now_ms, bool v2) {
  SampleLogMessage m;
  MakeSample(i, now_ms, &m);
  if (v2) {
    m.GetReflection()->MutableUnknownFields(&m)->AddLengthDelimited(10, "bike");
  }
  return m.SerializeAsString();
}

}  // namespace sluice::sample
