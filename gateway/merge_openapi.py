"""Merges the per-package OpenAPI (swagger 2.0) documents of gateway/build.sh.

    merge_openapi.py OUT PART...

Paths and definitions of every part go into one document. Two packages may
give a message the same short name (v1beta1Receiver in notification and in
siren): the later one is renamed after its package file, with its $refs, so
that neither overwrites the other. The merge takes its title from the first
proto; the product's is written instead.
"""
import json
import sys


def main(out, parts):
    doc = None
    for part in parts:
        d = json.load(open(part))
        if doc is None:
            doc = d
            continue
        prefix = part.rsplit("pkg_", 1)[-1].split(".")[0].replace("proto_sluice_", "").split("_")[0]
        clash = {k for k, v in d.get("definitions", {}).items()
                 if k in doc.get("definitions", {}) and doc["definitions"][k] != v}
        if clash:
            text = json.dumps(d)
            for k in clash:
                text = text.replace('"#/definitions/%s"' % k, '"#/definitions/%s%s"' % (prefix, k))
            d = json.loads(text)
            d["definitions"] = {(prefix + k if k in clash else k): v for k, v in d["definitions"].items()}
        for key in ("paths", "definitions"):
            doc.setdefault(key, {}).update(d.get(key, {}))
    doc["schemes"] = ["http", "https"]
    doc["info"] = {"title": "Sluice API", "version": "v1beta1",
                   "description": "Access management and notifications. Errors are rpcStatus "
                                  "bodies: {code, message, details}."}
    json.dump(doc, open(out, "w"), indent=2, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
