#!/usr/bin/python3
"""Checks an AWS Signature Version 4 with botocore, AWS's own Python signer.

Reads one captured request as JSON on stdin:
  {"method", "url", "headers": {lower-case name: value}, "body_base64",
   "access_key", "secret_key", "region", "service"}
recomputes the signature of its Authorization header over the headers that
header names (SignedHeaders), with the request's X-Amz-Date, and prints
"match" or "mismatch <expected signature> <given signature>".
Debian's python3-botocore (scripts/install-deps.sh); exits 2 without it.
"""
import base64
import json
import sys

try:
    from botocore.auth import S3SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.compat import HTTPHeaders
    from botocore.credentials import Credentials
except ImportError:
    print("botocore is not installed (apt install python3-botocore)")
    sys.exit(2)


def main():
    d = json.load(sys.stdin)
    headers = d["headers"]
    scheme, _, rest = headers["authorization"].partition(" ")
    if scheme != "AWS4-HMAC-SHA256":
        print("mismatch: not an AWS4-HMAC-SHA256 authorization")
        return
    fields = dict(p.strip().split("=", 1) for p in rest.split(","))
    signed = fields["SignedHeaders"].split(";")

    class Signer(S3SigV4Auth):
        # The server checks the headers the client says it signed.
        def headers_to_sign(self, request):
            h = HTTPHeaders()
            for name in signed:
                h[name] = headers[name]
            return h

    req = AWSRequest(method=d["method"], url=d["url"],
                     data=base64.b64decode(d["body_base64"]),
                     headers={k: v for k, v in headers.items() if k != "authorization"})
    req.context["timestamp"] = headers["x-amz-date"]
    signer = Signer(Credentials(d["access_key"], d["secret_key"]), d["service"], d["region"])
    canonical = signer.canonical_request(req)
    expected = signer.signature(signer.string_to_sign(req, canonical), req)
    scope = fields["Credential"].split("/", 1)[1]
    want_scope = "/".join([headers["x-amz-date"][:8], d["region"], d["service"], "aws4_request"])
    if expected == fields["Signature"] and scope == want_scope:
        print("match")
    else:
        print("mismatch", expected, fields["Signature"], scope)


if __name__ == "__main__":
    main()
