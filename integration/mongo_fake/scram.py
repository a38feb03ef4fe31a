"""The server side of SCRAM-SHA-256 (RFC 5802, RFC 7677) as MongoDB runs it
over saslStart/saslContinue (https://www.mongodb.com/docs/manual/core/security-scram/),
for mongo_fake. Standard library only (hashlib, hmac, base64, os)."""

import base64
import hashlib
import hmac
import os

ITERATIONS = 4096  # MongoDB's default scramSHA256IterationCount is 15000; any works


class AuthError(Exception):
    pass


def _h(data):
    return hashlib.sha256(data).digest()


def _hmac(key, data):
    return hmac.new(key, data, hashlib.sha256).digest()


def _attributes(message):
    """'a=1,b=2' → {'a': '1', 'b': '2'} (values may contain '=')."""
    out = {}
    for part in message.split(","):
        if len(part) >= 2 and part[1] == "=":
            out[part[0]] = part[2:]
    return out


def _unescape(name):
    return name.replace("=2C", ",").replace("=3D", "=")


class Conversation:
    """One client's exchange: first(client-first) → server-first, then
    final(client-final) → server-final, or AuthError."""

    def __init__(self, users, db):
        self.users = users  # {(db, user): password}
        self.db = db
        self.user = ""
        self.done = False

    def first(self, payload):
        text = payload.decode("utf-8")
        if not text.startswith("n,"):
            raise AuthError("channel binding is not supported")
        self.client_first_bare = text[text.index(",", 2) + 1:]
        attrs = _attributes(self.client_first_bare)
        self.user = _unescape(attrs.get("n", ""))
        password = self.users.get((self.db, self.user))
        if password is None:
            raise AuthError("no such user %s@%s" % (self.user, self.db))
        salt = os.urandom(28)  # MongoDB's SCRAM-SHA-256 salt length (libmongoc checks it)
        # MongoDB SASLprep's the password for SCRAM-SHA-256; ASCII is unchanged.
        salted = hashlib.pbkdf2_hmac("sha256", password.encode("utf-8"), salt, ITERATIONS)
        self.client_key = _hmac(salted, b"Client Key")
        self.server_key = _hmac(salted, b"Server Key")
        self.nonce = attrs.get("r", "") + base64.b64encode(os.urandom(18)).decode()
        self.server_first = "r=%s,s=%s,i=%d" % (self.nonce, base64.b64encode(salt).decode(), ITERATIONS)
        return self.server_first.encode()

    def final(self, payload):
        text = payload.decode("utf-8")
        attrs = _attributes(text)
        if attrs.get("r") != self.nonce:
            raise AuthError("nonce mismatch")
        without_proof = text[:text.rindex(",p=")]
        auth_message = ",".join([self.client_first_bare, self.server_first, without_proof]).encode()
        signature = _hmac(_h(self.client_key), auth_message)
        proof = base64.b64decode(attrs.get("p", ""))
        client_key = bytes(a ^ b for a, b in zip(proof, signature))
        if len(proof) != len(signature) or not hmac.compare_digest(_h(client_key), _h(self.client_key)):
            raise AuthError("wrong password for %s@%s" % (self.user, self.db))
        self.done = True
        return ("v=" + base64.b64encode(_hmac(self.server_key, auth_message)).decode()).encode()
