#include "sink/metrics_statsd.h"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace sluice::sink {

std::string StatsdLine(absl::string_view name, double value, absl::string_view type,
                       const Tags& tags, const Tags& global) {
  std::string line = absl::StrCat(name, ":", value, "|", type);
  bool first = true;
  for (const Tags* list : {&tags, &global}) {
    for (const auto& [k, v] : *list) {
      absl::StrAppend(&line, first ? "|#" : ",", k, ":", v);
      first = false;
    }
  }
  return line;
}

absl::StatusOr<std::unique_ptr<StatsdMetrics>> StatsdMetrics::Create(const MetricConfig& config) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* res = nullptr;
  std::string port = std::to_string(config.statsd_port);
  int rc = getaddrinfo(config.statsd_host.c_str(), port.c_str(), &hints, &res);
  if (rc != 0 || res == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("METRIC_STATSD_HOST ", config.statsd_host,
                                                   " does not resolve: ", gai_strerror(rc)));
  }
  int fd = socket(res->ai_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0 || connect(fd, res->ai_addr, res->ai_addrlen) != 0) {
    std::string err = std::strerror(errno);
    freeaddrinfo(res);
    if (fd >= 0) close(fd);
    return absl::InvalidArgumentError(absl::StrCat("StatsD socket: ", err));
  }
  freeaddrinfo(res);
  return std::unique_ptr<StatsdMetrics>(new StatsdMetrics(fd, config.statsd_tags));
}

StatsdMetrics::~StatsdMetrics() { close(fd_); }

void StatsdMetrics::Send(const std::string& line) {
  // Errors (no listener: ECONNREFUSED) are ignored, as StatsD clients do.
  (void)!send(fd_, line.data(), line.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
}

void StatsdMetrics::Increment(absl::string_view name, const Tags& tags, double n) {
  Send(StatsdLine(name, n, "c", tags, global_));
}

void StatsdMetrics::Observe(absl::string_view name, const Tags& tags, double value) {
  Send(StatsdLine(name, value, absl::EndsWith(name, "_milliseconds") ? "ms" : "h", tags, global_));
}

void StatsdMetrics::Gauge(absl::string_view name, const Tags& tags, double value) {
  Send(StatsdLine(name, value, "g", tags, global_));
}

}  // namespace sluice::sink
