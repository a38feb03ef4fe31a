#include "sink/app.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <cstdio>
#include <memory>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/logging.h"
#include "common/trace/otel_env.h"
#include "spdlog/sinks/stdout_color_sinks.h"
#include "spdlog/spdlog.h"
#include "sink/config.h"
#include "sink/control/control_service.h"
#include "sink/decorators/factory.h"
#include "sink/dlq/dlq_writers.h"
#include "sink/filter/filter_factory.h"
#include "sink/firehose_variables.h"
#include "sink/metrics_prometheus.h"
#include "sink/metrics_statsd.h"
#include "sink/schema/json_decoder.h"
#include "sink/schema/proto_decoder.h"
#include "sink/schema/schema_registry.h"
#include "sink/sinks/registry.h"
#include "sink/sinks/unsupported.h"
#include "sink/source/kafka_consumer.h"
#include "sink/source/offset_store.h"
#include "sink/worker.h"

namespace sluice::sink {
namespace {

// After the first SIGTERM/SIGINT the process exits within this long, whatever
// the sink and the broker do: the workers get their shutdown budget
// (WorkerOptions::shutdown_budget) for the batch in hand, the final commit
// and leaving the group, and a watchdog ends the process at this bound.
// Records not committed by then are redelivered (nothing is lost).
constexpr absl::Duration kHardExitAfter = absl::Seconds(13);

int ConfigError(const absl::Status& s) {
  spdlog::error("sluice-sink: configuration error: {}", std::string(s.message()));
  return 2;
}

// StatsD always (UDP, fire and forget), Prometheus when a port is set.
struct MetricsParts {
  std::unique_ptr<StatsdMetrics> statsd;
  std::unique_ptr<PrometheusMetrics> prom;
  std::unique_ptr<FanoutMetrics> fanout;
};

absl::StatusOr<MetricsParts> BuildMetrics(const MetricConfig& config) {
  MetricsParts m;
  if (auto s = StatsdMetrics::Create(config); s.ok()) {
    m.statsd = *std::move(s);
  } else {
    spdlog::warn("StatsD disabled: {}", std::string(s.status().message()));
  }
  if (config.prometheus_port > 0) {
    auto p = PrometheusMetrics::Create(config.prometheus_port, config.statsd_tags);
    if (!p.ok()) return p.status();
    m.prom = *std::move(p);
  }
  std::vector<Metrics*> targets;
  if (m.statsd) targets.push_back(m.statsd.get());
  if (m.prom) targets.push_back(m.prom.get());
  m.fanout = std::make_unique<FanoutMetrics>(targets);
  return m;
}

// One worker and the stages it owns.
struct WorkerParts {
  std::unique_ptr<Decoder> decoder;
  std::unique_ptr<Filter> filter;
  std::unique_ptr<Dispatcher> dispatcher;
  std::unique_ptr<Worker> worker;
};

// What every worker shares.
struct Shared {
  const SinkConfig* cfg;
  const SinkContext* ctx;
  SchemaRegistry* registry;  // null for json input
  Metrics* metrics;
  WorkerControl* control;
};

// Wires worker `i`: its sink instance behind the retry/DLQ chain, decoder,
// filter and consumer (group.instance.id "<id>-i" under static membership).
absl::Status BuildWorker(int i, const Shared& sh, WorkerParts* p) {
  const SinkConfig& cfg = *sh.cfg;
  auto sink = CreateSink(cfg.sink_type, *sh.ctx);
  if (!sink.ok()) return sink.status();
  OffsetStore* store = nullptr;
  if (cfg.jdbc_exactly_once) {
    // The sink instance keeps the transaction; the decorators wrap it.
    store = dynamic_cast<OffsetStore*>(sink->get());
    if (store == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SINK_JDBC_EXACTLY_ONCE_ENABLE=true: SINK_TYPE=", cfg.sink_type,
          " cannot store offsets; set SINK_TYPE=jdbc or unset the variable"));
    }
  }
  DispatcherHooks hooks;
  hooks.stop = [control = sh.control] { return control->StopRequested(); };
  // Retries of a batch keep this worker's consumer polled (and paused), so
  // that unlimited retries never exceed max.poll.interval.ms (review L7).
  // The worker is created below, before any thread runs.
  hooks.keep_alive = [p] { p->worker->KeepAlive(); };
  hooks.make_dlq_writer = CreateDlqWriter;
  auto dispatcher = BuildDispatcher(cfg.errors, *std::move(sink), sh.metrics, std::move(hooks));
  if (!dispatcher.ok()) return dispatcher.status();
  p->dispatcher = *std::move(dispatcher);
  if (sh.registry != nullptr) {
    auto d = ProtoDecoder::Create(sh.registry, cfg.schema.proto_class, cfg.schema.parse_key,
                                  cfg.schema.allow_unknown_fields);
    if (!d.ok()) return d.status();
    p->decoder = *std::move(d);
  } else {
    p->decoder = std::make_unique<JsonDecoder>(cfg.schema.parse_key);
  }
  auto filter = CreateFilter(cfg, sh.registry);
  if (!filter.ok()) return filter.status();
  p->filter = *std::move(filter);
  auto consumer = KafkaConsumer::Create(cfg.source, sh.metrics, i);
  if (!consumer.ok()) return consumer.status();
  WorkerOptions o;
  o.id = i;
  o.max_poll_records = cfg.source.max_poll_records;
  o.poll_timeout = cfg.source.poll_timeout_ms == INT64_MAX
                       ? absl::InfiniteDuration()
                       : absl::Milliseconds(cfg.source.poll_timeout_ms);
  o.async_commit = cfg.source.async_commit;
  o.commit_min_interval = absl::Milliseconds(std::max<int64_t>(
      -1, cfg.source.manual_commit_min_interval_ms));
  p->worker = std::make_unique<Worker>(o, *std::move(consumer), p->decoder.get(), p->filter.get(),
                                       p->dispatcher.get(), sh.metrics, sh.control);
  p->worker->SetOffsetStore(store);
  return absl::OkStatus();
}

