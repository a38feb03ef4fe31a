// Every grpcurl example of the user docs runs, as written, through server
// reflection, against a real sluice-server (header mode, as deployed) and two
// real sluice-sinks (issue #41 item 5).
//
// Where the examples come from: README.md, sink/README.md and docs/*.md (the
// //:user_docs filegroup). An example is a fenced code line that starts with
// `grpcurl ` (a `$ ` prompt allowed), joined with the lines its trailing `\`
// continues, or an inline code span that starts with `grpcurl `. A new example
// is picked up by the next run; nothing is skipped.
//
// How an example is made runnable (kSubstitutions below): each must name
// exactly one address of the table, which becomes the real address of that
// process; the command then runs unchanged under /bin/sh (`set -u`) with
// grpcurl on PATH, in a directory holding `token`, and with SLUICE_PROXY_TOKEN
// set:
//
//   README text             runs against
//   localhost:8081          sluice-server's gRPC port (header mode: calls need
//                           -H "x-sluice-proxy-token: $SLUICE_PROXY_TOKEN" and
//                           -H 'x-auth-email: <an access admin>')
//   localhost:8082          a sluice-sink's control port on loopback, no token
//                           (paused by the test, with 20 records waiting, so
//                           TestFilter's next_records has data to read)
//   pod:8082                a sluice-sink's control port that requires a token
//   $(cat token)            ./token holds pod:8082's control token
//   $SLUICE_PROXY_TOKEN     the server's proxy token (what sluicectl reads)
//
// An example fails when it names no address of the table (or two), carries an
// unfilled placeholder (`…`), loads .proto files instead of using reflection
// (-proto, -protoset, -import-path), exits non-zero, or prints nothing
// meaningful: `list` must name the target's services, a call must print JSON,
// and the methods in kMethodChecks are checked further.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "integration/harness.h"
#include "integration/sink_harness.h"
#include "nlohmann/json.hpp"
#include "proto/sluice/sink/v1beta1/sink_control.grpc.pb.h"

