#!/usr/bin/env python3
"""A stateful, in-memory MongoDB server fake for sluice's tests and benchmarks.

Run as `python3 mongo_fake.py --port N`. It speaks the wire protocol a MongoDB
5.0 standalone server speaks (https://www.mongodb.com/docs/manual/reference/mongodb-wire-protocol/):
OP_MSG for commands, and legacy OP_QUERY (answered with OP_REPLY) for the first
hello/isMaster of a connection, which libmongoc and pymongo send. BSON comes
from Debian's python3-pymongo `bson` module; the fake writes no codec.

Commands (https://www.mongodb.com/docs/manual/reference/command/): hello,
isMaster, buildInfo, ping, endSessions, insert, update (replacement and
$set/$unset/$inc, upsert, multi), delete, find/getMore/killCursors (equality
filters, dotted paths), count, drop, dropDatabase. Write commands answer with
n/nModified/upserted and per-operation writeErrors (index, code, errmsg), as the
server does; ordered writes stop at the first error.

Control commands (on any database), for tests:
  {sluiceFakeFail: 1, ids: [<_id>...], code: <int>, errmsg: <str>}
      every later write of a document whose _id is in ids fails with that
      writeError (ids: [] clears);
  {sluiceFakeOutage: <ms>}
      answers ok, then closes every connection and closes new ones at once
      for <ms> milliseconds (data is kept);
  {sluiceFakeStats: 1}
      answers {connections, commands} counts.
  {sluiceFakeAddUser: <user>, pwd: <password>, db: <auth db>}
      adds a SCRAM-SHA-256 user (scram.py). Authentication is checked when a
      client attempts it (saslStart/saslContinue; failures are code 18), but
      not enforced: unauthenticated clients may still run every command.
Not implemented: SCRAM-SHA-1, x.509, speculative authentication (clients fall
back to saslStart),
compression, transactions, aggregation, indexes other than _id.
"""

import argparse
import asyncio
import itertools
import random
import struct
import sys
import time

import bson
from bson.binary import Binary
from bson.codec_options import CodecOptions
from bson.int64 import Int64
from bson.objectid import ObjectId

import scram
from raw_bson import RawDoc, doc_of, element_doc, elements, split_docs

OP_REPLY, OP_QUERY, OP_MSG = 1, 2004, 2013
CODEC = CodecOptions(document_class=dict)
MAX_WIRE_VERSION = 13  # MongoDB 5.0; libmongoc 1.23 and pymongo 3.11 both speak it


