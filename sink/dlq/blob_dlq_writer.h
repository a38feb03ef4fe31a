// DLQ_WRITER_TYPE=BLOB_STORAGE (Firehose's BlobStorageDlqWriter): failed
// messages grouped by topic and consume date (UTC) are written as one object
// per group, `[<prefix>/]<topic>/<yyyy-mm-dd>/<uuid>` (the prefix is
// DLQ_{S3,GCS}_DIRECTORY_PREFIX, as Firehose's S3/GoogleCloudStorage
// createPath), holding one JSON line per
// message: {"key","value" (base64), "topic","partition","offset",
// "timestamp","error"} as Firehose writes them, plus "error_type" (sluice).
// S3 goes through common/http_client signed with AWS SigV4 by libcurl.
#ifndef SLUICE_SINK_DLQ_BLOB_DLQ_WRITER_H_
#define SLUICE_SINK_DLQ_BLOB_DLQ_WRITER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/http_client.h"
#include "sink/config.h"
#include "sink/decorators/dlq.h"

namespace sluice::sink {

// Where dead letters are stored.
class BlobStore {
 public:
  virtual ~BlobStore() = default;
  // Stores `data` under `name`. Unavailable (retryable) on failure, naming
  // the store and the status, never echoing the answer's body.
  virtual absl::Status Put(const std::string& name, const std::string& data) = 0;
};

// S3 (or an S3-compatible server): PUT <endpoint>/<bucket>/<name>, path style.
class S3BlobStore : public BlobStore {
 public:
  // `http` defaults to the shared libcurl client.
  explicit S3BlobStore(ErrorConfig::S3 config, std::shared_ptr<HttpClient> http = nullptr);
  absl::Status Put(const std::string& name, const std::string& data) override;

 private:
  ErrorConfig::S3 config_;
  std::shared_ptr<HttpClient> http_;
};

class BlobStorageDlqWriter : public DlqWriter {
 public:
  // `prefix`: a normalised DLQ_{S3,GCS}_DIRECTORY_PREFIX (no leading or
  // trailing '/'), or empty for none.
  explicit BlobStorageDlqWriter(std::unique_ptr<BlobStore> store, std::string prefix = "")
      : store_(std::move(store)), prefix_(std::move(prefix)) {}
  // One object per (topic, consume date); the messages of an object that
  // could not be stored are returned (so they are not committed).
  std::vector<FailedMessage> Write(const std::vector<FailedMessage>& messages) override;

  // The JSON line of one dead letter (exposed for tests).
  static std::string Line(const FailedMessage& m);
  // The object name `[<prefix>/]<topic>/<date>/<uuid>` (exposed for tests).
  static std::string ObjectName(const std::string& prefix, const std::string& topic,
                                const std::string& date, const std::string& uuid);

 private:
  std::unique_ptr<BlobStore> store_;
  std::string prefix_;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_DLQ_BLOB_DLQ_WRITER_H_
