// librdkafka glue shared by everything in sink/ that talks to Kafka (the
// group consumer, the control API's peek, the DLQ producer): building a conf
// from properties and turning a fetched record into a Message. librdkafka is
// used only in sink/source/.
#ifndef SLUICE_SINK_SOURCE_KAFKA_RECORD_H_
#define SLUICE_SINK_SOURCE_KAFKA_RECORD_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "librdkafka/rdkafka.h"
#include "sink/message.h"

namespace sluice::sink {

// A new conf with every property of `properties` set. InvalidArgument
// "<what> property <name>: <librdkafka's reason>" for the first one
// librdkafka rejects (nothing is leaked).
absl::StatusOr<rd_kafka_conf_t*> NewKafkaConf(const std::map<std::string, std::string>& properties,
                                              absl::string_view what);

// Fills `msg` from the record `m` (which must not be an error event): topic
// (`topic`, interned by the caller), partition, offset, key, value, Kafka
// timestamp, headers in order, and consume_timestamp_ms = `now_ms`.
void ToMessage(const rd_kafka_message_t* m, const std::string& topic, int64_t now_ms, Message* msg);

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SOURCE_KAFKA_RECORD_H_
