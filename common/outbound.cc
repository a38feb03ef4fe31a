#include "common/outbound.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <memory>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace sluice {
namespace {

// Set once at start and never freed: handles keep a raw pointer to it, and
// a replaced policy (tests only) stays valid for handles still using it.
std::atomic<const OutboundPolicy*> g_policy{new OutboundPolicy()};

bool PrefixMatch(const unsigned char* a, const unsigned char* net, int prefix) {
  int full = prefix / 8, rest = prefix % 8;
  if (std::memcmp(a, net, full) != 0) return false;
  if (rest == 0) return true;
  unsigned char mask = static_cast<unsigned char>(0xff << (8 - rest));
  return (a[full] & mask) == (net[full] & mask);
}

// CURLOPT_OPENSOCKETFUNCTION: called with the resolved address of every
// connection attempt; refusing here happens after DNS, so a hostname that
// resolves into a denied range is caught too.
curl_socket_t OpenSocket(void* clientp, curlsocktype purpose, curl_sockaddr* address) {
  const auto* policy = static_cast<const OutboundPolicy*>(clientp);
  if (purpose == CURLSOCKTYPE_IPCXN && policy != nullptr) {
    for (const Cidr& c : policy->deny_cidrs) {
      if (CidrContains(c, &address->addr)) return CURL_SOCKET_BAD;
    }
  }
  return socket(address->family, address->socktype, address->protocol);
}

}  // namespace

absl::StatusOr<Cidr> ParseCidr(absl::string_view text) {
  Cidr c;
  c.text = std::string(text);
  std::string addr(text);
  int prefix = -1;
  if (auto slash = text.find('/'); slash != absl::string_view::npos) {
    addr = std::string(text.substr(0, slash));
    if (!absl::SimpleAtoi(text.substr(slash + 1), &prefix)) prefix = -2;
  }
  int max = 0;
  if (inet_pton(AF_INET, addr.c_str(), c.addr) == 1) {
    c.family = AF_INET;
    max = 32;
  } else if (inet_pton(AF_INET6, addr.c_str(), c.addr) == 1) {
    c.family = AF_INET6;
    max = 128;
  } else {
    return absl::InvalidArgumentError(absl::StrCat("\"", text, "\" is not an IP network (CIDR)"));
  }
  if (prefix == -1) prefix = max;
  if (prefix < 0 || prefix > max) {
    return absl::InvalidArgumentError(absl::StrCat("\"", text, "\": prefix length must be 0-", max));
  }
  c.prefix = prefix;
  return c;
}

bool CidrContains(const Cidr& cidr, const struct sockaddr* sa) {
  if (sa->sa_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(sa);
    if (cidr.family != AF_INET) return false;
    return PrefixMatch(reinterpret_cast<const unsigned char*>(&in->sin_addr), cidr.addr, cidr.prefix);
  }
  if (sa->sa_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(sa);
    const unsigned char* a = in6->sin6_addr.s6_addr;
    if (cidr.family == AF_INET6) return PrefixMatch(a, cidr.addr, cidr.prefix);
    if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) return PrefixMatch(a + 12, cidr.addr, cidr.prefix);
  }
  return false;
}

void SetOutboundPolicy(OutboundPolicy policy) {
  g_policy.store(new OutboundPolicy(std::move(policy)));
}

void RestrictOutbound(CURL* curl) {
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  const OutboundPolicy* policy = g_policy.load();
  if (!policy->deny_cidrs.empty()) {
    curl_easy_setopt(curl, CURLOPT_OPENSOCKETFUNCTION, &OpenSocket);
    curl_easy_setopt(curl, CURLOPT_OPENSOCKETDATA, const_cast<OutboundPolicy*>(policy));
  }
}

absl::Status ValidateHttpUrl(absl::string_view field, absl::string_view url) {
  absl::string_view rest = url;
  std::string lower = absl::AsciiStrToLower(url.substr(0, 8));
  if (absl::StartsWith(lower, "https://")) {
    rest.remove_prefix(8);
  } else if (absl::StartsWith(lower, "http://")) {
    rest.remove_prefix(7);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": \"", url, "\" is not an http:// or https:// URL"));
  }
  if (rest.empty() || rest[0] == '/' || rest[0] == '?' || rest[0] == '#') {
    return absl::InvalidArgumentError(absl::StrCat(field, ": \"", url, "\" has no host"));
  }
  for (char ch : url) {
    if (static_cast<unsigned char>(ch) <= 0x20 || ch == 0x7f) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": URL contains whitespace or control characters"));
    }
  }
  return absl::OkStatus();
}

}  // namespace sluice
