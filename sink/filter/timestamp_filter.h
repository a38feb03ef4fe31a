// FILTER_ENGINE=TIMESTAMP: goto Firehose's TimestampFilter
// (firehose: filter/timestamp/TimestampFilter.java). The record's key or
// message (FILTER_DATA_SOURCE), decoded as FILTER_SCHEMA_PROTO_CLASS, is kept
// when its FILTER_TIMESTAMP_PROTO_FIELD_NAME (default event_timestamp), in
// seconds since the epoch, lies within [now - FILTER_TIMESTAMP_PAST_WINDOW_SECONDS,
// now + FILTER_TIMESTAMP_FUTURE_WINDOW_SECONDS] (defaults 604800 each).
// The field may be an integer (seconds), a string (an integer, or an RFC 3339
// instant such as "2024-05-01T10:00:00Z") or a google.protobuf.Timestamp
// (its seconds). Dropped as Firehose drops them: empty data, an unset field,
// a time outside the window. Errors (a Timestamp whose seconds are unset, a
// string that is no time) fail the record with INVALID_MESSAGE_ERROR, or drop
// it with FILTER_DROP_DESERIALIZATION_ERROR=true (Firehose's catch-all).
#ifndef SLUICE_SINK_FILTER_TIMESTAMP_FILTER_H_
#define SLUICE_SINK_FILTER_TIMESTAMP_FILTER_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "sink/config.h"
#include "sink/filter/record_reader.h"
#include "sink/schema/schema_registry.h"

namespace sluice::sink {

class TimestampFilter : public RecordFilter {
 public:
  // InvalidArgument naming FILTER_SCHEMA_PROTO_CLASS when the class is not
  // in `registry` (not owned; required), and naming
  // FILTER_TIMESTAMP_PROTO_FIELD_NAME when the class has no such field or
  // its type is none of the above (Firehose finds that out per record and
  // fails each one). `now` is for tests.
  static absl::StatusOr<std::unique_ptr<TimestampFilter>> Create(
      const FilterConfig& filter, const SchemaConfig& schema, const SchemaRegistry* registry,
      std::function<absl::Time()> now = [] { return absl::Now(); });

 private:
  TimestampFilter() = default;
  absl::StatusOr<bool> EvaluateOne(const Message& m, google::protobuf::Arena* arena,
                                   bool allow_reuse) override;
  // The field's value in seconds; nullopt when unset (dropped).
  absl::StatusOr<std::optional<int64_t>> Seconds(const google::protobuf::Message& record) const;

  std::string field_;
  int64_t past_seconds_ = 604800;
  int64_t future_seconds_ = 604800;
  bool key_ = false;
  bool drop_errors_ = false;
  std::function<absl::Time()> now_;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_FILTER_TIMESTAMP_FILTER_H_