// One line per Java-client Kafka property: translated ones as info, ignored
// ones as a warning ("kafka property ... ignored: why").
void LogKafkaNotes(const SinkConfig& cfg) {
  for (const KafkaPropertyNote& n : cfg.kafka_notes) {
    if (n.kind == KafkaPropertyNote::Kind::kTranslated) {
      spdlog::info("kafka property {}: translated {}", n.variable, n.text);
    } else {
      spdlog::warn("kafka property {}: {}", n.variable, n.text);
    }
  }
  if (cfg.source.subscription != cfg.source.topic) {
    spdlog::info("SOURCE_KAFKA_TOPIC={} is a pattern: subscribing to topics matching {}",
                 cfg.source.topic, cfg.source.subscription);
  }
}

// "NO_OP", "JEXL <expression>" or "JSON <schema>" for the start-up line.
std::string FilterSummary(const FilterConfig& f) {
  switch (f.engine) {
    case FilterConfig::Engine::kJexl: return "JEXL " + f.expression;
    case FilterConfig::Engine::kJson: return "JSON " + f.json_schema;
    case FilterConfig::Engine::kTimestamp:
      return absl::StrCat("TIMESTAMP ", f.timestamp_field, " -", f.timestamp_past_window_seconds,
                          "s/+", f.timestamp_future_window_seconds, "s");
    case FilterConfig::Engine::kNoOp: break;
  }
  return "NO_OP";
}

void LogStarted(const SinkConfig& cfg, const ControlServer* server) {
  spdlog::info(
      "sluice-sink started: sink={} topic={} group={} workers={} filter={} control={} ({})",
      cfg.sink_type, cfg.source.topic, cfg.source.group_id, cfg.source.thread_count,
      FilterSummary(cfg.filter),
      server ? ControlListenAddress(cfg.control.host, server->port()) : "off",
      !server                   ? "-"
      : cfg.control.mtls()      ? (cfg.control.has_token() ? "mTLS or token" : "mTLS")
      : cfg.control.has_token() ? (cfg.control.tls_cert_file.empty() ? "token" : "TLS + token")
                                : "loopback, no authentication");
}

// Waits for SIGTERM/SIGINT on its own thread and asks the workers to stop.
// From the first signal on, the process ends within kHardExitAfter: a
// watchdog exits (code 0, the stop was asked for) when the workers have not
// finished by then, and a second signal exits at once.
class SignalWatcher {
 public:
  SignalWatcher(const sigset_t* signals, WorkerControl* control)
      : thread_([this, signals, control] { Watch(signals, control); }) {}
  ~SignalWatcher() {
    done_.store(true);
    thread_.join();
  }

 private:
  static void ForceExit(const char* why) {
    spdlog::warn("{}: exiting now; records not committed yet are redelivered to the group", why);
    spdlog::default_logger()->flush();
    std::fflush(stdout);  // the log sink's output
    _exit(0);
  }

  void Watch(const sigset_t* signals, WorkerControl* control) {
    absl::Time hard_exit = absl::InfiniteFuture();
    timespec slice{0, 200 * 1000 * 1000};
    while (!done_.load()) {
      int sig = sigtimedwait(signals, nullptr, &slice);
      if (sig > 0 && hard_exit != absl::InfiniteFuture()) ForceExit("second stop signal");
      if (sig > 0) {
        spdlog::info("received signal {}: finishing the batch in hand, committing, stopping "
                     "(at most {})", sig, absl::FormatDuration(kHardExitAfter));
        hard_exit = absl::Now() + kHardExitAfter;
        control->RequestStop();
      }
      if (absl::Now() >= hard_exit && !done_.load()) {
        ForceExit(absl::StrCat("shutdown took longer than ", absl::FormatDuration(kHardExitAfter))
                      .c_str());
      }
    }
  }