def id_key(value):
    """A hashable key for an _id value (equal BSON values give equal keys)."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        return ("num", value)
    if isinstance(value, (str, ObjectId)):
        return (type(value).__name__, value)
    return ("bson", bson.encode({"v": value}, codec_options=CODEC))


def lookup(doc, path):
    """(found, value) of a dotted path in doc."""
    cur = doc
    for part in path.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return False, None
        cur = cur[part]
    return True, cur


def matches(doc, query):
    for path, want in query.items():
        found, have = lookup(doc, path)
        if isinstance(want, dict) and want and all(k.startswith("$") for k in want):
            if set(want) - {"$eq", "$in", "$exists"}:
                raise CommandError(2, "mongo_fake: only $eq, $in, $exists filters")
            if "$eq" in want and not (found and have == want["$eq"]):
                return False
            if "$in" in want and not (found and have in want["$in"]):
                return False
            if "$exists" in want and found != bool(want["$exists"]):
                return False
        elif not found or have != want:
            return False
    return True


class CommandError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


class WriteError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


class Store:
    """Databases → collections → {id_key: document}, insertion ordered."""

    def __init__(self):
        self.dbs = {}
        self.fail_ids = {}  # id_key → (code, errmsg)
        self.cursors = {}   # cursor id → (ns, remaining documents)

    def coll(self, db, name, create=True):
        colls = self.dbs.setdefault(db, {}) if create else self.dbs.get(db, {})
        if create:
            return colls.setdefault(name, {})
        return colls.get(name, {})

    def check_injected(self, _id):
        if _id is None or not self.fail_ids:
            return
        hit = self.fail_ids.get(id_key(_id))
        if hit:
            raise WriteError(*hit)

    def find(self, coll, query):
        if "_id" in query and not isinstance(query["_id"], dict):
            doc = coll.get(id_key(query["_id"]))
            doc = doc_of(doc) if doc is not None else None
            return [doc] if doc is not None and matches(doc, query) else []
        docs = (doc_of(d) for d in coll.values())
        return [d for d in docs if matches(d, query)]

    def insert(self, coll, ns, doc):
        if isinstance(doc, bytes):
            spans = elements(doc)
            if spans is None or b"_id" not in spans:
                doc = bson.decode(doc, CODEC)
            else:
                _id = bson.decode(element_doc(doc, spans[b"_id"]), CODEC)["_id"]
                self.check_injected(_id)
                self.duplicate_check(coll, ns, _id)
                coll[id_key(_id)] = RawDoc(_id, doc, True)
                return
        if "_id" not in doc:
            doc = {"_id": ObjectId(), **doc}
        self.check_injected(doc["_id"])
        self.duplicate_check(coll, ns, doc["_id"])
        coll[id_key(doc["_id"])] = doc

    @staticmethod
    def duplicate_check(coll, ns, _id):
        if id_key(_id) in coll:
            raise WriteError(11000, "E11000 duplicate key error collection: %s index: _id_ "
                                    "dup key: { _id: %r }" % (ns, _id))

    def replace_by_id(self, coll, raw):
        """The fast path of one raw update statement: replaceOne({_id: X}, doc)
        → (matched, modified, upserted _id or None); None when the statement
        needs the general path."""
        spans = elements(raw)
        if spans is None or set(spans) - {b"q", b"u", b"upsert", b"multi"}:
            return None
        if spans.get(b"q", (0,))[0] != 0x03 or spans.get(b"u", (0,))[0] != 0x03:
            return None
        q_span, u_span = spans[b"q"], spans[b"u"]
        q = bson.decode(raw[q_span[2]:q_span[3]], CODEC)
        u = raw[u_span[2]:u_span[3]]
        flags = {}
        for k in (b"upsert", b"multi"):
            if k in spans:
                if spans[k][0] != 0x08:
                    return None
                flags[k.decode()] = raw[spans[k][2]] != 0
        if list(q) != ["_id"] or isinstance(q["_id"], dict) or flags.get("multi"):
            return None
        if len(u) > 5 and u[5:6] == b"$":
            return None  # an operator update
        _id = q["_id"]
        # The replacement's own _id must equal the selector's (raw element bytes,
        # both keyed "_id"); it is nearly always the first element.
        q_elem = raw[q_span[2] + 4:q_span[3] - 1]  # q's one element
        if u[5:9] == b"_id\0":
            has_id = True
            if u[4:4 + len(q_elem)] != q_elem:
                return None  # the general path answers the immutable-_id error
        else:
            u_spans = elements(u)
            if u_spans is None:
                return None
            has_id = b"_id" in u_spans
            if has_id and element_doc(u, u_spans[b"_id"])[4:-1] != q_elem:
                return None
        self.check_injected(_id)
        key, new = id_key(_id), RawDoc(_id, u, has_id)
        old = coll.get(key)
        if old is None:
            if not flags.get("upsert"):
                return 0, 0, None
            coll[key] = new
            return 0, 0, _id
        same = (isinstance(old, RawDoc) and old.raw == u and old.has_id == new.has_id) or \
            (not isinstance(old, RawDoc) and old == new.decode())
        coll[key] = new
        return 1, 0 if same else 1, None

    def update(self, coll, op):
        """One update statement → (matched, modified, upserted _id or None)."""
        if isinstance(op, bytes):
            fast = self.replace_by_id(coll, op)
            if fast is not None:
                return fast
            op = bson.decode(op, CODEC)
        q, u = op.get("q", {}), op.get("u", {})
        self.check_injected(q.get("_id") if not isinstance(q.get("_id"), dict) else None)
        if isinstance(u, list):
            raise WriteError(9, "mongo_fake: pipeline updates are not supported")
        is_ops = bool(u) and all(k.startswith("$") for k in u)
        found = self.find(coll, q)
        if not op.get("multi"):
            found = found[:1]
        if not found:
            if not op.get("upsert"):
                return 0, 0, None
            base = {k: v for k, v in q.items()
                    if not k.startswith("$") and "." not in k and not isinstance(v, dict)}
            doc = apply_ops(base, u, inserting=True) if is_ops else dict(u)
            if "_id" not in doc:
                doc = {"_id": base.get("_id", ObjectId()), **doc}
            coll[id_key(doc["_id"])] = doc
            return 0, 0, doc["_id"]
        modified = 0
        for old in found:
            if is_ops:
                new = apply_ops(old, u, inserting=False)
            else:
                if "_id" in u and u["_id"] != old["_id"]:
                    raise WriteError(66, "After applying the update, the (immutable) field "
                                         "'_id' was found to have been altered to _id: %r" % (u["_id"],))
                new = {"_id": old["_id"], **{k: v for k, v in u.items() if k != "_id"}}
            if new != old:
                coll[id_key(old["_id"])] = new
                modified += 1
        return len(found), modified, None


def apply_ops(doc, update, inserting):
    new = dict(doc)
    for op, fields in update.items():
        if op == "$setOnInsert" and not inserting:
            continue
        for path, value in fields.items():
            if "." in path:
                raise WriteError(9, "mongo_fake: dotted update paths are not supported")
            if path == "_id" and "_id" in doc and op != "$setOnInsert" and value != doc["_id"]:
                raise WriteError(66, "Performing an update on the path '_id' would modify "
                                     "the immutable field '_id'")
            if op in ("$set", "$setOnInsert"):
                new[path] = value
            elif op == "$unset":
                new.pop(path, None)
            elif op == "$inc":
                new[path] = new.get(path, 0) + value
            else:
                raise WriteError(9, "mongo_fake: unsupported update operator %s" % op)
    return new


class Server:
    def __init__(self):
        self.store = Store()
        self.writers = set()
        self.refuse_until = 0.0
        self.connections = itertools.count(1)
        self.commands = 0
        self.users = {}                 # (db, user) → password, for SCRAM-SHA-256
        self.conversations = {}         # connection id → scram.Conversation
        self.last_sasl_user = ""        # n= of the last SCRAM client-first message
        self.last_sasl_mechs_user = ""  # the last hello's saslSupportedMechs ("<db>.<user>")

    # --- connections -----------------------------------------------------
    async def serve(self, reader, writer):
        if time.monotonic() < self.refuse_until:
            writer.transport.abort()
            return
        self.writers.add(writer)
        conn_id = next(self.connections)
        try:
            while True:
                header = await reader.readexactly(16)
                length, request_id, _, opcode = struct.unpack("<iiii", header)
                body = await reader.readexactly(length - 16)
                reply = self.handle(opcode, body, conn_id)
                if reply is not None:
                    writer.write(frame(reply[0], request_id, reply[1]))
                if self.outage_pending:
                    await writer.drain()
                    self.start_outage()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self.writers.discard(writer)
            writer.transport.abort()

    outage_pending = 0

    def start_outage(self):
        self.refuse_until = time.monotonic() + self.outage_pending / 1000.0
        self.outage_pending = 0
        for w in list(self.writers):
            w.transport.abort()
        self.writers.clear()

    def handle(self, opcode, body, conn_id):
        if opcode == OP_QUERY:
            _flags, = struct.unpack_from("<i", body)
            end = body.index(b"\0", 4)
            ns = body[4:end].decode()
            docs = bson.decode_all(body[end + 9:], CODEC)
            cmd = docs[0]
            if "$query" in cmd:
                cmd = cmd["$query"]
            out = self.run(ns.split(".")[0], cmd, [], conn_id)
            return OP_REPLY, struct.pack("<iqii", 8, 0, 0, 1) + bson.encode(out, codec_options=CODEC)
        if opcode == OP_MSG:
            flags, = struct.unpack_from("<I", body)
            end = len(body) - (4 if flags & 1 else 0)
            pos, cmd, sequences = 4, None, []
            while pos < end:
                kind = body[pos]
                pos += 1
                size, = struct.unpack_from("<i", body, pos)
                if kind == 0:
                    cmd = bson.decode(body[pos:pos + size], CODEC)
                else:
                    name_end = body.index(b"\0", pos + 4)
                    name = body[pos + 4:name_end].decode()
                    payload = body[name_end + 1:pos + size]
                    if name in ("updates", "documents"):
                        sequences.append((name, split_docs(payload)))  # decoded when needed
                    else:
                        sequences.append((name, bson.decode_all(payload, CODEC)))
                pos += size
            for name, docs in sequences:
                cmd[name] = docs
            out = self.run(cmd.get("$db", "admin"), cmd, sequences, conn_id)
            if flags & 2:  # moreToCome: the client wants no answer
                return None
            return OP_MSG, struct.pack("<IB", 0, 0) + bson.encode(out, codec_options=CODEC)
        raise ConnectionError("unsupported opcode %d" % opcode)

    # --- commands --------------------------------------------------------
    def run(self, db, cmd, _sequences, conn_id):
        self.commands += 1
        name = next(iter(cmd))
        handler = COMMANDS.get(name.lower())
        try:
            if handler is None:
                raise CommandError(59, "no such command: '%s'" % name)
            out = handler(self, db, cmd, conn_id)
            out.setdefault("ok", 1.0)
            return out
        except CommandError as e:
            return {"ok": 0.0, "errmsg": e.message, "code": e.code}

    def hello(self, _db, cmd, conn_id):
        extra = {}
        if "saslSupportedMechs" in cmd:
            self.last_sasl_mechs_user = cmd["saslSupportedMechs"]
            if tuple(cmd["saslSupportedMechs"].split(".", 1)) in self.users:
                extra["saslSupportedMechs"] = ["SCRAM-SHA-256"]
        return {**extra, "helloOk": True, "ismaster": True, "isWritablePrimary": True,
                "maxBsonObjectSize": 16 * 1024 * 1024, "maxMessageSizeBytes": 48000000,
                "maxWriteBatchSize": 100000, "localTime": time_now(),
                "logicalSessionTimeoutMinutes": 30, "connectionId": conn_id,
                "minWireVersion": 0, "maxWireVersion": MAX_WIRE_VERSION, "readOnly": False}

    def insert(self, db, cmd, _c):
        coll, ns = self.store.coll(db, cmd["insert"]), "%s.%s" % (db, cmd["insert"])
        return self.writes(cmd, cmd.get("documents", []), lambda d: (self.store.insert(coll, ns, d), 1)[1])

    def update(self, db, cmd, _c):
        coll = self.store.coll(db, cmd["update"])
        totals = {"nModified": 0, "upserted": []}

        def one(op, index):
            matched, modified, upserted = self.store.update(coll, op)
            totals["nModified"] += modified
            if upserted is not None:
                totals["upserted"].append({"index": index, "_id": upserted})
                return 1
            return matched

        out = self.writes(cmd, cmd.get("updates", []), one, with_index=True)
        out["nModified"] = totals["nModified"]
        if totals["upserted"]:
            out["upserted"] = totals["upserted"]
        return out

    def delete(self, db, cmd, _c):
        coll = self.store.coll(db, cmd["delete"])

        def one(op):
            q = op.get("q", {})
            self.store.check_injected(q.get("_id") if not isinstance(q.get("_id"), dict) else None)
            found = self.store.find(coll, q)
            if op.get("limit", 0) == 1:
                found = found[:1]
            for d in found:
                del coll[id_key(d["_id"])]
            return len(found)

        return self.writes(cmd, cmd.get("deletes", []), one)

    def writes(self, cmd, ops, one, with_index=False):
        n, errors = 0, []
        for index, op in enumerate(ops):
            try:
                n += one(op, index) if with_index else one(op)
            except WriteError as e:
                errors.append({"index": index, "code": e.code, "errmsg": e.message})
                if cmd.get("ordered", True):
                    break
        out = {"n": n}
        if errors:
            out["writeErrors"] = errors
        return out

    def find(self, db, cmd, _c):
        coll = self.store.coll(db, cmd["find"], create=False)
        docs = self.store.find(coll, cmd.get("filter", {}))
        docs = docs[cmd.get("skip", 0):]
        if cmd.get("limit"):
            docs = docs[:abs(cmd["limit"])]
        ns = "%s.%s" % (db, cmd["find"])
        batch = cmd.get("batchSize", 101)
        return {"cursor": self.cursor(ns, docs, batch, "firstBatch",
                                      cmd.get("singleBatch", False))}

    def cursor(self, ns, docs, batch, field, single):
        first, rest = docs[:batch], docs[batch:]
        cursor_id = 0
        if rest and not single:
            cursor_id = random.randint(1, 2**62)
            self.store.cursors[cursor_id] = (ns, rest)
        return {"id": Int64(cursor_id), "ns": ns, field: first}

    def get_more(self, _db, cmd, _c):
        cursor_id = int(cmd["getMore"])
        if cursor_id not in self.store.cursors:
            raise CommandError(43, "cursor id %d not found" % cursor_id)
        ns, docs = self.store.cursors.pop(cursor_id)
        return {"cursor": self.cursor(ns, docs, cmd.get("batchSize") or 10000, "nextBatch", False)}

    def kill_cursors(self, _db, cmd, _c):
        ids = [int(c) for c in cmd.get("cursors", [])]
        for c in ids:
            self.store.cursors.pop(c, None)
        return {"cursorsKilled": [Int64(c) for c in ids]}

    def count(self, db, cmd, _c):
        coll = self.store.coll(db, cmd["count"], create=False)
        return {"n": len(self.store.find(coll, cmd.get("query") or {}))}

    def drop(self, db, cmd, _c):
        if self.store.dbs.get(db, {}).pop(cmd["drop"], None) is None:
            raise CommandError(26, "ns not found")
        return {"ns": "%s.%s" % (db, cmd["drop"])}

    def drop_database(self, db, _cmd, _c):
        self.store.dbs.pop(db, None)
        return {"dropped": db}

    def sasl_start(self, db, cmd, conn_id):
        conversation = scram.Conversation(self.users, db)
        payload = bytes(cmd.get("payload", b""))
        for part in payload.decode("utf-8", "replace").split(","):
            if part.startswith("n=") and len(part) > 2:
                self.last_sasl_user = part[2:]
        if cmd.get("mechanism") != "SCRAM-SHA-256":
            raise CommandError(334, "mongo_fake: only SCRAM-SHA-256 is supported")
        try:
            reply = conversation.first(payload)
        except scram.AuthError:
            raise CommandError(18, "Authentication failed.")
        self.conversations[conn_id] = conversation
        return {"conversationId": 1, "done": False, "payload": Binary(reply)}

    def sasl_continue(self, _db, cmd, conn_id):
        conversation = self.conversations.get(conn_id)
        if conversation is None:
            raise CommandError(17, "No SASL session state found")
        if conversation.done:  # the client's empty last step
            del self.conversations[conn_id]
            return {"conversationId": 1, "done": True, "payload": Binary(b"")}
        try:
            reply = conversation.final(bytes(cmd.get("payload", b"")))
        except scram.AuthError:
            del self.conversations[conn_id]
            raise CommandError(18, "Authentication failed.")
        done = bool((cmd.get("options") or {}).get("skipEmptyExchange"))
        if done:
            del self.conversations[conn_id]
        return {"conversationId": 1, "done": done, "payload": Binary(reply)}

    def fake_add_user(self, _db, cmd, _c):
        self.users[(cmd.get("db", "admin"), cmd["sluiceFakeAddUser"])] = cmd["pwd"]
        return {}

    def fake_fail(self, _db, cmd, _c):
        code, errmsg = int(cmd.get("code", 121)), cmd.get("errmsg", "injected by mongo_fake")
        self.store.fail_ids = {id_key(i): (code, errmsg) for i in cmd.get("ids", [])}
        return {"ids": len(self.store.fail_ids)}

    def fake_outage(self, _db, cmd, _c):
        self.outage_pending = max(1, int(cmd["sluiceFakeOutage"]))
        return {}

    def fake_stats(self, _db, _cmd, _c):
        return {"connections": len(self.writers), "commands": self.commands,
                "lastSaslUser": self.last_sasl_user,
                "lastSaslSupportedMechs": self.last_sasl_mechs_user}


def ok(*_):  # commands answered with a bare {ok: 1}
    return {}


def time_now():
    import datetime
    return datetime.datetime.now(datetime.timezone.utc)


COMMANDS = {
    "hello": Server.hello, "ismaster": Server.hello,
    "buildinfo": lambda *_: {"version": "5.0.0", "versionArray": [5, 0, 0, 0],
                             "maxBsonObjectSize": 16 * 1024 * 1024},
    "ping": ok, "endsessions": ok, "getlasterror": ok,
    "insert": Server.insert, "update": Server.update, "delete": Server.delete,
    "find": Server.find, "getmore": Server.get_more, "killcursors": Server.kill_cursors,
    "count": Server.count, "drop": Server.drop, "dropdatabase": Server.drop_database,
    "saslstart": Server.sasl_start, "saslcontinue": Server.sasl_continue,
    "sluicefakeadduser": Server.fake_add_user,
    "sluicefakefail": Server.fake_fail, "sluicefakeoutage": Server.fake_outage,
    "sluicefakestats": Server.fake_stats,
}


def frame(opcode, response_to, payload):
    request_id = random.randint(1, 2**31 - 1)
    return struct.pack("<iiii", 16 + len(payload), request_id, response_to, opcode) + payload


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    args = parser.parse_args()
    server = Server()
    srv = await asyncio.start_server(server.serve, args.host, args.port)
    print("mongo_fake listening on %s:%d" % (args.host, args.port), flush=True)
    async with srv:
        await srv.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
