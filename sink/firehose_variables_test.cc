#include "sink/firehose_variables.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice::sink {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// All non-test C++ under sink/ (runfiles), except this table's own code.
const std::string& Code() {
  static const auto* code = [] {
    auto* all = new std::string;
    for (const auto& e : std::filesystem::recursive_directory_iterator("sink")) {
      const std::string p = e.path().string();
      if ((!absl::EndsWith(p, ".cc") && !absl::EndsWith(p, ".h")) ||
          absl::EndsWith(p, "_test.cc") || absl::StrContains(p, "firehose_variables")) {
        continue;
      }
      absl::StrAppend(all, ReadFile(p));
    }
    return all;
  }();
  return *code;
}

TEST(FirehoseVariablesTest, EveryRowHasExactlyOneAnswer) {
  std::set<std::string> names;
  int rows = 0;
  int upstream = 0;
  for (absl::string_view line : absl::StrSplit(ReadFile("sink/firehose_variables.tsv"), '\n')) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f = absl::StrSplit(line, '\t');
    ASSERT_EQ(f.size(), 7u) << line;
    EXPECT_TRUE(f[3] == "HONOURED" || f[3] == "REFUSED" || f[3] == "WARNED") << line;
    EXPECT_TRUE(names.insert(f[0]).second) << "listed twice: " << f[0];
    if (f[3] != "HONOURED") EXPECT_FALSE(f[6].empty()) << f[0] << " needs a reason";
    if (!f[4].empty()) EXPECT_EQ(f[3], "REFUSED") << f[0] << ": `when` is for REFUSED rows";
    ++rows;
    if (f[2] != "sluice") ++upstream;
  }
  EXPECT_EQ(FirehoseVariables().size(), static_cast<size_t>(rows));
  EXPECT_GE(upstream, 396);  // compat review, Appendix B
  EXPECT_THAT(FirehoseFamilies(), ::testing::IsSupersetOf({"SOURCE_", "SINK_", "DLQ_", "FILTER_",
                                                           "SCHEMA_", "INPUT_", "METRIC_", "RETRY_",
                                                           "ERROR_"}));
}

TEST(FirehoseVariablesTest, HonouredVariablesAreReadAndOthersAreNot) {
  for (const FirehoseVariable& v : FirehoseVariables()) {
    const std::string literal = absl::StrCat("\"", v.read_as.empty() ? v.name : v.read_as, "\"");
    if (v.answer == VariableAnswer::kHonoured) {
      EXPECT_TRUE(absl::StrContains(Code(), literal)) << v.name << " is HONOURED but never read";
    } else {
      EXPECT_FALSE(absl::StrContains(Code(), literal))
          << v.name << " is read by the code but listed as not honoured";
    }
  }
}

TEST(FirehoseVariablesTest, TypoGetsNearestName) {
  std::vector<std::string> warnings;
  Env env({{"SINK_HTTP_SERVICE_UR", "http://x"}, {"SOURCE_KAFKA_TOPC", "orders"},
           {"HOME", "/root"}, {"KUBERNETES_PORT", "443"},
           // What Kubernetes sets for a Service named "kafka": no typo.
           {"KAFKA_SERVICE_HOST", "10.0.0.1"}, {"KAFKA_SERVICE_PORT", "9092"},
           {"KAFKA_PORT", "tcp://10.0.0.1:9092"}, {"KAFKA_PORT_9092_TCP_ADDR", "10.0.0.1"}});
  ASSERT_TRUE(CheckFirehoseVariables(env, &warnings).ok());
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_THAT(warnings[0], HasSubstr("did you mean SINK_HTTP_SERVICE_URL?"));
  EXPECT_THAT(warnings[1], HasSubstr("did you mean SOURCE_KAFKA_TOPIC?"));
}

TEST(FirehoseVariablesTest, KafkaPropertyPrefixesAreLeftToTheTranslation) {
  std::vector<std::string> warnings;
  Env env({{"SOURCE_KAFKA_CONSUMER_CONFIG_FETCH_MIN_BYTES", "1"}, {"DLQ_KAFKA_COMPRESSION_TYPE", "lz4"}});
  ASSERT_TRUE(CheckFirehoseVariables(env, &warnings).ok());
  EXPECT_THAT(warnings, IsEmpty());
}

