#include "sink/dlq/gcs_blob_store.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace sluice::sink {
namespace {

// Statuses google-cloud-java's storage client retries for an upload
// (StorageRetryStrategy's idempotent handler: 408, 429, 5xx).
bool RetryableStatus(long status) { return status == 408 || status == 429 || status >= 500; }

// min(initial × multiplier^n, max), in milliseconds.
absl::Duration Grow(int64_t initial_ms, double multiplier, int64_t max_ms, int n) {
  double ms = static_cast<double>(initial_ms) * std::pow(multiplier, n);
  return absl::Milliseconds(std::min(ms, static_cast<double>(max_ms)));
}

}  // namespace

absl::StatusOr<std::unique_ptr<GcsBlobStore>> GcsBlobStore::Create(ErrorConfig::Gcs config,
                                                                   std::shared_ptr<HttpClient> http,
                                                                   RetryHooks hooks) {
  auto key = ReadServiceAccountKeyFile(config.credential_path);
  if (!key.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("DLQ_GCS_CREDENTIAL_PATH: ", key.status().message()));
  }
  if (!http) http = NewCurlHttpClient();
  if (!hooks.sleep) {
    hooks.sleep = [stop = hooks.stop, keep_alive = hooks.keep_alive](absl::Duration d) {
      BackoffSleep(d, stop, keep_alive);
    };
  }
  return std::unique_ptr<GcsBlobStore>(
      new GcsBlobStore(std::move(config), *std::move(key), std::move(http), std::move(hooks)));
}

GcsBlobStore::GcsBlobStore(ErrorConfig::Gcs config, ServiceAccountKey key,
                           std::shared_ptr<HttpClient> http, RetryHooks hooks)
    : config_(std::move(config)),
      key_(std::move(key)),
      http_(std::move(http)),
      auth_(http_.get()),
      hooks_(std::move(hooks)) {}

absl::Status GcsBlobStore::Put(const std::string& name, const std::string& data) {
  const absl::Time deadline = absl::Now() + absl::Milliseconds(config_.retry_total_timeout_ms);
  absl::Status last;
  for (int n = 0; n < config_.retry_max_attempts; ++n) {
    if (n > 0) {
      absl::Duration delay = Grow(config_.retry_initial_delay_ms, config_.retry_delay_multiplier,
                                  config_.retry_max_delay_ms, n - 1);
      if (absl::Now() + delay >= deadline || (hooks_.stop && hooks_.stop())) break;
      hooks_.sleep(delay);
      if (hooks_.stop && hooks_.stop()) break;
    }
    absl::Duration timeout = std::min(Grow(config_.initial_rpc_timeout_ms,
                                           config_.rpc_timeout_multiplier,
                                           config_.rpc_max_timeout_ms, n),
                                      std::max(deadline - absl::Now(), absl::Milliseconds(1)));
    bool retryable = false;
    last = Attempt(name, data, timeout, &retryable);
    if (last.ok() || !retryable) break;
  }
  if (last.ok()) return last;
  return absl::UnavailableError(absl::StrCat("GCS DLQ: bucket ", config_.bucket, ": ", last.message()));
}

absl::Status GcsBlobStore::Attempt(const std::string& name, const std::string& data,
                                   absl::Duration timeout, bool* retryable) {
  HttpRequest req;
  req.method = "POST";
  req.url = absl::StrCat(config_.api_base_url, "/upload/storage/v1/b/", UrlEscape(config_.bucket),
                         "/o?uploadType=media&name=", UrlEscape(name));
  req.headers = {"Content-Type: application/x-ndjson", "Accept: application/json"};
  req.body = data;
  req.timeout = timeout;
  auto res = auth_.Do(key_, kGcsReadWriteScope, req);
  if (!res.ok()) {
    // Transport errors and a token endpoint that is down or slow are worth
    // another attempt; a refused key is not.
    absl::StatusCode c = res.status().code();
    *retryable = c == absl::StatusCode::kUnavailable || c == absl::StatusCode::kDeadlineExceeded ||
                 c == absl::StatusCode::kResourceExhausted;
    return res.status();
  }
  if (res->status >= 200 && res->status < 300) return absl::OkStatus();
  *retryable = RetryableStatus(res->status);
  return absl::UnavailableError(absl::StrCat("upload to ", RedactUrl(req.url), " -> HTTP ", res->status));
}

}  // namespace sluice::sink
