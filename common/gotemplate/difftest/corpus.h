// The differential test's corpus: template cases rendered by Go's
// text/template (render.go) and by common/gotemplate.
#ifndef SLUICE_COMMON_GOTEMPLATE_DIFFTEST_CORPUS_H_
#define SLUICE_COMMON_GOTEMPLATE_DIFFTEST_CORPUS_H_

#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace sluice::gotemplate::difftest {

// One rendering: template text with its delimiters, and the data.
struct Case {
  std::string name;
  std::string left, right;
  std::string text;
  nlohmann::json data;
};

// The data sets every corpus template is rendered with.
std::vector<nlohmann::json> DataSets();

// Hand-written templates covering every construct (with {{ }}).
std::vector<std::string> HandTemplates();

// `n` templates generated from a grammar of actions, pipelines and
// functions, deterministically from `seed`.
std::vector<std::string> GeneratedTemplates(int n, uint32_t seed);

// Realistic Siren notifications (.Data/.Labels/.UniqueKey) for alerts, to
// render Siren's default receiver templates with.
std::vector<nlohmann::json> AlertNotifications();

}  // namespace sluice::gotemplate::difftest

#endif  // SLUICE_COMMON_GOTEMPLATE_DIFFTEST_CORPUS_H_
