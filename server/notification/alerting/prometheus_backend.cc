#include "server/notification/alerting/prometheus_backend.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace sluice::notification::alerting {

namespace {

// Closes a file descriptor on scope exit.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

absl::Status Errno(const std::string& what) {
  return absl::InternalError(absl::StrCat(what, ": ", std::strerror(errno)));
}

absl::Status WriteAll(int fd, const std::string& s, const std::string& what) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Errno(what);
    done += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

std::string RuleFileName(const AlertNamespace& ns) {
  return absl::StrCat("sluice-p", ns.provider_id, "-n", ns.id, ".rules.yml");
}

std::string Trimmed(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

// Splits an absolute file path into its directory and name.
std::pair<std::string, std::string> SplitPath(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {".", path};
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

}  // namespace

absl::Status ProviderRefused(absl::string_view what, long status) {
  const char* why = status >= 500   ? "the provider failed"
                    : status >= 400 ? "the provider refused the request"
                                    : "unexpected answer";
  return absl::FailedPreconditionError(absl::StrCat(
      what, ": HTTP ", status, " (", why, "; its answer is not quoted, see the provider's log)"));
}

absl::Status WriteConfined(const std::string& dir, const std::string& name,
                           const std::string& content, std::optional<std::string>* previous) {
  if (name.empty() || name[0] == '.' || name.find('/') != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat("file name \"", name, "\" is not allowed"));
  }
  Fd d(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (d.get() < 0) return Errno(absl::StrCat("open directory ", dir));
  if (previous != nullptr) {
    *previous = std::nullopt;
    Fd old(openat(d.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (old.get() >= 0) {
      std::string text;
      char buf[8192];
      ssize_t n;
      while ((n = read(old.get(), buf, sizeof(buf))) > 0) text.append(buf, static_cast<size_t>(n));
      if (n < 0) return Errno(absl::StrCat("read ", dir, "/", name));
      *previous = std::move(text);
    } else if (errno != ENOENT) {
      return Errno(absl::StrCat("open ", dir, "/", name));
    }
  }
  std::string tmp = absl::StrCat(".", name, ".", getpid(), ".tmp");
  (void)unlinkat(d.get(), tmp.c_str(), 0);
  // 0640, not world-readable: the Alertmanager config carries the hook
  // tokens (review R3-L5). Prometheus and Alertmanager read through the
  // group (the shared volume's, e.g. Kubernetes fsGroup). fchmod makes the
  // mode exact whatever the umask.
  Fd f(openat(d.get(), tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
              kConfinedFileMode));
  if (f.get() < 0) return Errno(absl::StrCat("create ", dir, "/", tmp));
  absl::Status st = absl::OkStatus();
  if (fchmod(f.get(), kConfinedFileMode) != 0) st = Errno(absl::StrCat("chmod ", dir, "/", tmp));
  if (st.ok()) st = WriteAll(f.get(), content, absl::StrCat("write ", dir, "/", tmp));
  if (st.ok() && fsync(f.get()) != 0) st = Errno(absl::StrCat("fsync ", dir, "/", tmp));
  if (st.ok() && renameat(d.get(), tmp.c_str(), d.get(), name.c_str()) != 0) {
    st = Errno(absl::StrCat("rename to ", dir, "/", name));
  }
  if (!st.ok()) (void)unlinkat(d.get(), tmp.c_str(), 0);
  return st;
}

nlohmann::json PrometheusRuleFile(const AlertNamespace& ns,
                                  const std::map<std::string, RuleGroups>& groups) {
  nlohmann::json out = {{"groups", nlohmann::json::array()}};
  std::string label = absl::StrCat(ns.provider_id, "/", ns.id);
  for (const auto& [rule_namespace, list] : groups) {
    for (nlohmann::json g : list) {
      g["name"] = absl::StrCat(rule_namespace, "/", g.value("name", ""));
      for (nlohmann::json& r : g["rules"]) {
        if (r.contains("alert")) r["labels"][kNamespaceLabel] = label;
      }
      out["groups"].push_back(std::move(g));
    }
  }
  return out;
}

absl::StatusOr<nlohmann::json> AlertmanagerConfig(const PrometheusOptions& o,
                                                  const AlertHookSecrets& hook_secrets,
                                                  const std::vector<NamespaceRoute>& routes) {
  nlohmann::json receivers = nlohmann::json::array({{{"name", "sluice-none"}}});
  nlohmann::json children = nlohmann::json::array();
  for (const NamespaceRoute& r : routes) {
    std::string name = absl::StrCat("sluice-p", r.provider.id, "-n", r.ns.id);
    auto token = NamespaceHookTokenFor(hook_secrets, "prometheus", r.provider.id, r.ns.id);
    if (!token.ok()) return token.status();
    nlohmann::json webhook = {
        {"url", absl::StrCat(Trimmed(o.hook_base_url), "/v1beta1/alerts/prometheus/",
                             r.provider.id, "/", r.ns.id)},
        {"send_resolved", true},
        {"http_config", {{"authorization", {{"type", "Bearer"}, {"credentials", *token}}}}}};
    receivers.push_back({{"name", name}, {"webhook_configs", nlohmann::json::array({webhook})}});
    children.push_back(
        {{"receiver", name},
         {"matchers", nlohmann::json::array(
                          {absl::StrCat(kNamespaceLabel, "=\"", r.provider.id, "/", r.ns.id, "\"")})}});
  }
  // Siren's cortex config groups by these labels (plugins/providers/cortex/
  // v1/config/config.goyaml).
  nlohmann::json route = {
      {"receiver", "sluice-none"},
      {"group_by", {"alertname", "severity", "owner", "service_name", "time_stamp", "identifier"}},
      {"group_wait", o.group_wait},
      {"group_interval", o.group_interval},
      {"repeat_interval", o.repeat_interval},
      {"routes", children}};
  return nlohmann::json{{"route", route}, {"receivers", receivers}};
}

absl::Status PrometheusBackend::Reload(const std::string& what, const std::string& base) {
  HttpRequest req;
  req.method = "POST";
  req.url = absl::StrCat(Trimmed(base), "/-/reload");
  req.timeout = absl::Seconds(10);
  auto res = http_->Do(req);
  if (!res.ok()) {
    return absl::Status(res.status().code(),
                        absl::StrCat(what, " reload: ", res.status().message()));
  }
  if (res->status < 200 || res->status >= 300) {
    return ProviderRefused(absl::StrCat(what, " reload"), res->status);
  }
  return absl::OkStatus();
}

absl::Status PrometheusBackend::SyncRules(const AlertProvider& provider, const AlertNamespace& ns,
                                          const std::map<std::string, RuleGroups>& groups) {
  if (options_.rules_dir.empty()) {
    return absl::FailedPreconditionError(
        "provider type prometheus: notification.prometheus.rules_dir is not configured");
  }
  absl::MutexLock lock(&mu_);
  std::string name = RuleFileName(ns);
  std::optional<std::string> previous;
  std::string text = PrometheusRuleFile(ns, groups).dump(2) + "\n";
  if (auto st = WriteConfined(options_.rules_dir, name, text, &previous); !st.ok()) return st;
  std::string what = absl::StrCat("prometheus provider ", provider.urn);
  absl::Status st = Reload(what, provider.host);
  if (!st.ok()) {
    // Put the former rules back (and let Prometheus load them again).
    if (previous) {
      (void)WriteConfined(options_.rules_dir, name, *previous);
    } else {
      Fd d(open(options_.rules_dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (d.get() >= 0) (void)unlinkat(d.get(), name.c_str(), 0);
    }
    (void)Reload(what, provider.host);
  }
  return st;
}

absl::Status PrometheusBackend::SyncRoutes(const std::vector<NamespaceRoute>& routes) {
  if (options_.alertmanager_config_file.empty() || options_.alertmanager_url.empty() ||
      options_.hook_base_url.empty()) {
    return absl::FailedPreconditionError(
        "provider type prometheus: notification.prometheus.alertmanager_config_file, "
        "notification.prometheus.alertmanager_url and notification.alert_hook_base_url must "
        "be configured");
  }
  auto config = AlertmanagerConfig(options_, *hook_secrets_, routes);
  if (!config.ok()) return config.status();
  absl::MutexLock lock(&mu_);
  auto [dir, name] = SplitPath(options_.alertmanager_config_file);
  std::optional<std::string> previous;
  std::string text = config->dump(2) + "\n";
  if (auto st = WriteConfined(dir, name, text, &previous); !st.ok()) return st;
  absl::Status st = Reload("alertmanager", options_.alertmanager_url);
  if (!st.ok() && previous) {
    (void)WriteConfined(dir, name, *previous);
    (void)Reload("alertmanager", options_.alertmanager_url);
  }
  return st;
}

}  // namespace sluice::notification::alerting
