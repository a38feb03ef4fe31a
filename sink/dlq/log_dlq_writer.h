// The log dead-letter writer (DLQ_WRITER_TYPE=LOG), as Firehose's
// sink/dlq/log/LogDlqWriter.
#ifndef SLUICE_SINK_DLQ_LOG_DLQ_WRITER_H_
#define SLUICE_SINK_DLQ_LOG_DLQ_WRITER_H_

#include <vector>

#include "sink/decorators/dlq.h"

namespace sluice::sink {

// DLQ_WRITER_TYPE=LOG: one warning line per message (topic, partition,
// offset, error type, error). Never fails.
class LogDlqWriter : public DlqWriter {
 public:
  std::vector<FailedMessage> Write(const std::vector<FailedMessage>& messages) override;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_DLQ_LOG_DLQ_WRITER_H_
