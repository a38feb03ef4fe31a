#!/usr/bin/env python3
"""Writes the reference tables of docs/ that are generated from the code, or
checks them (issue #45 item 3).

Each table sits in its page between two markers,
  <!-- generated:NAME:begin (tools/docs/gen_reference.py; do not edit) -->
  <!-- generated:NAME:end -->
and is rendered from its source:
  sink-variables  docs/sink-variables.md, from sink/firehose_variables.tsv
                  (the table sluice-sink itself checks its environment with)

  tools/docs/gen_reference.py [--root DIR]          rewrite the tables
  tools/docs/gen_reference.py --check [--root DIR]  exit 1, with a diff, when a
                                                    committed table differs
//tools/docs:reference_tables_test runs --check.
"""
import argparse
import difflib
import os
import sys

BEGIN = "<!-- generated:%s:begin (tools/docs/gen_reference.py; do not edit) -->\n"
END = "<!-- generated:%s:end -->"


def cell(s):
    return s.replace("|", "\\|").replace("\n", " ")


def code(s):
    return "`%s`" % s if s else "–"


ORIGIN = {"firehose": "Firehose", "firehose-doc": "Firehose docs", "depot": "depot",
          "depot-doc": "depot docs", "sluice": "sluice-sink"}
ANSWER = {"HONOURED": "honoured", "REFUSED": "refused", "WARNED": "warned, ignored"}


def sink_variables(root):
    rows = []
    with open(os.path.join(root, "sink/firehose_variables.tsv"), encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            name, default, origin, answer, when, _read_as, note = line.split("\t")
            rows.append((name, default, origin, answer, when, note))
    rows.sort(key=lambda r: r[0])
    out = ["| Variable | Upstream default | Defined by | sluice-sink | Note |",
           "|---|---|---|---|---|"]
    for name, default, origin, answer, when, note in rows:
        what = ANSWER[answer]
        if when:
            what += " when `%s`" % when
        origins = ", ".join(ORIGIN.get(o, o) for o in origin.split(","))
        out.append("| `%s` | %s | %s | %s | %s |" % (
            name, cell(code(default)), origins, cell(what), cell(note)))
    counts = {a: sum(1 for r in rows if r[3] == a) for a in ANSWER}
    summary = ("%d variables: %d honoured, %d refused, %d warned and ignored.\n\n"
               % (len(rows), counts["HONOURED"], counts["REFUSED"], counts["WARNED"]))
    return summary + "\n".join(out) + "\n"


TABLES = {"sink-variables": ("docs/sink-variables.md", sink_variables)}


def splice(text, name, body, path):
    begin, end = BEGIN % name, END % name
    b, e = text.find(begin), text.find(end)
    if b < 0 or e < b:
        raise SystemExit("%s: markers of %s not found (%s ... %s)" % (path, name, begin.strip(), end))
    return text[:b + len(begin)] + body + text[e:]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    args = ap.parse_args()
    stale = 0
    for name, (page, render) in sorted(TABLES.items()):
        path = os.path.join(args.root, page)
        with open(path, encoding="utf-8") as f:
            old = f.read()
        new = splice(old, name, render(args.root), page)
        if new == old:
            continue
        if args.check:
            stale += 1
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(True), new.splitlines(True), page + " (committed)",
                page + " (generated)"))
            print("\n%s: the %s table is stale; run tools/docs/gen_reference.py" % (page, name))
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
            print("wrote %s (%s)" % (page, name))
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
