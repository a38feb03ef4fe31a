// libFuzzer target: the requests of every write route of the access and
// notification APIs, as sluice-gateway hands them on. Input format, routes
// and failures: request_dispatch.h. Built with --config=fuzz and run by
// scripts/fuzz-requests.sh.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "server/fuzz/request_dispatch.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  sluice::fuzz::InitRequestFuzzing();
  if (const char* list = std::getenv("SLUICE_FUZZ_LIST_ROUTES"); list != nullptr && *list) {
    for (const auto& r : sluice::fuzz::WriteRoutes()) {
      std::fprintf(stderr, "%s  (%s)\n", r.key.c_str(), r.grpc_method.c_str());
    }
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sluice::fuzz::RunInput(
      absl::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
