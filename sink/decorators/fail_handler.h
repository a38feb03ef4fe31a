// Firehose's SinkWithFailHandler: a failure whose type is in
// ERROR_TYPES_FOR_FAILING stops the worker. Firehose puts it innermost,
// straight around the sink (FirehoseConsumerFactory.java:167 at firehose
// 857761c6), so it sees every push, the first and each retry, and throws
// before SinkWithRetry retries or SinkWithDlq dead-letters anything
// (SinkWithFailHandler.java:33-40). The retry layer calls CheckFailing after
// each push, and on the decode and filter failures, which never reach the
// sink.
#ifndef SLUICE_SINK_DECORATORS_FAIL_HANDLER_H_
#define SLUICE_SINK_DECORATORS_FAIL_HANDLER_H_

#include <set>
#include <vector>

#include "absl/status/status.h"
#include "sink/message.h"

namespace sluice::sink {

// OK when no message of `failed` has a type in `failing`
// (ERROR_TYPES_FOR_FAILING); else FailedPrecondition naming the first such
// message's error type, topic, partition and offset.
absl::Status CheckFailing(const std::vector<FailedMessage>& failed,
                          const std::set<ErrorType>& failing);

}  // namespace sluice::sink

#endif  // SLUICE_SINK_DECORATORS_FAIL_HANDLER_H_
