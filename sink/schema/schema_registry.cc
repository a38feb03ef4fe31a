#include "sink/schema/schema_registry.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "nlohmann/json.hpp"
#include "spdlog/spdlog.h"

namespace sluice::sink {
namespace {

using google::protobuf::DescriptorProto;
using google::protobuf::FileDescriptorProto;
using google::protobuf::FileDescriptorSet;

// protoc's rule for the default outer class: the file's base name in
// UpperCamelCase ("sample_log.proto" -> "SampleLog").
std::string DefaultOuterClass(const FileDescriptorProto& file) {
  std::string base = file.name();
  auto slash = base.rfind('/');
  if (slash != std::string::npos) base = base.substr(slash + 1);
  if (absl::EndsWith(base, ".proto")) base.resize(base.size() - 6);
  std::string out;
  bool upper = true;
  for (char c : base) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c))) {
      upper = true;
      continue;
    }
    out.push_back(upper ? absl::ascii_toupper(c) : c);
    upper = absl::ascii_isdigit(static_cast<unsigned char>(c));
  }
  for (const DescriptorProto& m : file.message_type()) {
    if (m.name() == out) return out + "OuterClass";
  }
  return out;
}

void AddNested(const DescriptorProto& m, const std::string& java_prefix_dollar,
               const std::string& java_prefix_dot, const std::string& proto_prefix,
               std::map<std::string, std::string>* out) {
  std::string dollar = java_prefix_dollar + m.name();
  std::string dot = java_prefix_dot + m.name();
  std::string full = proto_prefix + m.name();
  out->emplace(dollar, full);
  out->emplace(dot, full);
  for (const DescriptorProto& n : m.nested_type()) {
    AddNested(n, dollar + "$", dot + ".", full + ".", out);
  }
}

absl::Status TooLarge(const std::string& url) {
  return absl::ResourceExhaustedError(absl::StrCat("schema registry: fetching ", url,
                                                   ": the answer exceeds ",
                                                   kMaxSchemaResponseBytes, " bytes"));
}

// For a failed Stencil "<url>/versions" listing: what to set when the URL is
// a plain descriptor file (Stencil's rule: VERSION_BASED_REFRESH needs a
// Stencil server; a file on a web server needs LONG_POLLING). "" otherwise.
std::string VersionsHint(const std::string& url) {
  if (!absl::EndsWith(url, "/versions")) return "";
  return "; SCHEMA_REGISTRY_STENCIL_REFRESH_STRATEGY=VERSION_BASED_REFRESH (the default) needs a "
         "Stencil server answering <url>/versions; if the URL is a plain descriptor file, set "
         "SCHEMA_REGISTRY_STENCIL_REFRESH_STRATEGY=LONG_POLLING";
}

absl::StatusOr<std::string> FetchOnce(const SchemaConfig& config, HttpClient* http,
                                      const std::string& url) {
  if (absl::StartsWith(url, "file://")) {
    std::string path = url.substr(7);
    std::ifstream in(path, std::ios::binary);
    if (!in) return absl::NotFoundError(absl::StrCat("schema registry: cannot read ", url));
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  HttpRequest req;
  req.method = "GET";
  req.url = url;
  for (const auto& [k, v] : config.fetch_headers) req.headers.push_back(absl::StrCat(k, ": ", v));
  req.timeout = absl::Milliseconds(config.fetch_timeout_ms);
  req.max_response_bytes = static_cast<size_t>(kMaxSchemaResponseBytes);
  req.max_redirects = 5;
  // http/https only (also after a redirect) and the process's deny list.
  absl::StatusOr<HttpResult> res = http->Do(req);
  if (!res.ok()) {
    if (absl::IsFailedPrecondition(res.status())) return TooLarge(url);
    return absl::UnavailableError(absl::StrCat("schema registry: ", res.status().message()));
  }
  if (res->status < 200 || res->status >= 300) {
    return absl::UnavailableError(absl::StrCat("schema registry: fetching ", url, ": HTTP ",
                                               res->status, VersionsHint(url)));
  }
  return std::move(res->body);
}

}  // namespace

