// Topic creation for the sample producer (--partitions) and the tests' real
// broker (integration/kafka_broker.h), with librdkafka's admin API.
#ifndef SLUICE_SINK_SAMPLE_TOPICS_H_
#define SLUICE_SINK_SAMPLE_TOPICS_H_

#include <atomic>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "librdkafka/rdkafka.h"

namespace sluice::sample {

// Partitions of `topic` that have a leader, per the broker's metadata (-1:
// the broker does not know the topic or did not answer within 2 s).
int LedPartitions(rd_kafka_t* rk, const std::string& topic);

// Creates each (name, partitions) topic with replication factor 1 unless it
// exists (an existing topic is kept as it is), asking again every 500 ms
// while the broker starts, then waits until every partition of each has a
// leader. Returns "" when all are ready, else the last reason (the broker's
// answer, or partitions without a leader) once `timeout` passed or `*stop`
// (may be null) became true.
std::string EnsureTopics(rd_kafka_t* rk, const std::vector<std::pair<std::string, int>>& topics,
                         std::chrono::milliseconds timeout, const std::atomic<bool>* stop);

}  // namespace sluice::sample

#endif  // SLUICE_SINK_SAMPLE_TOPICS_H_
