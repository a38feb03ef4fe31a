// Builds the FILTER_ENGINE chosen by the configuration.
#ifndef SLUICE_SINK_FILTER_FILTER_FACTORY_H_
#define SLUICE_SINK_FILTER_FILTER_FACTORY_H_

#include <memory>

#include "absl/status/statusor.h"
#include "sink/config.h"
#include "sink/schema/schema_registry.h"
#include "sink/stages.h"

namespace sluice::sink {

// The filter for `config`: null for FILTER_ENGINE=NO_OP, a JexlFilter for
// JEXL, a JsonFilter for JSON. `registry` (not owned) may be null only when
// no filter reads protobuf. Errors name the FILTER_* variable at fault.
absl::StatusOr<std::unique_ptr<Filter>> CreateFilter(const SinkConfig& config,
                                                     const SchemaRegistry* registry);

}  // namespace sluice::sink

#endif  // SLUICE_SINK_FILTER_FILTER_FACTORY_H_
