#ifndef SLUICE_COMMON_TESTING_SILENT_LISTENER_H_
#define SLUICE_COMMON_TESTING_SILENT_LISTENER_H_

// Tests only: a TCP listener on 127.0.0.1 that never accepts. The kernel
// still completes handshakes (up to the backlog), so a client connects and
// then waits for an answer that never comes: the shape of a hung server.

namespace sluice::testing {

class SilentListener {
 public:
  // Binds an ephemeral loopback port; aborts the test binary if it cannot.
  SilentListener();
  ~SilentListener();
  SilentListener(const SilentListener&) = delete;
  SilentListener& operator=(const SilentListener&) = delete;

  // The bound port.
  int port() const { return port_; }
  // True when some client has connected (a completed handshake is waiting).
  bool WasContacted();

 private:
  int fd_ = -1;
  int port_ = 0;
};

}  // namespace sluice::testing

#endif  // SLUICE_COMMON_TESTING_SILENT_LISTENER_H_
