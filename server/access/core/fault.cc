#include "server/access/core/fault.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace sluice::access {

void FaultPoint(const char* point) {
  static const char* fault = std::getenv("SLUICE_TEST_FAULT");
  if (fault == nullptr || std::strcmp(fault, point) != 0) return;
  std::fprintf(stderr, "SLUICE_TEST_FAULT: exiting at %s\n", point);
  std::fflush(stderr);
  std::_Exit(86);
}

}  // namespace sluice::access
