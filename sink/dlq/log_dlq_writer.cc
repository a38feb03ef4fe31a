#include "sink/dlq/log_dlq_writer.h"

#include <string>

#include "spdlog/spdlog.h"

namespace sluice::sink {

std::vector<FailedMessage> LogDlqWriter::Write(const std::vector<FailedMessage>& messages) {
  for (const FailedMessage& f : messages) {
    spdlog::warn("DLQ: topic={} partition={} offset={} error_type={} error={}", f.message.topic,
                 f.message.partition, f.message.offset, std::string(ErrorTypeName(f.error_type)),
                 f.error);
  }
  return {};
}

}  // namespace sluice::sink
