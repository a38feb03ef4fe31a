// The control API's TestFilter peek: reads records of the sink's topic from
// the group's committed offsets without joining the group or committing.
#ifndef SLUICE_SINK_SOURCE_KAFKA_PEEK_H_
#define SLUICE_SINK_SOURCE_KAFKA_PEEK_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "sink/config.h"
#include "sink/message.h"

namespace sluice::sink {

// Reads up to `n` records of `config.topic` from the group's committed
// offsets (auto.offset.reset where none), for at most `timeout`. Records
// carry key, value, headers and timestamps as the worker's consumer gives
// them. InvalidArgument for a regex topic or a rejected property;
// Unavailable when the topic's metadata cannot be read.
absl::StatusOr<std::vector<Message>> PeekRecords(const SourceConfig& config, int n,
                                                 absl::Duration timeout);

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SOURCE_KAFKA_PEEK_H_
