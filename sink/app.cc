#include "sink/app.h"

#include <signal.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "spdlog/sinks/stdout_color_sinks.h"
#include "spdlog/spdlog.h"
#include "sink/config.h"
#include "sink/control/control_service.h"
#include "sink/decorators/factory.h"
#include "sink/filter/jexl_filter.h"
#include "sink/metrics_prometheus.h"
#include "sink/metrics_statsd.h"
#include "sink/schema/proto_decoder.h"
#include "sink/schema/schema_registry.h"
#include "sink/sinks/registry.h"
#include "sink/source/kafka_consumer.h"
#include "sink/worker.h"

namespace sluice::sink {
namespace {

int ConfigError(const absl::Status& s) {
  spdlog::error("sluice-sink: configuration error: {}", std::string(s.message()));
  return 2;
}

struct WorkerParts {
  std::unique_ptr<Decoder> decoder;
  std::unique_ptr<Filter> filter;
  std::unique_ptr<Dispatcher> dispatcher;
  std::unique_ptr<Worker> worker;
};

}  // namespace

int RunSinkApp(const Env& env) {
  // Block the stop signals before any thread exists so that every thread
  // (ours, librdkafka's, gRPC's) inherits the mask; one thread sigwaits.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  // Logs go to stderr; stdout belongs to the log sink.
  spdlog::set_default_logger(spdlog::stderr_color_mt("sluice-sink"));
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v");

  auto cfg_or = ParseSinkConfig(env);
  if (!cfg_or.ok()) return ConfigError(cfg_or.status());
  const SinkConfig cfg = *std::move(cfg_or);

  // Metrics: StatsD always (UDP, fire and forget), Prometheus when a port is set.
  NoopMetrics noop;
  std::unique_ptr<StatsdMetrics> statsd;
  if (auto s = StatsdMetrics::Create(cfg.metrics); s.ok()) {
    statsd = *std::move(s);
  } else {
    spdlog::warn("StatsD disabled: {}", std::string(s.status().message()));
  }
  std::unique_ptr<PrometheusMetrics> prom;
  if (cfg.metrics.prometheus_port > 0) {
    auto p = PrometheusMetrics::Create(cfg.metrics.prometheus_port, cfg.metrics.statsd_tags);
    if (!p.ok()) return ConfigError(p.status());
    prom = *std::move(p);
  }
  std::vector<Metrics*> targets;
  if (statsd) targets.push_back(statsd.get());
  if (prom) targets.push_back(prom.get());
  FanoutMetrics metrics(targets);

  // Schema registry.
  std::unique_ptr<SchemaRegistry> registry;
  if (cfg.schema.data_type == SchemaConfig::DataType::kProtobuf) {
    auto r = SchemaRegistry::Create(cfg.schema);
    if (!r.ok()) return ConfigError(r.status());
    registry = *std::move(r);
  }
  SinkContext ctx{&env, &metrics, nullptr};
  if (registry) {
    ctx.find_message = [reg = registry.get()](absl::string_view name) {
      return reg->Current()->FindMessage(name);
    };
  }

  WorkerControl control;
  std::vector<WorkerParts> parts(cfg.source.thread_count);
  for (int i = 0; i < cfg.source.thread_count; ++i) {
    WorkerParts& p = parts[i];
    auto sink = CreateSink(cfg.sink_type, ctx);
    if (!sink.ok()) return ConfigError(sink.status());
    DispatcherHooks hooks;
    hooks.stop = [&control] { return control.StopRequested(); };
    // Retries of a batch keep this worker's consumer polled (and paused), so
    // that unlimited retries never exceed max.poll.interval.ms (review L7).
    // The worker is created below, before any thread runs.
    hooks.keep_alive = [&p] { p.worker->KeepAlive(); };
    auto dispatcher = BuildDispatcher(cfg.errors, *std::move(sink), &metrics, std::move(hooks));
    if (!dispatcher.ok()) return ConfigError(dispatcher.status());
    p.dispatcher = *std::move(dispatcher);
    if (registry) {
      auto d = ProtoDecoder::Create(registry.get(), cfg.schema.proto_class, cfg.schema.parse_key,
                                    cfg.schema.allow_unknown_fields);
      if (!d.ok()) return ConfigError(d.status());
      p.decoder = *std::move(d);
    }
    auto filter = CreateFilter(cfg, registry.get());
    if (!filter.ok()) return ConfigError(filter.status());
    p.filter = *std::move(filter);
    auto consumer = KafkaConsumer::Create(cfg.source, &metrics);
    if (!consumer.ok()) return ConfigError(consumer.status());
    WorkerOptions o;
    o.id = i;
    o.max_poll_records = cfg.source.max_poll_records;
    o.poll_timeout = cfg.source.poll_timeout_ms == INT64_MAX
                         ? absl::InfiniteDuration()
                         : absl::Milliseconds(cfg.source.poll_timeout_ms);
    o.async_commit = cfg.source.async_commit;
    p.worker = std::make_unique<Worker>(o, *std::move(consumer), p.decoder.get(), p.filter.get(),
                                        p.dispatcher.get(), &metrics, &control);
  }

  std::unique_ptr<ControlServer> control_server;
  if (cfg.control.port > 0) {
    ControlDeps deps{&env, &cfg, &control, registry.get()};
    auto server = ControlServer::Start(cfg.control, deps);
    if (!server.ok()) return ConfigError(server.status());
    control_server = *std::move(server);
  }

  spdlog::info(
      "sluice-sink started: sink={} topic={} group={} workers={} filter={} control={} ({})",
      cfg.sink_type, cfg.source.topic, cfg.source.group_id, cfg.source.thread_count,
      cfg.filter.jexl ? cfg.filter.expression : "NO_OP",
      control_server ? ControlListenAddress(cfg.control.host, control_server->port()) : "off",
      !control_server            ? "-"
      : cfg.control.mtls()       ? (cfg.control.has_token() ? "mTLS or token" : "mTLS")
      : cfg.control.has_token()  ? (cfg.control.tls_cert_file.empty() ? "token" : "TLS + token")
                                 : "loopback, no authentication");

  std::atomic<bool> done{false};
  std::thread signals([&] {
    timespec slice{0, 200 * 1000 * 1000};
    while (!done.load()) {
      int sig = sigtimedwait(&stop_signals, nullptr, &slice);
      if (sig > 0) {
        spdlog::info("received signal {}: finishing the batch in hand, committing, stopping", sig);
        control.RequestStop();
      }
    }
  });

  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (WorkerParts& p : parts) {
    threads.emplace_back([&control, &failures, w = p.worker.get()] {
      // Worker::Run catches what its stages throw; this is the last guard, so
      // that nothing reaches std::terminate: the process stops cleanly (exit 1).
      absl::Status s;
      try {
        s = w->Run();
      } catch (const std::exception& e) {
        s = absl::InternalError(absl::StrCat("worker thread: unexpected exception: ", e.what()));
      } catch (...) {
        s = absl::InternalError("worker thread: unexpected non-standard exception");
      }
      if (!s.ok()) {
        if (control.LastError().empty()) control.SetLastError(std::string(s.message()));
        failures.fetch_add(1);
        control.RequestStop();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  done.store(true);
  signals.join();
  if (control_server) control_server->Shutdown();
  // Destroy workers (and their consumers) before the shared services.
  parts.clear();
  if (failures.load() > 0) {
    spdlog::error("sluice-sink stopped after a fatal error: {}", control.LastError());
    return 1;
  }
  spdlog::info("sluice-sink stopped cleanly");
  return 0;
}

}  // namespace sluice::sink