  std::atomic<bool> done_{false};
  std::thread thread_;
};

// Runs every worker on its own thread until all returned; the number that
// failed. A failing worker stops the others.
int RunWorkers(std::vector<WorkerParts>& parts, WorkerControl& control) {
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
  return failures.load();
}

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
  // `%*`: the trace id of the record being pushed, when it carried one.
  spdlog::set_formatter(NewTraceLogFormatter("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v%*"));

  // Firehose types sluice-sink lacks: one message naming what is supported.
  if (absl::Status s = RefuseUnsupportedTypes(env); !s.ok()) return ConfigError(s);

  // Every Firehose variable that is set gets its one answer here (issue 29).
  std::vector<std::string> variable_warnings;
  absl::Status variables = CheckFirehoseVariables(env, &variable_warnings);
  for (const std::string& w : variable_warnings) spdlog::warn("{}", w);
  if (!variables.ok()) return ConfigError(variables);

  auto cfg_or = ParseSinkConfig(env);
  if (!cfg_or.ok()) return ConfigError(cfg_or.status());
  const SinkConfig cfg = *std::move(cfg_or);
  LogKafkaNotes(cfg);
  auto metrics = BuildMetrics(cfg.metrics);
  if (!metrics.ok()) return ConfigError(metrics.status());
  // OTEL_*: a bad value stops the start naming the variable. Sink spans
  // (children of records' traceparent headers) are exported when an
  // endpoint is set; the dropped-spans count is not a sink metric.
  std::deque<std::string> otel_values;  // keeps what the reader returns alive
  auto tracing_config = trace::TracingConfigFromEnv("sluice-sink", [&](const char* n) -> const char* {
    auto v = env.Get(n);
    if (!v) return nullptr;
    otel_values.push_back(*v);
    return otel_values.back().c_str();
  });
  if (!tracing_config.ok()) return ConfigError(tracing_config.status());
  auto tracing = trace::Tracing::Start(*tracing_config, nullptr);

  // Stop signals are honoured from here on, also while the start-up schema
  // fetch retries (issue 29); the watchdog also covers the teardown below.
  WorkerControl control;
  auto signals = std::make_unique<SignalWatcher>(&stop_signals, &control);

  // The control API answers from here on; GetStatus shows "not started" and
  // why (e.g. the schema fetch failing) until the workers run (issue 29).
  StartupState startup;
  std::unique_ptr<SchemaRegistry> registry;  // outlives control_server's use of it
  std::unique_ptr<ControlServer> control_server;
  if (cfg.control.port > 0) {
    auto server = ControlServer::Start(cfg.control, {&env, &cfg, &control, nullptr, &startup});
    if (!server.ok()) return ConfigError(server.status());
    control_server = *std::move(server);
  }
  if (cfg.schema.data_type == SchemaConfig::DataType::kProtobuf) {
    startup.SetNotStarted("loading the schema registry (SCHEMA_REGISTRY_STENCIL_URLS)");
    auto r = SchemaRegistry::Create(
        cfg.schema,
        MakeFetcher(
            cfg.schema, nullptr, [&control] { return control.StopRequested(); },
            [&startup](const absl::Status& s) {
              startup.SetNotStarted(absl::StrCat("start-up schema fetch failing, retrying: ",
                                                 s.message()));
            }));
    if (!r.ok() && control.StopRequested()) {
      spdlog::info("sluice-sink stopped during the start-up schema fetch: {}",
                   std::string(r.status().message()));
      return 0;
    }
    if (!r.ok()) return ConfigError(r.status());
    registry = *std::move(r);
  }
  SinkContext ctx{&env, metrics->fanout.get(), nullptr};
  if (registry) {
    ctx.find_message = [reg = registry.get()](absl::string_view name) {
      return reg->Current()->FindMessage(name);
    };
  }

  const Shared shared{&cfg, &ctx, registry.get(), metrics->fanout.get(), &control};
  std::vector<WorkerParts> parts(cfg.source.thread_count);
  for (int i = 0; i < cfg.source.thread_count; ++i) {
    if (absl::Status s = BuildWorker(i, shared, &parts[i]); !s.ok()) return ConfigError(s);
  }
  startup.MarkStarted(registry.get());
  LogStarted(cfg, control_server.get());

  const int failures = RunWorkers(parts, control);
  if (control_server) control_server->Shutdown();
  // Destroy workers (and their consumers) before the shared services.
  parts.clear();
  signals.reset();
  if (failures > 0) {
    spdlog::error("sluice-sink stopped after a fatal error: {}", control.LastError());
    return 1;
  }
  spdlog::info("sluice-sink stopped cleanly");
  return 0;
}

}  // namespace sluice::sink
