// Every Firehose and depot variable, with one answer each (issue 29, item 3).
// The data is sink/firehose_variables.tsv (names and defaults from the
// upstream config classes, goto/firehose 857761c and goto/depot 13215cc),
// compiled in. At start, CheckFirehoseVariables applies it to the
// environment in one place:
//   HONOURED  sluice-sink reads it with Firehose's meaning: nothing to do;
//   REFUSED   ignoring it would change what is delivered: start fails, naming
//             it and the reason (unless it holds the upstream default, or its
//             `when` condition, e.g. SINK_TYPE=BLOB, does not hold: then one
//             warning line);
//   WARNED    ignoring it changes nothing delivered: one warning line.
// A set variable with a Firehose family prefix (the first word of any listed
// name: SINK_, DLQ_, FILTER_, ...) that is on no list gets a warning naming
// the nearest listed name (Kubernetes' <SERVICE>_SERVICE_HOST/_PORT variables
// excepted). SOURCE_KAFKA_CONSUMER_CONFIG_* and DLQ_KAFKA_*
// are exempt: every suffix goes through the Kafka property translation
// (sink/source/kafka_properties.h), which refuses or warns per property.
#ifndef SLUICE_SINK_FIREHOSE_VARIABLES_H_
#define SLUICE_SINK_FIREHOSE_VARIABLES_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "sink/env.h"

namespace sluice::sink {

// What sluice-sink does with a set variable.
enum class VariableAnswer { kHonoured, kRefused, kWarned };

// One row of firehose_variables.tsv.
struct FirehoseVariable {
  std::string name;
  std::string upstream_default;  // "" when upstream has none
  std::string from;              // firehose, depot, *-doc (docs only), sluice
  VariableAnswer answer = VariableAnswer::kHonoured;
  std::string when;     // REFUSED only while "VAR=VALUE" holds ("" = always)
  std::string read_as;  // the literal the code reads it through, "" = name
  std::string note;     // the reason (REFUSED/WARNED) or a remark
};

// The table, sorted by name. Parsed once; a malformed row is a build-time
// bug caught by firehose_variables_test (such rows are skipped).
const std::vector<FirehoseVariable>& FirehoseVariables();

// The families: the first word plus '_' of every listed name, e.g. "SINK_".
const std::vector<std::string>& FirehoseFamilies();

// Levenshtein distance between two names.
int EditDistance(absl::string_view a, absl::string_view b);

// The listed name nearest to `name` (ties: the first in table order).
std::string NearestFirehoseVariable(absl::string_view name);

// Applies the table to `env`. Appends one line per warning to `warnings`
// (not owned, may be null). FailedPrecondition naming every REFUSED variable
// that is set (one per line: "<NAME>=<value>: <reason>").
absl::Status CheckFirehoseVariables(const Env& env, std::vector<std::string>* warnings);

// The "Switching from Firehose" lists for docs/switching-from-firehose.md, rendered
// from the table (firehose_variables_test checks the page holds exactly this
// between its markers).
std::string RenderFirehoseVariablesMarkdown();

}  // namespace sluice::sink

#endif  // SLUICE_SINK_FIREHOSE_VARIABLES_H_
