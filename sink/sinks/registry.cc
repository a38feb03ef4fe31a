#include "sink/sinks/registry.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sink/sinks/bigquery/bigquery_sink.h"
#include "sink/sinks/clickhouse/clickhouse_sink.h"
#include "sink/sinks/elasticsearch/es_sink.h"
#include "sink/sinks/grpc/grpc_sink.h"
#include "sink/sinks/http/http_sink.h"
#include "sink/sinks/httpv2/httpv2_sink.h"
#include "sink/sinks/influxdb/influx_sink.h"
#include "sink/sinks/jdbc/jdbc_sink.h"
#include "sink/sinks/log/log_sink.h"
#include "sink/sinks/mongodb/mongo_sink.h"
#include "sink/sinks/prometheus/prom_sink.h"
#include "sink/sinks/redis/redis_sink.h"

namespace sluice::sink {
namespace {

using Factory = absl::StatusOr<std::unique_ptr<Sink>> (*)(const SinkContext&);

struct Entry {
  absl::string_view type;  // SINK_TYPE, lower case
  Factory create;
};

// The registry: one row per folder under sink/sinks/. Keep sorted by type.
constexpr Entry kSinks[] = {
    {"bigquery", &CreateFromContext<BigQuerySink>},
    {"clickhouse", &CreateFromContext<ClickHouseSink>},
    {"elasticsearch", &CreateFromContext<EsSink>},
    {"grpc", &CreateFromContext<GrpcSink>},
    {"http", &CreateFromContext<HttpSink>},
    {"httpv2", &CreateFromContext<Httpv2Sink>},
    {"influxdb", &CreateFromContext<InfluxSink>},
    {"jdbc", &CreateFromContext<JdbcSink>},
    {"log", &CreateFromContext<LogSink>},
    {"mongodb", &CreateFromContext<MongoSink>},
    {"prometheus", &CreateFromContext<PromSink>},
    {"redis", &CreateFromContext<RedisSink>},
};

}  // namespace

absl::StatusOr<std::unique_ptr<Sink>> CreateSink(absl::string_view type,
                                                 const SinkContext& ctx) {
  std::string want = absl::AsciiStrToLower(absl::StripAsciiWhitespace(type));
  for (const Entry& e : kSinks) {
    if (e.type == want) {
      if (ctx.env == nullptr || ctx.metrics == nullptr) {
        return absl::InvalidArgumentError("CreateSink: SinkContext needs env and metrics");
      }
      return e.create(ctx);
    }
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown SINK_TYPE \"", type,
                                                 "\"; known types: ",
                                                 absl::StrJoin(KnownSinkTypes(), ", ")));
}

std::vector<std::string> KnownSinkTypes() {
  std::vector<std::string> out;
  for (const Entry& e : kSinks) out.emplace_back(e.type);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace sluice::sink