std::map<std::string, std::string> JavaClassNames(const FileDescriptorProto& file) {
  std::map<std::string, std::string> out;
  const std::string proto_prefix = file.package().empty() ? "" : file.package() + ".";
  std::string java_pkg =
      file.options().has_java_package() ? file.options().java_package() : file.package();
  std::string pkg_prefix = java_pkg.empty() ? "" : java_pkg + ".";
  std::string outer = file.options().has_java_outer_classname()
                          ? file.options().java_outer_classname()
                          : DefaultOuterClass(file);
  for (const DescriptorProto& m : file.message_type()) {
    if (file.options().java_multiple_files()) {
      AddNested(m, pkg_prefix, pkg_prefix, proto_prefix, &out);
    }
    // Always also index the outer-class form; Java callers use it with
    // java_multiple_files=false, and it is unambiguous either way.
    AddNested(m, pkg_prefix + outer + "$", pkg_prefix + outer + ".", proto_prefix, &out);
  }
  return out;
}

absl::StatusOr<std::shared_ptr<const Schema>> Schema::Build(
    const std::vector<std::string>& descriptor_sets, std::string version) {
  auto schema = std::shared_ptr<Schema>(new Schema());
  schema->db_ = std::make_unique<google::protobuf::SimpleDescriptorDatabase>();
  schema->version_ = std::move(version);
  std::map<std::string, bool> seen;
  std::vector<std::string> message_names;
  for (size_t i = 0; i < descriptor_sets.size(); ++i) {
    FileDescriptorSet set;
    if (!set.ParseFromString(descriptor_sets[i])) {
      return absl::InvalidArgumentError(absl::StrCat(
          "schema registry: source ", i + 1, " is not a binary FileDescriptorSet"));
    }
    for (const FileDescriptorProto& f : set.file()) {
      if (seen[f.name()]) continue;
      seen[f.name()] = true;
      schema->db_->Add(f);
      for (auto& [java, full] : JavaClassNames(f)) schema->java_names_.emplace(java, full);
    }
  }
  schema->pool_ = std::make_unique<google::protobuf::DescriptorPool>(schema->db_.get());
  // Build every file now so that a broken set fails at load, not at decode.
  for (const auto& [name, unused] : seen) {
    if (schema->pool_->FindFileByName(name) == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("schema registry: cannot build ", name, " (missing imports?)"));
    }
  }
  return std::shared_ptr<const Schema>(std::move(schema));
}

absl::StatusOr<const google::protobuf::Descriptor*> Schema::FindMessage(
    absl::string_view name) const {
  std::string n(name);
  if (const auto* d = pool_->FindMessageTypeByName(n)) return d;
  auto it = java_names_.find(n);
  if (it != java_names_.end()) {
    if (const auto* d = pool_->FindMessageTypeByName(it->second)) return d;
  }
  return absl::NotFoundError(
      absl::StrCat("proto class ", name, " not found in the schema registry (version ",
                   version_.empty() ? "-" : version_, ")"));
}

const google::protobuf::Message* Schema::Prototype(
    const google::protobuf::Descriptor* descriptor) const {
  absl::MutexLock l(&mu_);
  return factory_.GetPrototype(descriptor);
}

Fetcher MakeFetcher(const SchemaConfig& config, std::shared_ptr<HttpClient> http,
                    std::function<bool()> stop_requested,
                    std::function<void(const absl::Status&)> on_retry) {
  if (http == nullptr) http = NewCurlHttpClient();
  return [config, http, stop_requested,
          on_retry](const std::string& url) -> absl::StatusOr<std::string> {
    auto stopped = [&stop_requested] { return stop_requested && stop_requested(); };
    auto cancelled = [&url] {
      return absl::CancelledError(
          absl::StrCat("schema registry: stop requested while fetching ", url));
    };
    absl::Status last;
    int64_t backoff_ms = std::min<int64_t>(config.fetch_backoff_min_ms, 60000);
    for (int attempt = 0; attempt <= config.fetch_retries; ++attempt) {
      if (stopped()) return cancelled();
      auto body = FetchOnce(config, http.get(), url);
      // Not retried: a missing file, or an answer over the size cap.
      if (body.ok() || absl::IsNotFound(body.status()) ||
          absl::IsResourceExhausted(body.status())) {
        return body;
      }
      last = body.status();
      if (attempt < config.fetch_retries) {
        spdlog::warn("{} (retrying in {} ms)", std::string(last.message()), backoff_ms);
        if (on_retry) on_retry(last);
        // Sleep in slices so that a stop request ends the wait within 100 ms.
        const absl::Time until = absl::Now() + absl::Milliseconds(backoff_ms);
        while (absl::Now() < until) {
          if (stopped()) return cancelled();
          absl::SleepFor(std::min(absl::Milliseconds(100), until - absl::Now()));
        }
        backoff_ms = std::min<int64_t>(backoff_ms * 2, 600000);
      }
    }
    return last;
  };
}

