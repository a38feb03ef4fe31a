#include "integration/java_member.h"

#include <glob.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"

namespace sluice::integration {
namespace {

// `name` from $JAVA_HOME/bin, then $PATH, then /usr/bin ("" when absent):
// Process::Start does not search PATH, and bazel's test PATH is short.
std::string FindJdkTool(const std::string& name) {
  std::vector<std::string> dirs;
  if (const char* home = std::getenv("JAVA_HOME"); home != nullptr && *home) {
    dirs.push_back(absl::StrCat(home, "/bin"));
  }
  if (const char* path = std::getenv("PATH")) {
    for (absl::string_view d : absl::StrSplit(path, ':', absl::SkipEmpty())) dirs.emplace_back(d);
  }
  dirs.push_back("/usr/bin");
  for (const std::string& d : dirs) {
    std::string candidate = absl::StrCat(d, "/", name);
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

absl::StatusOr<std::string> Compile() {
  std::string javac = FindJdkTool("javac");
  if (javac.empty()) return absl::FailedPreconditionError("javac not found (install a JDK 17)");
  const std::string libs = KafkaLibs();
  glob_t jars;
  const bool found = glob(absl::StrCat(libs, "/kafka-clients-*.jar").c_str(), 0, nullptr, &jars) == 0;
  globfree(&jars);
  if (!found) {
    return absl::FailedPreconditionError(absl::StrCat(
        "no kafka-clients jar in ", libs, "; run scripts/install-kafka.sh (make deps does)"));
  }
  std::string dir = TempDir(absl::StrCat("java_member_", getpid()));
  // -XDignore.symbol.file: sun.misc.Signal (the SIGTERM handler) is
  // jdk.unsupported, which javac warns about otherwise.
  auto p = Process::Start({javac, "-XDignore.symbol.file", "-encoding", "UTF-8", "-cp",
                           libs + "/*", "-d", dir,
                           Runfile("integration/java/KafkaConsumerMember.java")},
                          {}, dir + "/javac.log");
  if (!p.ok()) return p.status();
  int rc = (*p)->Wait(absl::Minutes(3));
  if (rc != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("javac exited ", rc, ": ", (*p)->Output()));
  }
  return dir;
}

}  // namespace

std::string KafkaLibs() {
  const char* libs = std::getenv("SLUICE_KAFKA_LIBS");
  return libs != nullptr && *libs ? libs : "/var/cache/sluice/kafka/libs";
}

absl::StatusOr<std::string> CompiledJavaMember() {
  static std::mutex mu;
  static absl::StatusOr<std::string>* compiled = nullptr;
  std::lock_guard<std::mutex> lock(mu);
  if (compiled == nullptr) compiled = new absl::StatusOr<std::string>(Compile());
  return *compiled;
}

absl::StatusOr<std::unique_ptr<Process>> StartJavaMember(const JavaMemberOptions& options,
                                                         const std::string& path_prefix) {
  absl::StatusOr<std::string> classes = CompiledJavaMember();
  if (!classes.ok()) return classes.status();
  std::string java = FindJdkTool("java");
  if (java.empty()) return absl::FailedPreconditionError("java not found (install a JDK 17)");
  std::vector<std::string> argv = {java};
  argv.insert(argv.end(), options.jvm_flags.begin(), options.jvm_flags.end());
  // kafka-clients logs through slf4j to log4j2, whose default configuration
  // prints errors only; warnings (rebalance and commit trouble) are wanted.
  argv.push_back("-Dorg.apache.logging.log4j.level=WARN");
  argv.insert(argv.end(), {"-cp", absl::StrCat(*classes, ":", KafkaLibs(), "/*"),
                           "KafkaConsumerMember", "bootstrap=" + options.bootstrap,
                           "topic=" + options.topic, "group=" + options.group});
  if (!options.output_path.empty()) argv.push_back("out=" + options.output_path);
  if (options.max_records > 0) argv.push_back(absl::StrCat("max.records=", options.max_records));
  if (options.async_commit) argv.push_back("commit=async");
  for (const auto& [k, v] : options.consumer_properties) {
    argv.push_back(absl::StrCat("kafka.", k, "=", v));
  }
  Process::Options o;
  o.stdout_path = path_prefix + ".out";
  o.stderr_path = path_prefix + ".err";
  return Process::Start(std::move(argv), std::move(o));
}

int JavaMemberHolding(const std::string& stdout_text) {
  const std::string tag = ", holding ";
  size_t at = stdout_text.rfind(tag);
  if (at == std::string::npos) return -1;
  size_t begin = at + tag.size();
  int n = -1;
  if (!absl::SimpleAtoi(stdout_text.substr(begin, stdout_text.find(' ', begin) - begin), &n)) {
    return -1;
  }
  return n;
}

std::vector<JavaConsumed> ReadJavaMemberOutput(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string all = text.str();
  // The text after the last newline is a line still being written.
  all.resize(all.rfind('\n') == std::string::npos ? 0 : all.rfind('\n') + 1);
  std::vector<JavaConsumed> out;
  for (absl::string_view line : absl::StrSplit(all, '\n', absl::SkipEmpty())) {
    std::vector<absl::string_view> f = absl::StrSplit(line, ' ');
    JavaConsumed c;
    if (f.size() != 3 || !absl::SimpleAtoi(f[0], &c.partition) ||
        !absl::SimpleAtoi(f[1], &c.offset) || f[2].empty()) {
      continue;
    }
    c.key = std::string(f[2]);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace sluice::integration
