// Where Sluice's outbound HTTP calls may go. Every libcurl handle that talks
// to a user-configured URL (receivers, IAM, the sink's HTTP targets, the
// schema registry, JWKS) is restricted here, so that a stored URL can never
// read local files (file://), speak to other protocols (gopher://, dict://),
// or, with a deny list, reach cloud metadata or private ranges.
#ifndef SLUICE_COMMON_OUTBOUND_H_
#define SLUICE_COMMON_OUTBOUND_H_

#include <curl/curl.h>

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace sluice {

// An IPv4 or IPv6 network in CIDR notation.
struct Cidr {
  int family = 0;                 // AF_INET or AF_INET6
  unsigned char addr[16] = {0};   // network address (first 4 bytes for IPv4)
  int prefix = 0;                 // prefix length in bits
  std::string text;               // as configured, for messages
};

// Parses "10.0.0.0/8", "169.254.169.254/32", "fd00::/8" (a bare address is a
// /32 or /128). InvalidArgument naming the value otherwise.
absl::StatusOr<Cidr> ParseCidr(absl::string_view text);

// True when `sa` (an AF_INET or AF_INET6 sockaddr) lies in `cidr`. An
// IPv4-mapped IPv6 address (::ffff:a.b.c.d) is also checked as IPv4.
bool CidrContains(const Cidr& cidr, const struct sockaddr* sa);

// The process-wide outbound rules (server config `outbound:`).
struct OutboundPolicy {
  // Destination networks refused after DNS resolution, for every connection
  // (redirects included), e.g. 169.254.0.0/16 or 10.0.0.0/8. Empty: none.
  // Loopback stays reachable unless listed.
  std::vector<Cidr> deny_cidrs;
};

// Installs `policy` for every handle configured afterwards (set once at
// start; the default denies nothing).
void SetOutboundPolicy(OutboundPolicy policy);

// Restricts `curl` to http and https (CURLOPT_PROTOCOLS_STR and
// CURLOPT_REDIR_PROTOCOLS_STR) and refuses connections to the policy's
// denied networks (CURLOPT_OPENSOCKETFUNCTION; the transfer then fails with
// CURLE_COULDNT_CONNECT).
void RestrictOutbound(CURL* curl);

// InvalidArgument "<field>: ..." unless `url` is an absolute http:// or
// https:// URL with a host. For validating configuration before it is stored.
absl::Status ValidateHttpUrl(absl::string_view field, absl::string_view url);

}  // namespace sluice

#endif  // SLUICE_COMMON_OUTBOUND_H_
