#include "sink/filter/filter_factory.h"

#include "sink/filter/jexl_filter.h"
#include "sink/filter/json_filter.h"
#include "sink/filter/timestamp_filter.h"

namespace sluice::sink {

absl::StatusOr<std::unique_ptr<Filter>> CreateFilter(const SinkConfig& config,
                                                     const SchemaRegistry* registry) {
  switch (config.filter.engine) {
    case FilterConfig::Engine::kNoOp:
      return std::unique_ptr<Filter>();
    case FilterConfig::Engine::kJexl: {
      auto f = JexlFilter::Create(config.filter, config.schema, registry);
      if (!f.ok()) return f.status();
      return std::unique_ptr<Filter>(*std::move(f));
    }
    case FilterConfig::Engine::kJson: {
      auto f = JsonFilter::Create(config.filter, config.schema, registry);
      if (!f.ok()) return f.status();
      return std::unique_ptr<Filter>(*std::move(f));
    }
    case FilterConfig::Engine::kTimestamp: {
      auto f = TimestampFilter::Create(config.filter, config.schema, registry);
      if (!f.ok()) return f.status();
      return std::unique_ptr<Filter>(*std::move(f));
    }
  }
  return std::unique_ptr<Filter>();
}

}  // namespace sluice::sink
