"""Raw BSON helpers for mongo_fake's fast path.

pymongo's bson has no C extension on Debian, so decoding every document of a
bulk write would make the fake the slowest part of any benchmark. Inserts and
replaceOne({_id: X}, doc) statements (what sinks send) are stored as their raw
BSON and decoded only when read (bson.decode); this module only finds element
boundaries (https://bsonspec.org/spec.html), it decodes no values itself.
"""

import struct

import bson
from bson.codec_options import CodecOptions

CODEC = CodecOptions(document_class=dict)

_FIXED = {0x01: 8, 0x07: 12, 0x08: 1, 0x09: 8, 0x0A: 0, 0x10: 4, 0x11: 8, 0x12: 8, 0x13: 16,
          0x7F: 0, 0xFF: 0}


def elements(raw):
    """{key bytes: (type, element start, value start, end)} of a document's
    top level, or None for a type the scanner does not size."""
    out, pos, end = {}, 4, len(raw) - 1
    while pos < end:
        kind = raw[pos]
        key_end = raw.index(b"\0", pos + 1)
        value = key_end + 1
        if kind in _FIXED:
            size = _FIXED[kind]
        elif kind in (0x02, 0x0D, 0x0E):
            size = 4 + struct.unpack_from("<i", raw, value)[0]
        elif kind in (0x03, 0x04):
            size = struct.unpack_from("<i", raw, value)[0]
        elif kind == 0x05:
            size = 5 + struct.unpack_from("<i", raw, value)[0]
        else:
            return None
        out[raw[pos + 1:key_end]] = (kind, pos, value, value + size)
        pos = value + size
    return out


def element_doc(raw, span):
    """The one-element document {key: value} of an element of `raw`."""
    elem = raw[span[1]:span[3]]
    return struct.pack("<i", len(elem) + 5) + elem + b"\0"


class RawDoc:
    """A stored document kept as the client's BSON: `raw` plus `_id` (prepended
    when decoded if the raw document has none)."""
    __slots__ = ("id", "raw", "has_id")

    def __init__(self, _id, raw, has_id):
        self.id, self.raw, self.has_id = _id, raw, has_id

    def decode(self):
        doc = bson.decode(self.raw, CODEC)
        return doc if self.has_id else {"_id": self.id, **doc}


def doc_of(stored):
    return stored.decode() if isinstance(stored, RawDoc) else stored


def split_docs(data):
    """The raw documents of a kind-1 section's payload."""
    out, pos = [], 0
    while pos < len(data):
        size, = struct.unpack_from("<i", data, pos)
        out.append(data[pos:pos + size])
        pos += size
    return out
