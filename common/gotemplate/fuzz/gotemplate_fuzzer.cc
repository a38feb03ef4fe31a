// libFuzzer target: the Go template engine (common/gotemplate) parsing and
// executing arbitrary templates against fixed data, with tight budgets.
// Built and run by scripts/fuzz-gotemplate.sh (clang, ASan + UBSan). Any
// crash, sanitizer report, escaped exception, timeout or excessive memory
// fails; so does an Internal status (a JSON type error leaking out of the
// executor) or an output over the output budget.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/gotemplate/gotemplate.h"

namespace {

const nlohmann::json& Data() {
  static const nlohmann::json* data = new nlohmann::json(nlohmann::json::parse(R"({
    "Data": {"status": "firing", "severity": "CRITICAL", "num_alerts_firing": 2, "summary": "a\nb",
             "ratio": 0.5, "none": null, "debug": {"b": "two", "a": "one"}},
    "Labels": {"severity": "CRITICAL", "alertname": "cpu"}, "UniqueKey": "k",
    "l": [1, "x", null, true, {"k": "v"}, [1, [2, []]]], "m": {"a": {"b": {"c": "deep"}}}, "e": [], "n": -3
  })"));
  return *data;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  if (size == 0) return 0;
  // The first byte picks the delimiters: Siren's user templates use [[ ]].
  bool brackets = bytes[0] & 1;
  std::string text(reinterpret_cast<const char*>(bytes) + 1, size - 1);
  sluice::gotemplate::Limits limits;
  limits.max_output_bytes = 1 << 20;
  limits.max_time = std::chrono::milliseconds(500);
  limits.max_exec_depth = 50;
  auto out = sluice::gotemplate::Render("fuzz", text, Data(), brackets ? "[[" : "", brackets ? "]]" : "", limits);
  if (!out.ok() && out.status().code() == absl::StatusCode::kInternal) __builtin_trap();
  if (out.ok() && out->size() > limits.max_output_bytes) __builtin_trap();
  return 0;
}
