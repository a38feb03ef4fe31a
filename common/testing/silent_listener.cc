#include "common/testing/silent_listener.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace sluice::testing {

SilentListener::SilentListener() {
  fd_ = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      listen(fd_, 16) != 0 || getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    perror("SilentListener");
    std::abort();
  }
  port_ = ntohs(addr.sin_port);
}

SilentListener::~SilentListener() {
  if (fd_ >= 0) close(fd_);
}

bool SilentListener::WasContacted() {
  fcntl(fd_, F_SETFL, O_NONBLOCK);
  int conn = accept(fd_, nullptr, nullptr);
  if (conn < 0) return false;
  close(conn);
  return true;
}

}  // namespace sluice::testing
