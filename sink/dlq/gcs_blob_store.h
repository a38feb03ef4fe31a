// DLQ_BLOB_STORAGE_TYPE=GCS: dead-letter objects stored in Google Cloud
// Storage through the JSON API's single-request ("media") upload,
// `POST <base>/upload/storage/v1/b/<bucket>/o?uploadType=media&name=<name>`
// (cloud.google.com/storage/docs/uploading-objects), authorized with the
// service-account key of DLQ_GCS_CREDENTIAL_PATH through common/google_auth
// (the token code the GCP access providers and the BigQuery sink use).
#ifndef SLUICE_SINK_DLQ_GCS_BLOB_STORE_H_
#define SLUICE_SINK_DLQ_GCS_BLOB_STORE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/google_auth.h"
#include "common/http_client.h"
#include "sink/config.h"
#include "sink/dlq/blob_dlq_writer.h"
#include "sink/decorators/retry_loop.h"

namespace sluice::sink {

// The OAuth scope of an upload (read_write is the narrowest that can create
// objects).
inline constexpr char kGcsReadWriteScope[] = "https://www.googleapis.com/auth/devstorage.read_write";

class GcsBlobStore : public BlobStore {
 public:
  // Reads and parses the key at config.credential_path. InvalidArgument
  // naming DLQ_GCS_CREDENTIAL_PATH when it cannot be read or is not a
  // service-account key (the message never holds key material). `http`
  // defaults to the shared libcurl client; `hooks.sleep` (default
  // BackoffSleep with hooks.stop / hooks.keep_alive) waits between attempts.
  static absl::StatusOr<std::unique_ptr<GcsBlobStore>> Create(
      ErrorConfig::Gcs config, std::shared_ptr<HttpClient> http = nullptr, RetryHooks hooks = {});

  // Uploads `data` as object `name` (Content-Type application/x-ndjson).
  // Retried as google-cloud-java's RetrySettings from DLQ_GCS_RETRY_*: at
  // most retry_max_attempts attempts within retry_total_timeout_ms, waiting
  // min(initial_delay × multiplier^n, max_delay) between them, each attempt
  // bounded by min(initial_rpc_timeout × rpc_multiplier^n, rpc_max_timeout);
  // only transport errors, 408, 429 and 5xx are retried (a 401 gets one new
  // token first), and a stop request ends the retries. Unavailable on
  // failure, naming the bucket and the last status, never the answer's body.
  absl::Status Put(const std::string& name, const std::string& data) override;

 private:
  GcsBlobStore(ErrorConfig::Gcs config, ServiceAccountKey key, std::shared_ptr<HttpClient> http,
               RetryHooks hooks);
  // One upload with `timeout`; `*retryable` tells whether another may help.
  absl::Status Attempt(const std::string& name, const std::string& data, absl::Duration timeout,
                       bool* retryable);

  ErrorConfig::Gcs config_;
  ServiceAccountKey key_;
  std::shared_ptr<HttpClient> http_;
  GoogleAuth auth_;
  RetryHooks hooks_;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_DLQ_GCS_BLOB_STORE_H_
