// libFuzzer target: template validation and rendering (kainjow Mustache with
// Sluice's limits) on arbitrary bodies, against a fixed data object with
// nested lists. Built and run by scripts/fuzz-template.sh (clang, ASan +
// UBSan), not by Bazel. Any crash, sanitizer report, exception, timeout or
// excessive memory fails; so does a body that passes validation while
// breaking the limits.
#include <cstddef>
#include <cstdint>
#include <string>

#include "server/notification/core/template_engine.h"

namespace {

const nlohmann::json& Data() {
  static const nlohmann::json* data = new nlohmann::json(nlohmann::json::parse(R"({
    "status": "firing", "firing": true, "resolved": false, "n": 3, "ratio": 0.5, "none": null,
    "text": "a \"quoted\" <b>&</b>\n\u0001 ünïcode",
    "alerts": [
      {"labels": {"alertname": "A", "severity": "page"}, "annotations": {"summary": "s"},
       "tags": ["x", "y"], "firing": true},
      {"labels": {"alertname": "B"}, "annotations": {}, "tags": [], "firing": false}
    ],
    "matrix": [[1, 2], [3, [4, 5]]], "empty": [], "obj": {"a": {"b": {"c": "deep"}}}
  })"));
  return *data;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  std::string body(reinterpret_cast<const char*>(bytes), size);
  absl::Status limits = sluice::notification::CheckTemplateLimits(body);
  absl::Status valid = sluice::notification::ValidateTemplateBody(body);
  // Validation applies the limits first: what breaks them never parses.
  if (!limits.ok() && valid.ok()) __builtin_trap();
  if (!valid.ok()) return 0;
  sluice::notification::Template t;
  t.name = "fuzz";
  t.body = body;
  t.variables = {{"n", "", "7", ""}, {"extra", "", "{\"x\": 1}", ""}};
  for (const char* type : {"", "slack", "http"}) {
    auto text = sluice::notification::RenderTemplateText(t, Data(), type);
    if (text.ok() && text->size() > sluice::notification::kMaxRenderBytes * 7) __builtin_trap();
    (void)sluice::notification::RenderPayload(t, Data(), type);
  }
  return 0;
}
