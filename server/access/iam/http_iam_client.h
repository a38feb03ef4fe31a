// IamClient over HTTP (libcurl): GET iam.config.url with {user_id} replaced
// by the URL-escaped creator email, the configured headers and basic /
// api_key / bearer auth; the JSON response is mapped through iam.schema
// (creator field → dot path into the response; no schema → the whole object).
#ifndef SLUICE_SERVER_ACCESS_IAM_HTTP_IAM_CLIENT_H_
#define SLUICE_SERVER_ACCESS_IAM_HTTP_IAM_CLIENT_H_

#include <memory>

#include "server/access/core/iam_client.h"

namespace sluice::access {

// Thread-safe; each call uses its own curl handle (5 s timeout).
std::unique_ptr<IamClient> NewHttpIamClient();

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_IAM_HTTP_IAM_CLIENT_H_
