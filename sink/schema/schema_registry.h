// The schema registry client (Firehose's Stencil): loads binary
// google.protobuf.FileDescriptorSet files (`protoc --include_imports
// --descriptor_set_out`) from SCHEMA_REGISTRY_STENCIL_URLS (http(s):// via
// libcurl, or file://), builds one descriptor pool, and finds messages by full
// proto name or by Java class name. With CACHE_AUTO_REFRESH a background
// thread re-fetches every CACHE_TTL_MS and swaps the pool atomically; workers
// keep decoding with the snapshot they hold.
#ifndef SLUICE_SINK_SCHEMA_SCHEMA_REGISTRY_H_
#define SLUICE_SINK_SCHEMA_SCHEMA_REGISTRY_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/http_client.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/descriptor.pb.h"
#include "google/protobuf/descriptor_database.h"
#include "google/protobuf/dynamic_message.h"
#include "sink/config.h"

namespace sluice::sink {

// One immutable loaded schema: a descriptor pool plus the Java-name index.
// Thread-safe.
class Schema {
 public:
  // Builds a pool from descriptor sets (files may repeat across sets; the
  // first wins). InvalidArgument when a set does not parse or a file's
  // imports are missing. `version` labels the snapshot (e.g. "3").
  static absl::StatusOr<std::shared_ptr<const Schema>> Build(
      const std::vector<std::string>& descriptor_sets, std::string version);

  // Finds a message by full proto name ("pkg.Outer.Inner") or Java class name
  // ("com.example.OuterClass$Inner", "com.example.Outer.Inner", or
  // "com.example.Inner" with java_multiple_files). NotFound names `name`.
  absl::StatusOr<const google::protobuf::Descriptor*> FindMessage(absl::string_view name) const;

  // The DynamicMessage prototype of `descriptor` (which must come from this
  // schema's pool).
  const google::protobuf::Message* Prototype(const google::protobuf::Descriptor* descriptor) const;

  const std::string& version() const { return version_; }
  const google::protobuf::DescriptorPool* pool() const { return pool_.get(); }

 private:
  Schema() = default;
  std::unique_ptr<google::protobuf::SimpleDescriptorDatabase> db_;
  std::unique_ptr<google::protobuf::DescriptorPool> pool_;
  std::map<std::string, std::string> java_names_;  // Java class name -> full proto name
  std::string version_;
  mutable absl::Mutex mu_;
  mutable google::protobuf::DynamicMessageFactory factory_ ABSL_GUARDED_BY(mu_);
};

// Java class names of every message in `file` (outer class from
// java_outer_classname or the CamelCased file name, java_multiple_files,
// nested classes with both '$' and '.'), mapped to full proto names.
std::map<std::string, std::string> JavaClassNames(const google::protobuf::FileDescriptorProto& file);

// The largest answer a schema registry URL may send, in bytes. Descriptor
// sets are kilobytes to a few megabytes; the cap keeps a misbehaving or
// hostile endpoint from filling the sink's memory (review L4).
inline constexpr int64_t kMaxSchemaResponseBytes = int64_t{64} << 20;  // 64 MiB

// Fetches `url` (file://, http://, https://) with the configured timeout,
// headers, retries and backoff. http(s) goes through `http` (default: the
// shared libcurl client, common/http_client.h), so other schemes and denied
// addresses fail, also after a redirect (at most 5 are followed). Errors:
// NotFound naming the file when it cannot be read, ResourceExhausted (not
// retried) for an answer over kMaxSchemaResponseBytes, Unavailable otherwise
// (naming the URL, or only its scheme://host:port for transport errors).
// `stop_requested` (may be null) is polled every 100 ms during the backoff
// sleeps and before each attempt: once it returns true the fetcher returns
// Cancelled at once, so a SIGTERM during start-up is honoured (issue 29).
// `on_retry` (may be null) gets each failure that will be retried.
using Fetcher = std::function<absl::StatusOr<std::string>(const std::string& url)>;
Fetcher MakeFetcher(const SchemaConfig& config, std::shared_ptr<HttpClient> http = nullptr,
                    std::function<bool()> stop_requested = nullptr,
                    std::function<void(const absl::Status&)> on_retry = nullptr);

class SchemaRegistry {
 public:
  // Loads every URL once (a failure stops start-up with the URL named) and,
  // when config.cache_auto_refresh, starts the refresh thread. `fetch`
  // defaults to MakeFetcher(config).
  static absl::StatusOr<std::unique_ptr<SchemaRegistry>> Create(const SchemaConfig& config,
                                                                Fetcher fetch = nullptr);
  ~SchemaRegistry();

  // The current snapshot (never null). Cheap: one atomic load.
  std::shared_ptr<const Schema> Current() const;

  // Re-fetches now; swaps the snapshot when the content or version changed.
  // Returns whether it changed. On error the old snapshot stays.
  absl::StatusOr<bool> Refresh();

 private:
  SchemaRegistry(SchemaConfig config, Fetcher fetch);
  absl::StatusOr<std::shared_ptr<const Schema>> Load(bool* changed);
  void RefreshLoop();

  const SchemaConfig config_;
  const Fetcher fetch_;
  std::shared_ptr<const Schema> current_;  // accessed with std::atomic_load/store
  std::mutex load_mu_;                     // serialises Refresh()
  std::string last_content_;               // fetched bytes behind current_ (under load_mu_)
  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::thread refresher_;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SCHEMA_SCHEMA_REGISTRY_H_
