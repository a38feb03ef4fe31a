// sluice-recorder: runs a scenario (integration/scenarios/*.json) against
// any program's HTTP root, with a capture endpoint playing every receiver,
// and writes the normalized transcript (transcript.h). Used by hand to record
// the real Guardian and Siren (docs/recording-transcripts.md says how).
//
//   bazel run //integration:recorder -- --scenario=integration/scenarios/siren.json \
//     --root=http://127.0.0.1:8080 --upstream='goto/siren 260ef83' \
//     --started='how the program was started, in prose' \
//     --out=$PWD/integration/testdata/siren.transcript.json [--var=name=value ...]
//
// Exit status: 0 when written, 2 on bad arguments or an unreadable scenario.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "integration/fake_http_server.h"
#include "integration/transcript.h"
#include "nlohmann/json.hpp"

namespace {

int Usage(const char* why) {
  std::fprintf(stderr,
               "sluice-recorder: %s\nusage: recorder --scenario=FILE --root=URL --upstream=NAME "
               "--started=PROSE --out=FILE [--var=name=value ...]\n",
               why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string scenario_path, root, upstream, started, out_path;
  nlohmann::json vars = nlohmann::json::object();
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto take = [&](const char* flag, std::string* to) {
      if (!absl::StartsWith(arg, flag)) return false;
      *to = arg.substr(std::string(flag).size());
      return true;
    };
    std::string var;
    if (take("--scenario=", &scenario_path) || take("--root=", &root) ||
        take("--upstream=", &upstream) || take("--started=", &started) ||
        take("--out=", &out_path)) {
      continue;
    }
    if (take("--var=", &var)) {
      std::pair<std::string, std::string> kv = absl::StrSplit(var, absl::MaxSplits('=', 1));
      if (kv.first.empty()) return Usage("--var needs name=value");
      vars[kv.first] = kv.second;
      continue;
    }
    return Usage(("unknown argument " + arg).c_str());
  }
  if (scenario_path.empty() || root.empty() || upstream.empty() || started.empty() ||
      out_path.empty()) {
    return Usage("--scenario, --root, --upstream, --started and --out are required");
  }
  // `bazel run` starts in the runfiles tree; a relative scenario path is the
  // workspace's.
  if (const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY"); ws && scenario_path[0] != '/') {
    scenario_path = std::string(ws) + "/" + scenario_path;
  }
  std::ifstream in(scenario_path);
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json scenario = nlohmann::json::parse(text.str(), nullptr, false);
  if (!scenario.is_object()) return Usage(("unreadable scenario " + scenario_path).c_str());

  auto receiver = sluice::integration::FakeHttpServer::Start();
  if (receiver == nullptr) return Usage("cannot start the capture endpoint");
  sluice::integration::transcript::RecordOptions opts;
  opts.root = root;
  opts.vars = vars;
  opts.receiver = receiver.get();
  nlohmann::json t = sluice::integration::transcript::Record(scenario, opts);

  nlohmann::json doc = {{"upstream", upstream},
                        {"started", started},
                        {"scenario", scenario.value("name", scenario_path)},
                        {"exchanges", t["exchanges"]}};
  std::ofstream out(out_path);
  out << doc.dump(1) << "\n";
  if (!out) return Usage(("cannot write " + out_path).c_str());
  int requests = 0, deliveries = 0, failed = 0;
  for (const auto& e : t["exchanges"]) {
    if (e.contains("delivery")) {
      ++deliveries;
    } else {
      ++requests;
      failed += e.value("status", 0) == 0;
    }
  }
  std::printf("%s: %d exchanges (%d requests, %d deliveries; %d without an answer)\n",
              out_path.c_str(), requests + deliveries, requests, deliveries, failed);
  return 0;
}
