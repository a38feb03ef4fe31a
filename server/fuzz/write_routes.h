// The write routes of the access and notification APIs, read from the
// google.api.http options of the linked proto descriptors: what the request
// fuzzer covers, so that a route added to a proto is fuzzed (and must have a
// seed, see request_fuzzer_test.cc) without a hand-kept list.
#ifndef SLUICE_SERVER_FUZZ_WRITE_ROUTES_H_
#define SLUICE_SERVER_FUZZ_WRITE_ROUTES_H_

#include <google/protobuf/descriptor.h>

#include <string>
#include <vector>

namespace sluice::fuzz {

// One non-GET HTTP binding of an RPC.
struct WriteRoute {
  std::string key;          // "POST /api/v1beta1/appeals": the HTTP method and path template
  std::string body;         // the binding's `body:` ("*", a field name, or "")
  std::string grpc_method;  // "/sluice.access.v1beta1.AppealService/CreateAppeal"
  const google::protobuf::MethodDescriptor* method = nullptr;
};

// Every binding (additional_bindings included) whose HTTP method is not GET,
// of every service in every linked proto file of the packages
// sluice.access.* and sluice.notification.*, ordered by key. Files are
// enumerated from the generated descriptor database, so a new service or
// file is included once it is linked into the binary.
const std::vector<WriteRoute>& WriteRoutes();

}  // namespace sluice::fuzz

#endif  // SLUICE_SERVER_FUZZ_WRITE_ROUTES_H_
