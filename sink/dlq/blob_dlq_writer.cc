#include "sink/dlq/blob_dlq_writer.h"

#include <openssl/sha.h>

#include <map>

#include "absl/random/random.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"

namespace sluice::sink {
namespace {

// A random (version 4) UUID.
std::string Uuid() {
  static thread_local absl::BitGen gen;
  uint64_t hi = absl::Uniform<uint64_t>(gen), lo = absl::Uniform<uint64_t>(gen);
  hi = (hi & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;
  lo = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;
  return absl::StrFormat("%08x-%04x-%04x-%04x-%012x", hi >> 32, (hi >> 16) & 0xffff, hi & 0xffff,
                         lo >> 48, lo & 0xffffffffffffULL);
}

// Percent-encodes an object name for the URL path, keeping '/'.
std::string EscapePath(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (absl::ascii_isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == '/') {
      out.push_back(c);
    } else {
      absl::StrAppendFormat(&out, "%%%02X", static_cast<unsigned char>(c));
    }
  }
  return out;
}

}  // namespace

S3BlobStore::S3BlobStore(ErrorConfig::S3 config, std::shared_ptr<HttpClient> http)
    : config_(std::move(config)), http_(http ? std::move(http) : NewCurlHttpClient()) {}

absl::Status S3BlobStore::Put(const std::string& name, const std::string& data) {
  HttpRequest req;
  req.method = "PUT";
  req.url = absl::StrCat(config_.endpoint, "/", config_.bucket, "/", EscapePath(name));
  req.body = data;
  // S3 wants the payload's SHA-256 (SigV4 for S3); libcurl signs it with the
  // other x-amz-* headers.
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest);
  req.headers = {"Content-Type: application/x-ndjson",
                 absl::StrCat("x-amz-content-sha256: ",
                              absl::BytesToHexString(absl::string_view(
                                  reinterpret_cast<const char*>(digest), sizeof(digest))))};
  req.timeout = absl::Milliseconds(config_.api_timeout_ms);
  req.aws_sigv4 = HttpRequest::AwsSigV4{absl::StrCat("aws:amz:", config_.region, ":s3"),
                                        config_.access_key, config_.secret_key};
  absl::StatusOr<HttpResult> res = http_->Do(req);
  if (!res.ok()) return absl::UnavailableError(absl::StrCat("S3 DLQ: ", res.status().message()));
  if (res->status < 200 || res->status >= 300) {
    return absl::UnavailableError(absl::StrCat("S3 DLQ: PUT ", RedactUrl(req.url), "/", config_.bucket,
                                               "/... -> HTTP ", res->status));
  }
  return absl::OkStatus();
}

std::string BlobStorageDlqWriter::Line(const FailedMessage& f) {
  const Message& m = f.message;
  nlohmann::json j;
  j["key"] = absl::Base64Escape(m.key.value_or(""));
  j["value"] = absl::Base64Escape(m.value);
  j["topic"] = m.topic;
  j["partition"] = m.partition;
  j["offset"] = m.offset;
  j["timestamp"] = m.timestamp_ms;
  j["error"] = absl::StrCat(ErrorTypeName(f.error_type), ": ", f.error);
  j["error_type"] = std::string(ErrorTypeName(f.error_type));
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string BlobStorageDlqWriter::ObjectName(const std::string& prefix, const std::string& topic,
                                             const std::string& date, const std::string& uuid) {
  return absl::StrCat(prefix, prefix.empty() ? "" : "/", topic, "/", date, "/", uuid);
}

std::vector<FailedMessage> BlobStorageDlqWriter::Write(const std::vector<FailedMessage>& messages) {
  // (topic, consume date) -> indices, in order.
  std::map<std::pair<std::string, std::string>, std::vector<size_t>> groups;
  for (size_t i = 0; i < messages.size(); ++i) {
    const Message& m = messages[i].message;
    std::string date = absl::FormatTime("%Y-%m-%d", absl::FromUnixMillis(m.consume_timestamp_ms),
                                        absl::UTCTimeZone());
    groups[{m.topic, date}].push_back(i);
  }
  std::vector<FailedMessage> not_written;
  for (const auto& [where, indices] : groups) {
    std::string data;
    for (size_t i : indices) absl::StrAppend(&data, data.empty() ? "" : "\n", Line(messages[i]));
    std::string name = ObjectName(prefix_, where.first, where.second, Uuid());
    if (absl::Status s = store_->Put(name, data); !s.ok()) {
      for (size_t i : indices) {
        FailedMessage f = messages[i];
        f.error = absl::StrCat(f.error, " (DLQ write failed: ", s.message(), ")");
        not_written.push_back(std::move(f));
      }
    }
  }
  return not_written;
}

}  // namespace sluice::sink
