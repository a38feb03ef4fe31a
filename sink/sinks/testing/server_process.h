// Process plumbing shared by the test servers in this folder (redis,
// influxd, prometheus, clickhouse, s3rver): free ports, private directories,
// quiet child processes and shell commands for the vendors' CLI clients.
#ifndef SLUICE_SINK_SINKS_TESTING_SERVER_PROCESS_H_
#define SLUICE_SINK_SINKS_TESTING_SERVER_PROCESS_H_

#include <sys/types.h>

#include <string>
#include <vector>

namespace sluice::sink::testing {

// A TCP port on 127.0.0.1 that was free a moment ago.
int FreeLoopbackPort();

// $TEST_TMPDIR/<name> (or /tmp/<name>), created (mode 0700) if missing.
std::string PrivateDir(const std::string& name);

// Starts argv[0] (searched in PATH) with stdout and stderr to /dev/null.
// Returns the child's pid, or -1 when fork failed.
pid_t SpawnQuiet(const std::vector<std::string>& argv);

// SIGKILLs and reaps `*pid` (when > 0) and sets it to -1.
void KillAndReap(pid_t* pid);

// Runs `command` with /bin/sh and returns its stdout.
std::string RunShell(const std::string& command);

// Single-quotes `s` for /bin/sh.
std::string ShellQuote(const std::string& s);

}  // namespace sluice::sink::testing

#endif  // SLUICE_SINK_SINKS_TESTING_SERVER_PROCESS_H_
