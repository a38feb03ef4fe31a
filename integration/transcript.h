// Transcripts of an upstream's REST API (Guardian's, Siren's) and of Sluice
// answering the same scenario, and their field-by-field comparison (issue
// #39). A scenario (integration/scenarios/*.json) is a list of steps: HTTP
// requests with an identity, whose later steps use values saved from earlier
// answers, and delivery steps that collect what a receiver endpoint got. A
// transcript (integration/testdata/*.transcript.json) is what one program
// answered, normalized so that two programs' transcripts compare: ids,
// timestamps and the order of unordered lists. The recorder binary is
// recorder_main.cc; the replays that compare Sluice with the recorded
// upstream are guardian_replay_test.cc and siren_replay_test.cc.
#ifndef SLUICE_INTEGRATION_TRANSCRIPT_H_
#define SLUICE_INTEGRATION_TRANSCRIPT_H_

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "integration/fake_http_server.h"
#include "nlohmann/json.hpp"

namespace sluice::integration::transcript {

// What a recording run needs besides the scenario.
struct RecordOptions {
  // The program's HTTP root, without a trailing slash ("http://127.0.0.1:8080").
  std::string root;
  // Initial `{{name}}` values (tokens, hosts). The recorder adds
  // `receiver_url` (the capture endpoint's root). Every string value is put
  // back as `{{name}}` in the transcript, so it must not occur by chance.
  nlohmann::json vars = nlohmann::json::object();
  // The endpoint that plays every receiver and webhook target; a scenario's
  // `deliveries` steps read what it got. Not owned; must not be null.
  FakeHttpServer* receiver = nullptr;
  // When set, called after each step with the values so far; it may add
  // values no answer carries (e.g. a token derived from saved ids).
  std::function<void(nlohmann::json* vars)> after_step;
};

// Runs `scenario` ({about, base, default_as, steps: [...]}) against
// `opts.root` and returns the transcript {exchanges: [...]}. A step is one of:
//  - a request {step, method, path, base?, body? | raw_body?, as?, headers?,
//    save?, unordered?} (raw_body: sent as is, e.g. malformed JSON): sent
//    to root + (base or the scenario's base) + path with
//    `X-Auth-Email: <as or default_as>`; `save` maps names to paths in the
//    answer (replay::Lookup); `unordered` sorts the answer's arrays.
//    Exchange: {step, request: {method, path, body?}, status, headers:
//    {content-type}, body}; the request is recorded before substitution.
//  - a delivery wait {step, deliveries: {path, count, timeout_s?, settle_ms?}}:
//    waits until `count` requests that no earlier delivery step recorded
//    reached the receiver's `path` ("" = any path), or `timeout_s` (default
//    30), then `settle_ms` (default 1000) for any more, and records them
//    all. Each delivery is an exchange {step, delivery: {method, path,
//    query, headers: {content-type, authorization, x-*}, body}}, sorted by
//    their normalized text (deliveries are unordered).
//  - a pause {step, sleep_ms}: no exchange.
// A step naming a value no earlier step saved is recorded as {step,
// skipped: "needs <names>"}; a `save` path missing from the answer adds
// {step, unsaved: [names]} to its exchange. Never throws on bad answers.
nlohmann::json Record(const nlohmann::json& scenario, const RecordOptions& opts);

// `v` with what must differ between two programs made comparable: a string
// equal to (or containing) a string in `vars` becomes `{{name}}` (longest
// value first; values shorter than 4 characters are left alone); other
// UUIDs become "<uuid>"; RFC 3339 times other than Go's zero time become
// "<time>"; a number under a key "id" or ending in "_id" becomes "<id>"; with
// `unordered`, arrays are sorted by their elements' JSON text without the
// members at their default (null, "", 0, false, [], {}), so that a program
// that emits defaults and one that omits them sort alike.
nlohmann::json Normalize(const nlohmann::json& v, const nlohmann::json& vars, bool unordered);

// One difference between the upstream's and Sluice's exchange.
struct Difference {
  int exchange = 0;  // index in the transcripts
  std::string step;  // the scenario step's name
  // Where: "status", "headers.content-type", "body.<path>" or
  // "delivery.<path>" (paths as replay::Lookup writes them, e.g.
  // "body.appeals[0].status"), or "exchange" for a missing or extra one.
  std::string at;
  // "value" (both have it, unequal), "missing" (only upstream has it),
  // "extra" (only Sluice has it) or "extra_default" (only Sluice has it, at
  // its proto default: 0, "", false, null, [], or an object whose members
  // are all defaults).
  std::string kind;
  std::string upstream, sluice;  // the JSON texts ("" when absent)
};

// Every difference between two transcripts, exchange by exchange, in
// order. Exchanges pair by step; a step recorded by only one side is a
// difference at "exchange". List elements pair by position; when two lists
// differ in length, by the order-keeping alignment with the fewest
// differences (one element missing from the middle is one difference). In
// the bodies of `unordered_steps` (scenario step numbers, the exchanges'
// "n"), elements pair by content, the most alike first, wherever they are.
std::vector<Difference> Compare(const nlohmann::json& upstream, const nlohmann::json& sluice,
                                const std::set<int>& unordered_steps = {});

// A difference the replay accepts, with why and where users read about it.
struct Allowance {
  std::string step;    // RE2 matched (partially) against Difference::step
  std::string at;      // RE2 fully matched against Difference::at
  std::string kind;    // "" = any kind
  std::string reason;  // why Sluice differs
  std::string guide;   // the switching guide's section that tells users
};

// The replay's verdict: exchanges with no difference, allowed differences,
// and unexplained ones (each a printable line).
struct Verdict {
  int exchanges = 0, identical = 0, allowed = 0;
  std::vector<std::string> unexplained;
  // One line per allowance with how many differences it covered; an
  // allowance that covers none is listed in `unused`.
  std::vector<std::string> allowance_use, unused;
};

// Judges `diffs` of transcripts with `exchanges` exchanges by `allowed`.
Verdict Judge(int exchanges, const std::vector<Difference>& diffs,
              const std::vector<Allowance>& allowed);

// Records the scenario at runfile `scenario` against `opts` (a Sluice
// stack), compares it with the upstream transcript at runfile `recorded`,
// judges the differences by `allowed`, and prints the upstream's commit,
// "N exchanges identical, M allowed differences, K unexplained", each
// allowance's use and each unexplained difference. An unreadable file is an
// unexplained difference naming it. The sluice-side transcript is written to
// $TEST_UNDECLARED_OUTPUTS_DIR (when set) for reading after a failure.
Verdict ReplayTranscript(const std::string& scenario, const std::string& recorded,
                         const RecordOptions& opts, const std::vector<Allowance>& allowed);

}  // namespace sluice::integration::transcript

#endif  // SLUICE_INTEGRATION_TRANSCRIPT_H_
