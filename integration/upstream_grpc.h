// Calls Guardian's or Siren's gRPC service on sluice-server through C++
// stubs generated from goto/proton's definitions (//integration:proton_stubs),
// starting from the REST exchange a replay row describes (issue #41, item 3).
// The row's route names the rpc's HTTP binding (testdata/proton/http.json);
// its path variables, query and body become the rpc's request as
// grpc-gateway would build it, and the rpc's answer comes back in the
// gateway's shape (HTTP status from the gRPC code, rpcStatus body on error,
// proto field names with defaults emitted on success), so that the row's own
// expectations judge it as they judge REST.
#ifndef SLUICE_INTEGRATION_UPSTREAM_GRPC_H_
#define SLUICE_INTEGRATION_UPSTREAM_GRPC_H_

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <google/protobuf/message.h>
#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/status.h>

#include "integration/harness.h"
#include "nlohmann/json.hpp"

namespace sluice::integration::upstream {

// One typed stub call: `req` and `resp` are of the rpc's generated types.
using StubCall = std::function<grpc::Status(grpc::ClientContext*, const google::protobuf::Message& req,
                                            google::protobuf::Message* resp)>;

// One entry of Client's `calls`: {"<service>/<rpc>", a call of `stub`'s
// typed method}; `Ns` is the generated namespace, `Service` the service
// class and `stub` a `Ns::Service::Stub*`.
#define SLUICE_STUB_CALL(Ns, Service, stub, rpc)                                           \
  {std::string(Ns::Service::service_full_name()) + "/" #rpc,                                \
   ::sluice::integration::upstream::StubCall(                                               \
       [s = (stub)](grpc::ClientContext* ctx, const google::protobuf::Message& req,         \
                    google::protobuf::Message* resp) {                                      \
         return s->rpc(ctx, static_cast<const Ns::rpc##Request&>(req),                    \
                       static_cast<Ns::rpc##Response*>(resp));                            \
       })},

class Client {
 public:
  // `calls`: a StubCall per "<full service name>/<rpc>"
  // ("gotocompany.guardian.v1beta1.GuardianService/GetAppeal"), for one or
  // more services; `proxy_token`: what the trusted hop sends
  // (Stack::proxy_token()).
  Client(std::map<std::string, StubCall> calls, std::string proxy_token);

  // Sends one REST exchange as `rpc` of the service with that rpc and
  // binding: `route` ("GET /v1beta1/providers/{id}"),
  // `path` the request path with any query, from the API version on
  // ("/v1beta1/providers/p1?x=1"; a leading "/api" is dropped), `body` the
  // JSON body (null for none), `headers` "Name: value" lines, sent as gRPC
  // metadata (X-Auth-Email and the like) except Content-Type. A route or
  // query the rpc cannot take is answered status 0 with `error` saying why.
  HttpResponse Send(const std::string& rpc, const std::string& route, const std::string& path,
                    const nlohmann::json& body, const std::vector<std::string>& headers);

  // The services' rpcs ("<service>/<rpc>") that Send has called so far, and
  // those it has not.
  std::set<std::string> Called() const { return called_; }
  std::set<std::string> NotCalled() const;

 private:
  std::map<std::string, StubCall> calls_;
  std::string proxy_token_;
  nlohmann::json bindings_;  // http.json
  std::set<std::string> called_;
};

// Compares a successful rpc answer with what REST answered for the same
// request at the same moment: every value the rpc returns must equal REST's
// at the same path, or (where REST has no such field: a field only
// upstream's message has) be that field's default. Returns the differences,
// one line each ("providers[0].type: grpc \"x\", rest \"y\"").
std::vector<std::string> CompareWithRest(const nlohmann::json& grpc_answer,
                                         const nlohmann::json& rest_answer);

// A replay::ReplaySpec::send that sends each route row as its rpc through
// `client`. A GET row answered 200 is also asked of REST at `root` right
// after, and CompareWithRest's differences are added to `diffs`, each
// prefixed with the rpc and path.
std::function<HttpResponse(const nlohmann::json& row, const std::string& base,
                           const std::vector<std::string>& headers)>
RowsAsRpcs(Client* client, std::string root, std::vector<std::string>* diffs);

// Prints "N rpcs called through proton's stubs, M not called; K GET answers
// differ from REST" and returns what fails a stub test: the rpcs no row
// called and RowsAsRpcs's `rest_differences`, one per line ("" when none).
std::string Verdict(const Client& client, const std::vector<std::string>& rest_differences);

}  // namespace sluice::integration::upstream

#endif  // SLUICE_INTEGRATION_UPSTREAM_GRPC_H_
