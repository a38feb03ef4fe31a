// Runs one rpc of an upstream's gRPC service (Guardian's) on the Sluice
// handler whose REST shape it shares: the two messages agree on field names
// and JSON shapes (that is how REST serves both), but not on field numbers or
// message names, so the request and the response cross over protobuf's JSON
// form, by field name.
//
// A request field that is set but that the Sluice message lacks is refused,
// never dropped: INVALID_ARGUMENT `unknown field "<name>" in <Message>`, the
// gateway's wording for the same REST request (gateway/strict.go). Response
// fields only Sluice has are left out: upstream's clients have no field for
// them.
#ifndef SLUICE_SERVER_ACCESS_GUARDIAN_BRIDGE_H_
#define SLUICE_SERVER_ACCESS_GUARDIAN_BRIDGE_H_

#include <string>

#include <google/protobuf/message.h>
#include <grpcpp/server_context.h>
#include <grpcpp/support/status.h>

#include "absl/status/status.h"
#include "common/grpc_util.h"

namespace sluice::access::guardian {

// The first field set in `from` (depth first, in field-number order) that
// `to` has no field of that name for, as `unknown field "<name>" in <M>`,
// where M is the name, without package, of the message of `from` that holds
// it; "" when every set field has a namesake. Message fields are compared
// recursively, through repeated fields and map values.
std::string FirstUnknownField(const google::protobuf::Message& from,
                              const google::protobuf::Descriptor& to);

// Copies `from` into `to` by field name through JSON (proto field names).
// A set field `to` lacks: INVALID_ARGUMENT as FirstUnknownField says, unless
// `drop_unknown`. A value whose JSON `to` cannot read (another type under the
// same name): INVALID_ARGUMENT naming the message and the parser's reason.
absl::Status CopyByName(const google::protobuf::Message& from, google::protobuf::Message* to,
                        bool drop_unknown);

// Runs `handler` (a Sluice gRPC handler of `service`) for the upstream
// request `in`, and writes its answer into `out`. The handler sees the same
// ServerContext, so authentication and roles are those of the Sluice rpc.
// Its error status is returned as is; a response that does not fit `out`
// is INTERNAL (a bug: the adapter's messages disagree).
// `adjust(&req)`, when given, finishes the Sluice request after the copy:
// for the fields whose shape differs between the two messages.
template <typename Service, typename SluiceReq, typename SluiceResp, typename UpReq,
          typename UpResp, typename Adjust = void (*)(SluiceReq*)>
grpc::Status Bridge(Service* service,
                    grpc::Status (Service::*handler)(grpc::ServerContext*, const SluiceReq*,
                                                     SluiceResp*),
                    grpc::ServerContext* ctx, const UpReq* in, UpResp* out,
                    Adjust adjust = [](SluiceReq*) {}) {
  SluiceReq req;
  if (absl::Status st = CopyByName(*in, &req, /*drop_unknown=*/false); !st.ok()) {
    return ToGrpcStatus(st);
  }
  adjust(&req);
  SluiceResp resp;
  grpc::Status st = (service->*handler)(ctx, &req, &resp);
  if (!st.ok()) return st;
  if (absl::Status copied = CopyByName(resp, out, /*drop_unknown=*/true); !copied.ok()) {
    return RecoverFromException(UpReq::descriptor()->full_name(), copied.ToString().c_str());
  }
  return grpc::Status::OK;
}

}  // namespace sluice::access::guardian

#endif  // SLUICE_SERVER_ACCESS_GUARDIAN_BRIDGE_H_
