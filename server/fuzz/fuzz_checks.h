// The request fuzzer's checks, shared by its deep routes (request_routes.cc)
// and its generic route (request_dispatch.cc). A failed check aborts, which
// libFuzzer reports with the input.
#ifndef SLUICE_SERVER_FUZZ_FUZZ_CHECKS_H_
#define SLUICE_SERVER_FUZZ_FUZZ_CHECKS_H_

#include <google/protobuf/message.h>
#include <google/protobuf/util/json_util.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace sluice::fuzz {

// Prints where/what and aborts.
[[noreturn]] inline void Fail(const std::string& where, const std::string& what) {
  std::fprintf(stderr, "request fuzzer: %s: %s\n", where.c_str(), what.c_str());
  std::abort();
}

// SLUICE_FUZZ_TRACE=1 prints every status and rejected body (to triage a
// reproducer, or to see how far a seed gets).
inline bool Tracing() {
  static const bool on = [] {
    const char* v = std::getenv("SLUICE_FUZZ_TRACE");
    return v != nullptr && *v != '\0' && *v != '0';
  }();
  return on;
}

// Internal and Unknown are bugs here: the fakes have no outages.
inline void CheckStatus(const absl::Status& st, const char* where) {
  if (Tracing()) std::fprintf(stderr, "  %s: %s\n", where, st.ToString().c_str());
  if (st.code() == absl::StatusCode::kInternal || st.code() == absl::StatusCode::kUnknown) {
    Fail(where, st.ToString());
  }
}

// What the gRPC layer and the gateway do with a reply: serialize it, parse
// it again (proto3 strings must be UTF-8) and print it as JSON with the
// gateway's options (OrigName, EmitDefaults).
inline void CheckReply(const google::protobuf::Message& reply, const char* where) {
  std::string wire;
  if (!reply.SerializeToString(&wire)) Fail(where, "does not serialize");
  std::unique_ptr<google::protobuf::Message> copy(reply.New());
  if (!copy->ParseFromString(wire)) Fail(where, "the serialized reply does not parse (invalid UTF-8?)");
  google::protobuf::util::JsonPrintOptions opts;
  opts.preserve_proto_field_names = true;
  opts.always_print_primitive_fields = true;
  std::string text;
  auto st = google::protobuf::util::MessageToJsonString(reply, &text, opts);
  if (!st.ok()) Fail(where, absl::StrCat("does not print as JSON: ", st.ToString()));
}

// JsonStringToMessage(body) into *m, as strictly as the gateway decodes a
// body (an unknown field is refused); false (traced) when refused.
template <typename M>
bool ParseBody(absl::string_view body, M* m) {
  auto st = google::protobuf::util::JsonStringToMessage(std::string(body), m);
  if (!st.ok() && Tracing()) std::fprintf(stderr, "  body rejected: %s\n", st.ToString().c_str());
  return st.ok();
}

}  // namespace sluice::fuzz

#endif  // SLUICE_SERVER_FUZZ_FUZZ_CHECKS_H_
