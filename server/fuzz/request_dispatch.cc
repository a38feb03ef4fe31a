#include "server/fuzz/request_dispatch.h"

#include <google/protobuf/message.h>

#include <functional>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "server/fuzz/fuzz_checks.h"
#include "server/fuzz/grpc_routes.h"
#include "server/fuzz/request_fixtures.h"
#include "server/fuzz/request_routes.h"
#include "spdlog/spdlog.h"

namespace sluice::fuzz {
namespace {

using google::protobuf::Message;

// The generic route: the real handler, in-process.
void RunGeneric(const WriteRoute& route, absl::string_view body, Outcome* out) {
  auto* factory = google::protobuf::MessageFactory::generated_factory();
  std::unique_ptr<Message> req(factory->GetPrototype(route.method->input_type())->New());
  if (!ParseBody(body, req.get())) return;
  out->parsed = true;
  for (const char* who : {kAdmin, kUser, kApprover}) {
    std::unique_ptr<Message> reply(factory->GetPrototype(route.method->output_type())->New());
    grpc::Status st = ServedApis::Get().Call(route, *req, who, reply.get());
    out->code = st.error_code();
    out->message = st.error_message();
    if (Tracing()) {
      std::fprintf(stderr, "  %s as %s: %d %s\n", route.grpc_method.c_str(), who, out->code,
                   out->message.c_str());
    }
    switch (st.error_code()) {
      case grpc::StatusCode::INTERNAL:
      case grpc::StatusCode::UNKNOWN:
        Fail(route.key, absl::StrCat(who, ": ", st.error_code(), " ", st.error_message()));
      case grpc::StatusCode::UNIMPLEMENTED:
        if (st.error_message().empty()) {
          Fail(route.key, absl::StrCat(route.grpc_method, " is not served by grpc_routes.cc"));
        }
        break;
      default:
        break;
    }
    if (st.ok()) CheckReply(*reply, route.grpc_method.c_str());
    if (st.error_code() != grpc::StatusCode::PERMISSION_DENIED) return;
  }
}

}  // namespace

const WriteRoute& PickRoute(absl::string_view input, absl::string_view* body, bool* named) {
  const auto& routes = WriteRoutes();
  size_t nl = input.find('\n');
  absl::string_view head = nl == absl::string_view::npos ? absl::string_view() : input.substr(0, nl);
  *body = nl == absl::string_view::npos ? input : input.substr(nl + 1);
  for (const WriteRoute& r : routes) {
    if (r.key == head) {
      *named = true;
      return r;
    }
  }
  *named = false;
  return routes[std::hash<std::string>{}(std::string(head)) % routes.size()];
}

Outcome RunInput(absl::string_view input) {
  Outcome out;
  absl::string_view body;
  out.route = &PickRoute(input, &body, &out.named);
  if (Tracing()) std::fprintf(stderr, "%s\n", out.route->key.c_str());
  auto deep = DeepRoutes().find(out.route->key);
  if (deep != DeepRoutes().end()) {
    out.deep = true;
    deep->second(body);
  } else {
    RunGeneric(*out.route, body, &out);
  }
  return out;
}

void InitRequestFuzzing() {
  // The services log every rejected request; at fuzzing rates that is
  // most of the run time and all of the output.
  spdlog::set_level(spdlog::level::off);
  // Build both baselines and the served handlers now, so that the first
  // input is not slower.
  (void)AccessWorld::Fresh();
  (void)NotificationWorld::Fresh();
  (void)ServedApis::Get();
  if (WriteRoutes().empty()) Fail("WriteRoutes", "no write route in the linked descriptors");
}

}  // namespace sluice::fuzz
