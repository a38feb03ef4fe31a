#!/usr/bin/env python3
"""Reduces goto/proton's Guardian and Siren protos to their wire facts.

Input: the text form of a FileDescriptorSet that protoc built from a goto/proton
checkout (see integration/testdata/proton/README.md for the exact commands).
Output, in the directory given:
  wire.txtpb   the gotocompany/* files and the google/protobuf/* files they use,
               with every custom option removed (HTTP bindings, validation rules
               and OpenAPI text are not part of the wire) and only google/protobuf
               imports kept. protoc encodes it (--encode) and generates stubs
               from it (--descriptor_set_in), so tests call Sluice with clients
               made from upstream's own message and service definitions.
  http.json    {"<package>.<Service>/<Method>": [{"method", "path", "body"}]}:
               each rpc's HTTP bindings, the facts the REST transcoding of a
               test needs.

Only the standard library: the descriptor is handled in protobuf text format,
which nests with braces and quotes its strings.
"""
import json
import re
import sys


def parse(text):
    """Parses protobuf text format into [(key, value)], value a str or a list."""
    text = re.sub(r"(?m)^\s*#.*$", "", text)
    tokens = re.findall(r'"(?:[^"\\]|\\.)*"|\[[^\]]+\]|[{}]|[^\s{}:]+:?|:', text)
    pos = 0

    def block():
        nonlocal pos
        items = []
        while pos < len(tokens):
            tok = tokens[pos]
            if tok == "}":
                pos += 1
                return items
            key = tok.rstrip(":")
            pos += 1
            if tokens[pos] == ":":
                pos += 1
            if tokens[pos] == "{":
                pos += 1
                items.append((key, block()))
            else:
                items.append((key, tokens[pos]))
                pos += 1
        return items

    return block()


def dump(items, indent=0):
    out = []
    pad = "  " * indent
    for key, value in items:
        if isinstance(value, list):
            out.append(f"{pad}{key} {{")
            out.extend(dump(value, indent + 1))
            out.append(f"{pad}}}")
        else:
            out.append(f"{pad}{key}: {value}")
    return out


def strip_options(items):
    """Drops the custom options ([ext]); keeps standard ones such as map_entry."""
    out = []
    for k, v in items:
        if k.startswith("["):
            continue
        if isinstance(v, list):
            v = strip_options(v)
            if k == "options" and not v:
                continue
        out.append((k, v))
    return out


def unquote(s):
    return json.loads(s)


def http_rules(method_items):
    for key, value in method_items:
        if key != "options":
            continue
        for okey, ovalue in value:
            if okey != "[google.api.http]":
                continue
            rules = [ovalue] + [v for k, v in ovalue if k == "additional_bindings"]
            for rule in rules:
                body = ""
                binding = None
                for k, v in rule:
                    if k in ("get", "put", "post", "delete", "patch"):
                        binding = (k.upper(), unquote(v))
                    elif k == "body":
                        body = unquote(v)
                if binding:
                    yield {"method": binding[0], "path": binding[1], "body": body}


def main():
    src, out_dir = sys.argv[1], sys.argv[2]
    files = [v for k, v in parse(open(src).read()) if k == "file"]
    kept, http = [], {}
    needed = set()
    for f in files:
        name = unquote(dict(f)["name"])
        if not name.startswith("gotocompany/"):
            continue
        package = unquote(dict(f)["package"])
        for key, value in f:
            if key != "service":
                continue
            service = unquote(dict(value)["name"])
            for mkey, mvalue in value:
                if mkey == "method":
                    rpc = unquote(dict(mvalue)["name"])
                    http[f"{package}.{service}/{rpc}"] = list(http_rules(mvalue))
        deps = [unquote(v) for k, v in f if k == "dependency"]
        # descriptor.proto was imported for the custom options only.
        wire_deps = {d for d in deps
                     if d.startswith("google/protobuf/") and d != "google/protobuf/descriptor.proto"}
        needed.update(wire_deps)
        f = [(k, v) for k, v in f if k != "dependency" or unquote(v) in wire_deps]
        kept.append(strip_options(f))
    wkt = [f for f in files if unquote(dict(f)["name"]) in needed]
    with open(f"{out_dir}/wire.txtpb", "w") as w:
        w.write("# goto/proton's Guardian and Siren protos, wire facts only "
                "(tools/proton_facts.py; integration/testdata/proton/README.md).\n")
        w.write("\n".join(dump([("file", f) for f in wkt + kept])) + "\n")
    with open(f"{out_dir}/http.json", "w") as w:
        json.dump(http, w, indent=1, sort_keys=True)
        w.write("\n")


if __name__ == "__main__":
    main()
