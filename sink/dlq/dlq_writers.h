// Picks the dead-letter writer per DLQ_WRITER_TYPE, as Firehose's
// DlqWriterFactory. app.cc hands CreateDlqWriter to the decorator factory
// (DispatcherHooks::make_dlq_writer), so sink/decorators depends on neither
// librdkafka nor the blob stores.
#ifndef SLUICE_SINK_DLQ_DLQ_WRITERS_H_
#define SLUICE_SINK_DLQ_DLQ_WRITERS_H_

#include <memory>

#include "absl/status/statusor.h"
#include "sink/config.h"
#include "sink/decorators/dlq.h"
#include "sink/decorators/retry_loop.h"

namespace sluice::sink {

// LOG, KAFKA (DLQ_KAFKA_*) or BLOB_STORAGE (S3 or GCS per
// DLQ_BLOB_STORAGE_TYPE, with DLQ_{S3,GCS}_DIRECTORY_PREFIX). `hooks` serve
// the GCS token fetch. Errors: the KAFKA producer or GCS credentials cannot
// be created.
absl::StatusOr<std::unique_ptr<DlqWriter>> CreateDlqWriter(const ErrorConfig& errors,
                                                           const RetryHooks& hooks);

}  // namespace sluice::sink

#endif  // SLUICE_SINK_DLQ_DLQ_WRITERS_H_
