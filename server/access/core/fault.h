// Test-only fault injection for the crash tests of the reconciliation job.
#ifndef SLUICE_SERVER_ACCESS_CORE_FAULT_H_
#define SLUICE_SERVER_ACCESS_CORE_FAULT_H_

namespace sluice::access {

// When the environment variable SLUICE_TEST_FAULT equals `point`, logs and
// ends the process at once with exit code 86, without unwinding or
// committing anything (what kill -9 or an OOM kill would do there). Unset in
// production; the server logs a warning at start when it is set.
void FaultPoint(const char* point);

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_CORE_FAULT_H_