TEST(FirehoseVariablesTest, RefusedFailsStartNamingTheVariable) {
  Env env({{"SINK_TYPE", "bigquery"},
           {"SINK_ADD_METADATA_ENABLED", "true"},
           {"SINK_BIGQUERY_STORAGE_API_ENABLE", "true"},
           {"SOURCE_KAFKA_TOPIC", "orders"}});
  absl::Status s = CheckFirehoseVariables(env, nullptr);
  ASSERT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("SINK_ADD_METADATA_ENABLED: Kafka metadata columns"));
  EXPECT_THAT(s.message(), HasSubstr("SINK_BIGQUERY_STORAGE_API_ENABLE: only the insertAll API"));
  EXPECT_THAT(s.message(), Not(HasSubstr("SOURCE_KAFKA_TOPIC")));
}

TEST(FirehoseVariablesTest, RefusedAtDefaultOrOutsideItsConditionOnlyWarns) {
  std::vector<std::string> warnings;
  Env env({{"SINK_TYPE", "http"},
           {"SINK_ADD_METADATA_ENABLED", "FALSE"},
           {"SINK_BIGQUERY_STORAGE_API_ENABLE", "true"},
           {"SINK_BLOB_GCS_BUCKET_NAME", "b"}});
  ASSERT_TRUE(CheckFirehoseVariables(env, &warnings).ok());
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_THAT(warnings[0], HasSubstr("SINK_ADD_METADATA_ENABLED is set to Firehose's default"));
  EXPECT_THAT(warnings[1], HasSubstr("SINK_BIGQUERY_STORAGE_API_ENABLE has no effect unless SINK_TYPE=BIGQUERY"));
  EXPECT_THAT(warnings[2], HasSubstr("SINK_BLOB_GCS_BUCKET_NAME has no effect unless SINK_TYPE=BLOB"));
  Env blob({{"SINK_TYPE", "blob"}, {"SINK_BLOB_GCS_BUCKET_NAME", "b"}});
  EXPECT_THAT(CheckFirehoseVariables(blob, nullptr).message(), HasSubstr("SINK_BLOB_GCS_BUCKET_NAME"));
}

TEST(FirehoseVariablesTest, WarnedGetsOneLineAndHonouredNone) {
  std::vector<std::string> warnings;
  Env env({{"TRACE_JAEGAR_ENABLE", "true"}, {"SINK_HTTP_SERVICE_URL", "http://x"},
           {"SINK_HTTP_SIMPLE_DATE_FORMAT_ENABLE", "false"}, {"SINK_CONTROL_PORT", "0"}});
  ASSERT_TRUE(CheckFirehoseVariables(env, &warnings).ok());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("TRACE_JAEGAR_ENABLE is ignored by sluice-sink: no Jaeger"));
}

TEST(FirehoseVariablesTest, ReadmeListsAreTheTable) {
  const std::string readme = ReadFile("docs/switching-from-firehose.md");
  const std::string begin = "<!-- firehose-variables:begin (generated; see firehose_variables_test) -->\n";
  const std::string end = "<!-- firehose-variables:end -->";
  const size_t b = readme.find(begin);
  const size_t e = readme.find(end);
  ASSERT_NE(b, std::string::npos);
  ASSERT_NE(e, std::string::npos);
  const std::string actual = readme.substr(b + begin.size(), e - b - begin.size());
  const std::string expected = RenderFirehoseVariablesMarkdown();
  if (actual != expected) {
    std::ofstream(absl::StrCat(getenv("TEST_UNDECLARED_OUTPUTS_DIR"), "/readme_section.md"))
        << expected;
  }
  EXPECT_EQ(actual, expected) << "docs/switching-from-firehose.md is out of date: paste the test's undeclared "
                                 "output readme_section.md between the markers";
}

TEST(FirehoseVariablesTest, EditDistance) {
  EXPECT_EQ(EditDistance("SINK_TYPE", "SINK_TYPE"), 0);
  EXPECT_EQ(EditDistance("SINK_TYP", "SINK_TYPE"), 1);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3);
}

}  // namespace
}  // namespace sluice::sink