namespace sluice::integration {
namespace {

namespace pb = ::sluice::sink::v1beta1;
using nlohmann::json;

// One grpcurl command line of a doc.
struct Example {
  std::string file;  // workspace-relative, e.g. "sink/README.md"
  int line = 0;      // 1-based, of the line where the command starts
  std::string text;  // as written; continuation lines keep their "\\\n"
  std::string Where() const { return absl::StrCat(file, ":", line); }
};

bool StartsWithGrpcurl(absl::string_view s) { return absl::StartsWith(s, "grpcurl "); }

// The grpcurl examples of one markdown document (see the file comment).
std::vector<Example> ExtractExamples(const std::string& file, const std::string& markdown) {
  std::vector<Example> out;
  std::vector<std::string> lines = absl::StrSplit(markdown, '\n');
  bool in_fence = false;
  // Inline code may wrap lines: the paragraph so far, with the line each
  // character came from.
  std::string para;
  std::vector<int> para_line;
  auto flush_paragraph = [&] {
    size_t pos = 0;
    while (true) {
      size_t open = para.find('`', pos);
      if (open == std::string::npos) break;
      size_t run = para.find_first_not_of('`', open);
      if (run == std::string::npos) break;
      std::string ticks = para.substr(open, run - open);
      size_t close = para.find(ticks, run);
      if (close == std::string::npos) break;
      std::string code(absl::StripAsciiWhitespace(para.substr(run, close - run)));
      if (StartsWithGrpcurl(code)) out.push_back({file, para_line[open], code});
      pos = close + ticks.size();
    }
    para.clear();
    para_line.clear();
  };
  for (size_t i = 0; i < lines.size(); ++i) {
    absl::string_view trimmed = absl::StripLeadingAsciiWhitespace(lines[i]);
    if (absl::StartsWith(trimmed, "```") || absl::StartsWith(trimmed, "~~~")) {
      flush_paragraph();
      in_fence = !in_fence;
      continue;
    }
    if (in_fence) {
      absl::string_view cmd = trimmed;
      absl::ConsumePrefix(&cmd, "$ ");
      if (!StartsWithGrpcurl(cmd)) continue;
      Example ex{file, static_cast<int>(i + 1), std::string(absl::StripTrailingAsciiWhitespace(cmd))};
      while (absl::EndsWith(ex.text, "\\") && i + 1 < lines.size()) {
        ex.text += "\n" + std::string(absl::StripTrailingAsciiWhitespace(lines[++i]));
      }
      out.push_back(std::move(ex));
      continue;
    }
    if (trimmed.empty()) {
      flush_paragraph();
      continue;
    }
    if (!para.empty()) {
      para += ' ';
      para_line.push_back(static_cast<int>(i + 1));
    }
    para += std::string(lines[i]);
    para_line.insert(para_line.end(), lines[i].size(), static_cast<int>(i + 1));
  }
  flush_paragraph();
  return out;
}

TEST(GrpcurlExtract, FencedInlineAndContinuedLines) {
  std::string md =
      "Run `grpcurl -plaintext localhost:8081 list` to see them; `curl x` is not one,\n"
      "nor is `-H 'a: b'`. A span may wrap: `grpcurl -plaintext\n"
      "localhost:8082 list`.\n"
      "\n"
      "```sh\n"
      "# grpcurl in a comment is not one\n"
      "grpcurl -plaintext localhost:8082 a.B/C\n"
      "  $ grpcurl -d '{}' \\\n"
      "    pod:8082 a.B/D\n"
      "curl localhost:8080\n"
      "```\n"
      "```\n"
      "grpcurl -plaintext localhost:8081 describe\n"
      "```\n";
  auto ex = ExtractExamples("x.md", md);
  ASSERT_EQ(ex.size(), 5u);
  EXPECT_EQ(ex[0].text, "grpcurl -plaintext localhost:8081 list");
  EXPECT_EQ(ex[0].line, 1);
  EXPECT_EQ(ex[1].text, "grpcurl -plaintext localhost:8082 list");
  EXPECT_EQ(ex[1].line, 2);
  EXPECT_EQ(ex[2].text, "grpcurl -plaintext localhost:8082 a.B/C");
  EXPECT_EQ(ex[2].line, 7);
  EXPECT_EQ(ex[3].text, "grpcurl -d '{}' \\\n    pod:8082 a.B/D");
  EXPECT_EQ(ex[3].line, 8);
  EXPECT_EQ(ex[4].text, "grpcurl -plaintext localhost:8081 describe");
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// README.md, sink/README.md, then docs/*.md in name order.
std::vector<std::string> DocFiles() {
  std::vector<std::string> files = {"README.md", "sink/README.md"};
  std::vector<std::string> docs;
  if (DIR* d = opendir(Runfile("docs").c_str())) {
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (absl::EndsWith(name, ".md")) docs.push_back("docs/" + name);
    }
    closedir(d);
  }
  std::sort(docs.begin(), docs.end());
  files.insert(files.end(), docs.begin(), docs.end());
  return files;
}

std::string GrpcurlPath() {
  const char* env = std::getenv("SLUICE_GRPCURL");
  return env != nullptr && *env != '\0' ? env : "/var/cache/sluice/go/bin/grpcurl";
}

constexpr char kPodToken[] = "grpcurl-example-control-token-0123456789";
constexpr char kProviderUrn[] = "grpcurl-example-noop";

// A sluice-sink whose control port stands in for a README address.
struct SinkUnderTest {
  std::unique_ptr<Process> process;
  std::string group;
  int port = 0;
  std::string token;  // empty: none required
  std::string Address() const { return absl::StrCat("127.0.0.1:", port); }
  absl::StatusOr<pb::GetStatusResponse> Status() const {
    auto stub = pb::SinkControl::NewStub(
        grpc::CreateChannel(Address(), grpc::InsecureChannelCredentials()));
    grpc::ClientContext ctx;
    if (!token.empty()) ctx.AddMetadata("authorization", absl::StrCat("Bearer ", token));
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    pb::GetStatusResponse resp;
    grpc::Status s = stub->GetStatus(&ctx, {}, &resp);
    if (!s.ok()) return absl::UnknownError(s.error_message());
    return resp;
  }
};

// One row of the substitution table.
struct Target {
  std::string placeholder;            // as the docs write it
  std::string address;                // the real host:port
  std::vector<std::string> services;  // `list` must name these
  const SinkUnderTest* sink = nullptr;
};

class GrpcurlExamplesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(TempDir("grpcurl_examples"));
    auto stack = Stack::Start();
    ASSERT_TRUE(stack.ok()) << stack.status();
    stack_ = std::move(*stack).release();
    // A provider for ListProviders to list.
    const std::vector<std::string> alice = {"X-Auth-Email: alice@example.com"};
    std::string api = stack_->http_base() + "/api/v1beta1";
    json policy = {{"id", "grpcurl-example-policy"},
                   {"steps", {{{"name", "admin"}, {"strategy", "manual"}, {"approvers", {"admin@example.com"}}}}}};
    auto r = Http("POST", api + "/policies", policy.dump(), alice);
    ASSERT_EQ(r.status, 200) << r.body;
    json provider = {{"type", "noop"},
                     {"urn", kProviderUrn},
                     {"allowed_account_types", {"user"}},
                     {"resources",
                      {{{"type", "noop"},
                        {"policy", {{"id", "grpcurl-example-policy"}, {"version", 1}}},
                        {"roles", {{{"id", "viewer"}}}}}}}};
    r = Http("POST", api + "/providers", provider.dump(), alice);
    ASSERT_EQ(r.status, 200) << r.body;

