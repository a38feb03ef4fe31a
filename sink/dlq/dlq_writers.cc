#include "sink/dlq/dlq_writers.h"

#include "sink/dlq/blob_dlq_writer.h"
#include "sink/dlq/gcs_blob_store.h"
#include "sink/dlq/kafka_dlq_writer.h"
#include "sink/dlq/log_dlq_writer.h"

namespace sluice::sink {

absl::StatusOr<std::unique_ptr<DlqWriter>> CreateDlqWriter(const ErrorConfig& errors,
                                                           const RetryHooks& hooks) {
  if (errors.dlq_writer == "BLOB_STORAGE" && errors.dlq_blob_type == "S3") {
    return std::make_unique<BlobStorageDlqWriter>(std::make_unique<S3BlobStore>(errors.dlq_s3),
                                                  errors.dlq_s3.directory_prefix);
  }
  if (errors.dlq_writer == "BLOB_STORAGE") {
    auto gcs = GcsBlobStore::Create(errors.dlq_gcs, nullptr, hooks);
    if (!gcs.ok()) return gcs.status();
    return std::make_unique<BlobStorageDlqWriter>(*std::move(gcs), errors.dlq_gcs.directory_prefix);
  }
  if (errors.dlq_writer != "KAFKA") return std::make_unique<LogDlqWriter>();
  auto k = KafkaDlqWriter::Create(errors.dlq_kafka_brokers, errors.dlq_kafka_topic,
                                  errors.dlq_kafka_acks, errors.dlq_kafka_properties);
  if (!k.ok()) return k.status();
  return std::unique_ptr<DlqWriter>(*std::move(k));
}

}  // namespace sluice::sink
