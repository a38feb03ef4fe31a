#include "common/trace/otel_env.h"

#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/metrics.h"
#include "spdlog/spdlog.h"

namespace sluice::trace {
namespace {

using Getenv = std::function<const char*(const char*)>;

// The value of the first of `names` that is set and non-empty, and its name.
std::pair<std::string, std::string> First(const Getenv& getenv,
                                          std::initializer_list<const char*> names) {
  for (const char* n : names) {
    const char* v = getenv(n);
    if (v != nullptr && *v != '\0') return {n, std::string(absl::StripAsciiWhitespace(v))};
  }
  return {"", ""};
}

absl::Status Invalid(absl::string_view name, absl::string_view value, absl::string_view want) {
  return absl::InvalidArgumentError(
      absl::StrCat(name, "=\"", value, "\" is not valid: want ", want));
}

// A positive integer variable into `out` (unchanged when unset).
absl::Status PositiveInt(const Getenv& getenv, const char* name, int64_t* out) {
  auto [n, v] = First(getenv, {name});
  if (n.empty()) return absl::OkStatus();
  int64_t x = 0;
  if (!absl::SimpleAtoi(v, &x) || x <= 0 || x > (int64_t{1} << 31)) {
    return Invalid(name, v, "a positive integer");
  }
  *out = x;
  return absl::OkStatus();
}

absl::Status Bool(const Getenv& getenv, std::initializer_list<const char*> names, bool* out) {
  auto [n, v] = First(getenv, names);
  if (n.empty()) return absl::OkStatus();
  std::string lower = absl::AsciiStrToLower(v);
  if (lower != "true" && lower != "false") return Invalid(n, v, "true or false");
  *out = lower == "true";
  return absl::OkStatus();
}

// "%XX" decoding of a header value (the W3C Baggage octet rules the OTLP
// spec points at); false on a malformed escape.
bool PercentDecode(absl::string_view in, std::string* out) {
  out->clear();
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%') {
      out->push_back(in[i]);
      continue;
    }
    int hi, lo;
    auto hex = [](char c) {
      return absl::ascii_isdigit(c) ? c - '0'
             : (c >= 'a' && c <= 'f') ? c - 'a' + 10
             : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
    };
    if (i + 2 >= in.size() || (hi = hex(in[i + 1])) < 0 || (lo = hex(in[i + 2])) < 0) {
      return false;
    }
    out->push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return true;
}

absl::Status Endpoint(const Getenv& getenv, TracingConfig* c) {
  auto [n, v] = First(getenv, {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT"});
  if (n.empty()) return absl::OkStatus();
  absl::string_view rest = v;
  bool has_scheme = false;
  if (absl::ConsumePrefix(&rest, "http://")) {
    c->otlp.insecure = true;
    has_scheme = true;
  } else if (absl::ConsumePrefix(&rest, "https://")) {
    c->otlp.insecure = false;
    has_scheme = true;
  } else if (absl::StrContains(rest, "://")) {
    return Invalid(n, v, "http://host:port, https://host:port or host:port");
  }
  absl::ConsumeSuffix(&rest, "/");
  if (rest.empty() || absl::StrContains(rest, "/") || absl::StrContains(rest, "@")) {
    return Invalid(n, v, "http://host:port, https://host:port or host:port (no path)");
  }
  if (!has_scheme) {
    // The INSECURE variables apply only to an endpoint without a scheme.
    c->otlp.insecure = false;
    if (auto st = Bool(getenv, {"OTEL_EXPORTER_OTLP_TRACES_INSECURE", "OTEL_EXPORTER_OTLP_INSECURE"},
                       &c->otlp.insecure);
        !st.ok()) {
      return st;
    }
  }
  c->otlp.target = std::string(rest);
  c->export_enabled = true;
  return absl::OkStatus();
}

absl::Status Headers(const Getenv& getenv, TracingConfig* c) {
  auto [n, v] = First(getenv, {"OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS"});
  if (n.empty()) return absl::OkStatus();
  for (absl::string_view item : absl::StrSplit(v, ',', absl::SkipWhitespace())) {
    std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(item, absl::MaxSplits('=', 1));
    std::string key = absl::AsciiStrToLower(absl::StripAsciiWhitespace(kv.first));
    std::string value;
    if (key.empty() || !PercentDecode(absl::StripAsciiWhitespace(kv.second), &value) ||
        !absl::StrContains(item, "=")) {
      // The value may be a credential: name the variable, not the text.
      return absl::InvalidArgumentError(
          absl::StrCat(n, " is not valid: want key=value[,key=value...]"));
    }
    c->otlp.headers.emplace_back(std::move(key), std::move(value));
  }
  return absl::OkStatus();
}

absl::Status SamplerFromEnv(const Getenv& getenv, Sampler* s) {
  auto [n, v] = First(getenv, {"OTEL_TRACES_SAMPLER"});
  std::string name = n.empty() ? "parentbased_always_on" : v;
  bool ratio_based = false;
  if (name == "always_on" || name == "parentbased_always_on") {
    s->root = Sampler::Root::kAlwaysOn;
  } else if (name == "always_off" || name == "parentbased_always_off") {
    s->root = Sampler::Root::kAlwaysOff;
  } else if (name == "traceidratio" || name == "parentbased_traceidratio") {
    s->root = Sampler::Root::kTraceIdRatio;
    ratio_based = true;
  } else {
    return Invalid("OTEL_TRACES_SAMPLER", v,
                   "always_on, always_off, traceidratio, parentbased_always_on, "
                   "parentbased_always_off or parentbased_traceidratio");
  }
  s->parent_based = absl::StartsWith(name, "parentbased_");
  s->ratio = 1.0;
  auto [an, av] = First(getenv, {"OTEL_TRACES_SAMPLER_ARG"});
  if (ratio_based && !an.empty()) {
    double r = 0;
    if (!absl::SimpleAtod(av, &r) || !(r >= 0.0 && r <= 1.0)) {
      return Invalid("OTEL_TRACES_SAMPLER_ARG", av, "a number from 0 to 1");
    }
    s->ratio = r;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<TracingConfig> TracingConfigFromEnv(absl::string_view default_service_name,
                                                   const Getenv& getenv) {
  TracingConfig c;
  auto [sn, sv] = First(getenv, {"OTEL_SERVICE_NAME"});
  c.otlp.service_name = sn.empty() ? std::string(default_service_name) : sv;
  if (auto [n, v] = First(getenv, {"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
                                   "OTEL_EXPORTER_OTLP_PROTOCOL"});
      !n.empty() && v != "grpc") {
    return Invalid(n, v, "grpc (the only OTLP transport this build exports with)");
  }
  if (auto st = Endpoint(getenv, &c); !st.ok()) return st;
  if (auto st = Headers(getenv, &c); !st.ok()) return st;
  if (auto [n, v] = First(getenv, {"OTEL_TRACES_EXPORTER"}); !n.empty()) {
    if (v == "none") {
      c.export_enabled = false;
    } else if (v != "otlp") {
      return Invalid(n, v, "otlp or none");
    }
  }
  if (auto st = SamplerFromEnv(getenv, &c.sampler); !st.ok()) return st;
  int64_t queue = c.batch.max_queue_size, delay = 5000, batch = c.batch.max_export_batch_size,
          timeout = 30000;
  for (auto [name, out] : {std::pair{"OTEL_BSP_MAX_QUEUE_SIZE", &queue},
                           std::pair{"OTEL_BSP_SCHEDULE_DELAY", &delay},
                           std::pair{"OTEL_BSP_MAX_EXPORT_BATCH_SIZE", &batch},
                           std::pair{"OTEL_BSP_EXPORT_TIMEOUT", &timeout}}) {
    if (auto st = PositiveInt(getenv, name, out); !st.ok()) return st;
  }
  if (batch > queue) {
    return absl::InvalidArgumentError(absl::StrCat(
        "OTEL_BSP_MAX_EXPORT_BATCH_SIZE=", batch, " is not valid: want at most ",
        "OTEL_BSP_MAX_QUEUE_SIZE (", queue, ")"));
  }
  c.batch.max_queue_size = static_cast<size_t>(queue);
  c.batch.schedule_delay = absl::Milliseconds(delay);
  c.batch.max_export_batch_size = static_cast<size_t>(batch);
  c.batch.export_timeout = absl::Milliseconds(timeout);
  return c;
}

std::unique_ptr<Tracing> Tracing::Start(const TracingConfig& config,
                                        prometheus::Registry* registry) {
  std::unique_ptr<Tracing> t(new Tracing());
  if (config.export_enabled) {
    prometheus::Counter* dropped =
        registry != nullptr ? &RegisterSpansDroppedCounter(*registry) : nullptr;
    t->processor_ = std::make_shared<BatchProcessor>(NewOtlpGrpcExporter(config.otlp),
                                                     config.batch, dropped);
    spdlog::info("msg=\"exporting spans over OTLP/gRPC\" target={} tls={} service_name={}",
                 config.otlp.target, config.otlp.insecure ? "off" : "on",
                 config.otlp.service_name);
  }
  SetTracerProvider(config.sampler, t->processor_);
  return t;
}

Tracing::~Tracing() {
  SetTracerProvider(Sampler{}, nullptr);
  if (processor_) processor_->Shutdown();
}

}  // namespace sluice::trace