    broker_ = new DevBroker(DevBroker::Start({"orders-local:1", "orders-pod:1"}, *dir_));
    std::ofstream(*dir_ + "/token") << kPodToken << "\n";
    local_ = StartControlledSink("orders-local", "grpcurl-local", "");
    pod_ = StartControlledSink("orders-pod", "grpcurl-pod", *dir_ + "/token");
    ASSERT_TRUE(local_ != nullptr && pod_ != nullptr);
    // The loopback sink is paused before any record arrives, so the records
    // produced now wait for TestFilter's next_records.
    {
      auto stub = pb::SinkControl::NewStub(
          grpc::CreateChannel(local_->Address(), grpc::InsecureChannelCredentials()));
      grpc::ClientContext ctx;
      pb::PauseResponse resp;
      grpc::Status s = stub->Pause(&ctx, {}, &resp);
      ASSERT_TRUE(s.ok()) << s.error_message();
    }
    absl::SleepFor(absl::Milliseconds(500));  // the workers apply it within a poll slice
    ProduceSamples(broker_->bootstrap, "orders-local", 0, 20);
    ProduceSamples(broker_->bootstrap, "orders-pod", 0, 20);
  }

  static SinkUnderTest* StartControlledSink(const std::string& topic, const std::string& group,
                                            const std::string& token_file) {
    auto* s = new SinkUnderTest;
    s->group = group;
    s->port = FreePort();
    auto env = SinkEnv(broker_->bootstrap, topic, group, SampleDescriptorUrl());
    env["SINK_CONTROL_PORT"] = std::to_string(s->port);
    if (!token_file.empty()) {
      env["SINK_CONTROL_TOKEN_FILE"] = token_file;
      s->token = kPodToken;
    }
    s->process = StartSink(env, *dir_ + "/" + group);
    auto channel = grpc::CreateChannel(s->Address(), grpc::InsecureChannelCredentials());
    if (!channel->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(15))) {
      ADD_FAILURE() << group << "'s control port did not open: " << s->process->Stderr();
      delete s;
      return nullptr;
    }
    return s;
  }

  static void TearDownTestSuite() {
    delete local_;
    delete pod_;
    delete broker_;
    delete stack_;
    delete dir_;
    local_ = pod_ = nullptr;
    broker_ = nullptr;
    stack_ = nullptr;
    dir_ = nullptr;
  }

  static std::vector<Target> Targets() {
    return {
        {"localhost:8081", stack_->grpc_target(),
         {"grpc.health.v1.Health", "sluice.access.v1beta1.ProviderService",
          "gotocompany.guardian.v1beta1.GuardianService", "gotocompany.siren.v1beta1.SirenService",
          "gotocompany.siren.v1.SirenService"}},
        {"localhost:8082", local_->Address(),
         {"grpc.health.v1.Health", "sluice.sink.v1beta1.SinkControl"}, local_},
        {"pod:8082", pod_->Address(),
         {"grpc.health.v1.Health", "sluice.sink.v1beta1.SinkControl"}, pod_},
    };
  }

  static inline std::string* dir_ = nullptr;
  static inline Stack* stack_ = nullptr;
  static inline DevBroker* broker_ = nullptr;
  static inline SinkUnderTest* local_ = nullptr;
  static inline SinkUnderTest* pod_ = nullptr;
};