SchemaRegistry::SchemaRegistry(SchemaConfig config, Fetcher fetch)
    : config_(std::move(config)), fetch_(std::move(fetch)) {}

absl::StatusOr<std::unique_ptr<SchemaRegistry>> SchemaRegistry::Create(const SchemaConfig& config,
                                                                       Fetcher fetch) {
  if (config.urls.empty()) {
    return absl::InvalidArgumentError("SCHEMA_REGISTRY_STENCIL_URLS is empty");
  }
  if (!fetch) fetch = MakeFetcher(config);
  auto reg = std::unique_ptr<SchemaRegistry>(new SchemaRegistry(config, std::move(fetch)));
  bool changed = false;
  auto schema = reg->Load(&changed);
  if (!schema.ok()) return schema.status();
  std::atomic_store(&reg->current_, *schema);
  if (config.cache_auto_refresh) {
    reg->refresher_ = std::thread([r = reg.get()] { r->RefreshLoop(); });
  }
  return reg;
}

SchemaRegistry::~SchemaRegistry() {
  {
    std::lock_guard<std::mutex> l(stop_mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (refresher_.joinable()) refresher_.join();
}

std::shared_ptr<const Schema> SchemaRegistry::Current() const {
  return std::atomic_load(&current_);
}

absl::StatusOr<std::shared_ptr<const Schema>> SchemaRegistry::Load(bool* changed) {
  std::vector<std::string> sets;
  std::string versions;
  for (const std::string& url : config_.urls) {
    std::string target = url;
    if (config_.version_based_refresh && !absl::StartsWith(url, "file://")) {
      // Stencil's VERSION_BASED_REFRESH: <url>/versions lists the versions;
      // the highest is loaded from <url>/versions/<v>. A file:// URL is a
      // descriptor set on disk, with no Stencil server to list versions: it
      // is read as it is.
      auto listing = fetch_(url + "/versions");
      if (!listing.ok()) return listing.status();
      int64_t best = -1;
      try {
        auto j = nlohmann::json::parse(*listing);
        for (const auto& v : j.at("versions")) {
          int64_t n = v.is_string() ? std::stoll(v.get<std::string>()) : v.get<int64_t>();
          best = std::max(best, n);
        }
      } catch (const std::exception& e) {
        return absl::InvalidArgumentError(
            absl::StrCat("schema registry: ", url, "/versions: expected {\"versions\":[...]}: ", e.what()));
      }
      if (best < 0) {
        return absl::InvalidArgumentError(absl::StrCat("schema registry: ", url, "/versions is empty"));
      }
      target = absl::StrCat(url, "/versions/", best);
      absl::StrAppend(&versions, versions.empty() ? "" : ",", best);
    }
    auto body = fetch_(target);
    if (!body.ok()) return body.status();
    sets.push_back(*std::move(body));
  }
  std::string content;
  for (const auto& s : sets) absl::StrAppend(&content, s.size(), ":", s);
  absl::StrAppend(&content, "|", versions);
  *changed = content != last_content_;
  if (!*changed) return Current();
  auto schema = Schema::Build(sets, versions);
  if (!schema.ok()) return schema.status();
  last_content_ = std::move(content);
  return schema;
}

absl::StatusOr<bool> SchemaRegistry::Refresh() {
  std::lock_guard<std::mutex> lock(load_mu_);
  bool changed = false;
  auto schema = Load(&changed);
  if (!schema.ok()) return schema.status();
  if (changed) {
    std::atomic_store(&current_, *schema);
    spdlog::info("schema registry: loaded a new schema{}",
                 (*schema)->version().empty() ? "" : " version " + (*schema)->version());
  }
  return changed;
}

void SchemaRegistry::RefreshLoop() {
  std::unique_lock<std::mutex> l(stop_mu_);
  while (!stopping_) {
    if (stop_cv_.wait_for(l, std::chrono::milliseconds(config_.cache_ttl_ms),
                          [this] { return stopping_; })) {
      break;
    }
    l.unlock();
    auto r = Refresh();
    if (!r.ok()) spdlog::warn("schema refresh failed, keeping the old schema: {}", r.status().ToString());
    l.lock();
  }
}

}  // namespace sluice::sink
