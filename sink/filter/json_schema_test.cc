#include "sink/filter/json_schema.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace sluice::sink {
namespace {

using json = nlohmann::json;

// Debian's json-schema-test-suite (installed by scripts/install-deps.sh): the
// official JSON-Schema-Test-Suite, draft7, required tests (not optional/).
constexpr char kSuite[] = "/usr/share/json-schema-test-suite/tests/draft7";

// Groups whose schema Compile refuses on purpose (see json_schema.h): remote
// and $id-relative references. Each must really be refused, so the list
// cannot hide a wrong answer.
const std::set<std::string> kRefused = {
    "definitions.json/valid definition",    // $ref to the draft-07 meta-schema URL
    "definitions.json/invalid definition",  // same
    "ref.json/remote ref, containing refs itself",
    "ref.json/Recursive references between schemas",  // $id-relative "node"
};

bool Refused(const std::string& file, const std::string& group) {
  return file == "refRemote.json" || kRefused.count(file + "/" + group) > 0;
}

TEST(JsonSchema, PassesTheOfficialDraft7Suite) {
  ASSERT_TRUE(std::filesystem::exists(kSuite)) << kSuite << " missing: run scripts/install-deps.sh";
  int passed = 0, refused = 0;
  std::set<std::string> seen_refused;
  std::vector<std::string> wrong;
  for (const auto& entry : std::filesystem::directory_iterator(kSuite)) {
    if (!entry.is_regular_file()) continue;
    const std::string file = entry.path().filename().string();
    std::ifstream in(entry.path());
    json groups = json::parse(in);
    for (const json& g : groups) {
      const std::string name = g["description"].get<std::string>();
      auto schema = JsonSchema::Compile(g["schema"].dump());
      if (!schema.ok()) {
        if (Refused(file, name)) {
          ++refused;
          seen_refused.insert(file + "/" + name);
          std::cout << "refused as unsupported: " << file << "/" << name << ": "
                    << schema.status().message() << "\n";
        } else {
          wrong.push_back(file + "/" + name + ": refused: " + std::string(schema.status().message()));
        }
        continue;
      }
      for (const json& t : g["tests"]) {
        absl::StatusOr<bool> got = (*schema)->Validate(t["data"]);
        if (got.ok() && *got == t["valid"].get<bool>()) {
          ++passed;
        } else {
          wrong.push_back(file + "/" + name + "/" + t["description"].get<std::string>());
        }
      }
    }
  }
  std::cout << "draft7 suite: " << passed << " tests passed, " << refused
            << " groups refused as unsupported, " << wrong.size() << " wrong\n";
  for (const std::string& w : wrong) ADD_FAILURE() << w;
  for (const std::string& r : kRefused) {
    EXPECT_TRUE(seen_refused.count(r)) << r << " is listed as refused but was not";
  }
  EXPECT_GT(passed, 400);
}

TEST(JsonSchema, FirehoseGuideExamples) {
  // From Firehose's docs/guides/json-based-filters.md.
  auto s = JsonSchema::Compile(R"({"properties":{"pincode":{"pattern":"^(\\([0-9]{3}\\))?[0-9]{3}-[0-9]{4}$"}}})");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(*(*s)->Validate(json::parse(R"({"pincode":"555-1212"})")));
  EXPECT_TRUE(*(*s)->Validate(json::parse(R"({"pincode":"(888)555-1212"})")));
  EXPECT_FALSE(*(*s)->Validate(json::parse(R"({"pincode":"(888)555-1212 ext. 532"})")));
  EXPECT_FALSE(*(*s)->Validate(json::parse(R"({"pincode":"(800)FLOWERS"})")));
  auto c = JsonSchema::Compile(R"({"properties":{"age":{"const":23}}})");
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(*(*c)->Validate(json::parse(R"({"age":23})")));
  EXPECT_FALSE(*(*c)->Validate(json::parse(R"({"age":"23"})")));
}

TEST(JsonSchema, PatternsAreLinearTimeOnHugeStrings) {
  // std::regex (valijson's engine) overflows the stack here; RE2 does not.
  auto s = JsonSchema::Compile(R"({"properties":{"msg":{"pattern":".*error.*"}}})");
  ASSERT_TRUE(s.ok());
  json doc = {{"msg", std::string(1 << 20, 'a') + "error"}};
  EXPECT_TRUE(*(*s)->Validate(doc));
  auto evil = JsonSchema::Compile(R"({"pattern":"^(a+)+$"})");
  ASSERT_TRUE(evil.ok());
  EXPECT_FALSE(*(*evil)->Validate(json(std::string(100000, 'a') + "!")));
}

TEST(JsonSchema, CompileErrorsNameThePointer) {
  struct Case {
    const char* schema;
    const char* want;
  } cases[] = {
      {R"({"properties":{"age":{"minimum":"3"}}})", "/properties/age/minimum: must be a number"},
      {R"({"type":"int"})", "/type: must name"},
      {R"({"required":"a"})", "/required: must be an array of strings"},
      {R"({"pattern":"(a)\\1"})", "/pattern: RE2 cannot compile"},
      {R"({"$ref":"http://example.com/s.json"})", "only local references"},
      {R"({"$ref":"#/definitions/missing"})", "resolves to nothing"},
      {R"({"anyOf":[]})", "/anyOf: must be a non-empty array"},
      {R"({"minLength":-1})", "/minLength: must be a non-negative integer"},
      {R"([1])", "/: a schema must be an object or a boolean"},
      {R"({"a":)", "not a JSON document"},
  };
  for (const Case& c : cases) {
    auto s = JsonSchema::Compile(c.schema);
    ASSERT_FALSE(s.ok()) << c.schema;
    EXPECT_NE(s.status().message().find(c.want), absl::string_view::npos)
        << c.schema << " -> " << s.status();
  }
}

TEST(JsonSchema, ARefCycleIsAnErrorNotAHang) {
  auto s = JsonSchema::Compile(R"({"anyOf":[{"$ref":"#"},{"$ref":"#"}]})");
  ASSERT_TRUE(s.ok()) << s.status();
  absl::StatusOr<bool> r = (*s)->Validate(json::object());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cycle"), absl::string_view::npos);
  // A recursive schema that consumes the instance is fine.
  auto tree = JsonSchema::Compile(
      R"({"definitions":{"node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/definitions/node"}}}}},"$ref":"#/definitions/node"})");
  ASSERT_TRUE(tree.ok()) << tree.status();
  EXPECT_TRUE(*(*tree)->Validate(json::parse(R"({"kids":[{"kids":[]},{}]})")));
  EXPECT_FALSE(*(*tree)->Validate(json::parse(R"({"kids":[{"kids":[1]}]})")));
}

}  // namespace
}  // namespace sluice::sink