// The JSON values grpcurl printed (one per response message); an error when
// stdout is not a sequence of JSON objects.
absl::StatusOr<std::vector<json>> JsonValues(const std::string& out) {
  std::vector<json> values;
  std::istringstream in(out);
  while (true) {
    in >> std::ws;
    if (in.peek() == EOF) break;
    json j;
    try {
      in >> j;
    } catch (const json::exception& e) {
      return absl::InvalidArgumentError(absl::StrCat("not JSON: ", e.what()));
    }
    if (!j.is_object()) return absl::InvalidArgumentError("a response is not a JSON object");
    values.push_back(std::move(j));
  }
  if (values.empty()) return absl::InvalidArgumentError("no response printed");
  return values;
}

// Further checks of what a documented call did, by method; "" when fine.
using MethodCheck = std::function<std::string(const Target&, const std::vector<json>&)>;
const std::map<std::string, MethodCheck>& MethodChecks() {
  static const auto* checks = new std::map<std::string, MethodCheck>{
      {"sluice.access.v1beta1.ProviderService/ListProviders",
       [](const Target&, const std::vector<json>& out) -> std::string {
         for (const auto& p : out[0].value("providers", json::array())) {
           if (p.value("urn", "") == kProviderUrn) return "";
         }
         return absl::StrCat("the provider ", kProviderUrn, " is not listed");
       }},
      {"sluice.sink.v1beta1.SinkControl/GetStatus",
       [](const Target& t, const std::vector<json>& out) -> std::string {
         // grpcurl v1.9 prints the proto field names; older ones lowerCamelCase.
         std::string group = out[0].value("consumer_group", out[0].value("consumerGroup", ""));
         return group == t.sink->group ? "" : absl::StrCat("consumerGroup is \"", group, "\"");
       }},
      {"sluice.sink.v1beta1.SinkControl/Pause",
       [](const Target& t, const std::vector<json>&) -> std::string {
         auto status = t.sink->Status();
         if (!status.ok()) return status.status().ToString();
         return status->paused() ? "" : "the sink is not paused afterwards";
       }},
      {"sluice.sink.v1beta1.SinkControl/TestFilter",
       [](const Target&, const std::vector<json>& out) -> std::string {
         auto results = out[0].value("results", json::array());
         if (results.empty()) return "no results: the waiting records were not read";
         for (const auto& r : results) {
           if (r.contains("error")) return "a record failed the filter: " + r.dump();
         }
         return "";
       }},
  };
  return *checks;
}

TEST_F(GrpcurlExamplesTest, EveryDocumentedExampleRunsThroughReflection) {
  std::string grpcurl = GrpcurlPath();
  ASSERT_EQ(access(grpcurl.c_str(), X_OK), 0)
      << grpcurl << " is missing: run scripts/install-go-tools.sh (or set SLUICE_GRPCURL)";
  // grpcurl on PATH under its own name, whatever SLUICE_GRPCURL calls it.
  std::string bin = *dir_ + "/bin";
  mkdir(bin.c_str(), 0755);
  unlink((bin + "/grpcurl").c_str());
  ASSERT_EQ(symlink(grpcurl.c_str(), (bin + "/grpcurl").c_str()), 0);

  std::vector<Example> examples;
  for (const std::string& file : DocFiles()) {
    std::string text = ReadFile(Runfile(file));
    ASSERT_FALSE(text.empty()) << file << " is missing from the runfiles (//:user_docs)";
    auto found = ExtractExamples(file, text);
    examples.insert(examples.end(), found.begin(), found.end());
  }
  ASSERT_FALSE(examples.empty()) << "no grpcurl example in the docs";

  const std::vector<Target> targets = Targets();
  const char* path = std::getenv("PATH");
  std::map<std::string, std::string> env = {
      {"PATH", absl::StrCat(bin, ":", path ? path : "/usr/bin:/bin")},
      {"SLUICE_PROXY_TOKEN", stack_->proxy_token()},
  };
  int n = 0;
  for (const Example& ex : examples) {
    SCOPED_TRACE(absl::StrCat(ex.Where(), ": ", ex.text));
    std::cout << "[example] " << ex.Where() << ": " << ex.text << std::endl;
    // The substitution: exactly one address of the table.
    const Target* target = nullptr;
    size_t at = std::string::npos;
    int named = 0;
    for (const Target& t : targets) {
      size_t p = ex.text.find(t.placeholder);
      if (p == std::string::npos) continue;
      ++named;
      target = &t;
      at = p;
    }
    if (named != 1) {
      ADD_FAILURE() << "names " << named << " addresses of the substitution table "
                    << "(localhost:8081, localhost:8082, pod:8082); it needs exactly one";
      continue;
    }
    if (absl::StrContains(ex.text, "…")) {
      ADD_FAILURE() << "has a placeholder (…): write a value the test can substitute";
      continue;
    }
    std::vector<std::string> words =
        absl::StrSplit(ex.text, absl::ByAnyChar(" \t\n\\"), absl::SkipEmpty());
    bool by_file = false;
    for (const auto& w : words) {
      by_file |= absl::StartsWith(w, "-proto") || absl::StartsWith(w, "--proto") ||
                 absl::StartsWith(w, "-import-path") || absl::StartsWith(w, "--import-path");
    }
    if (by_file) {
      ADD_FAILURE() << "loads .proto files; the docs promise reflection";
      continue;
    }
    // What follows the address: list, describe or a method.
    std::vector<std::string> rest = absl::StrSplit(
        ex.text.substr(at + target->placeholder.size()), absl::ByAnyChar(" \t\n\\"),
        absl::SkipEmpty());
    std::string verb = rest.empty() ? "" : rest[0];

    std::string cmd = absl::StrReplaceAll(ex.text, {{target->placeholder, target->address}});
    std::string prefix = absl::StrCat(*dir_, "/run", n++);
    Process::Options opts;
    opts.env = env;
    opts.stdout_path = prefix + ".out";
    opts.stderr_path = prefix + ".err";
    auto proc = Process::Start({"/bin/sh", "-c", absl::StrCat("set -u\ncd '", *dir_, "'\n", cmd)},
                               std::move(opts));
    ASSERT_TRUE(proc.ok()) << proc.status();
    int rc = (*proc)->Wait(absl::Seconds(60));
    if (rc == -1) (*proc)->Kill9();
    std::string out = (*proc)->Output(), err = (*proc)->Stderr();
    if (rc != 0) {
      ADD_FAILURE() << "exit " << rc << " against " << target->address << "\nstdout: " << out
                    << "\nstderr: " << err;
      continue;
    }
    if (verb == "list" || verb == "describe") {
      EXPECT_FALSE(absl::StripAsciiWhitespace(out).empty()) << "printed nothing";
      if (verb == "list" && rest.size() == 1) {
        for (const auto& s : target->services) {
          EXPECT_TRUE(absl::StrContains(out, s + "\n")) << "does not list " << s << ":\n" << out;
        }
      }
      continue;
    }
    auto values = JsonValues(out);
    if (!values.ok()) {
      ADD_FAILURE() << values.status() << "\nstdout: " << out << "\nstderr: " << err;
      continue;
    }
    auto check = MethodChecks().find(verb);
    if (check != MethodChecks().end()) {
      std::string why = check->second(*target, *values);
      EXPECT_EQ(why, "") << "stdout: " << out;
    }
  }
  std::cout << "[example] ran " << n << " of " << examples.size() << std::endl;
}

}  // namespace
}  // namespace sluice::integration
