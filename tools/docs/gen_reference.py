#!/usr/bin/env python3
"""Writes the reference tables of docs/ that are generated from the code, or
checks them (issue #45 item 3).

Each table sits in its page between two markers,
  <!-- generated:NAME:begin (tools/docs/gen_reference.py; do not edit) -->
  <!-- generated:NAME:end -->
and is rendered from its source:
  sink-variables  docs/sink-variables.md, from sink/firehose_variables.tsv
                  (the table sluice-sink itself checks its environment with)
  server-config   docs/configuration.md, from server/config.h (struct Config,
                  whose field names are the YAML keys, and its defaults)
  server-metrics  docs/metrics.md, from the prometheus::Build*() families
                  registered in common/ and server/
  sink-metrics    docs/metrics.md, from the metric names sink/ reports
                  (Increment/Observe/Gauge calls and the names it passes on)

  tools/docs/gen_reference.py [--root DIR]          rewrite the tables
  tools/docs/gen_reference.py --check [--root DIR]  exit 1, with a diff, when a
                                                    committed table differs
//tools/docs:reference_tables_test runs --check.
"""
import argparse
import glob
import re
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


def server_config(root):
    """Rows from the members of struct Config and Config::Db in server/config.h."""
    with open(os.path.join(root, "server/config.h"), encoding="utf-8") as f:
        text = f.read()
    body = text[text.index("struct Config {"):text.index("\n};", text.index("struct Config {"))]
    rows, comment, prefix = [], [], ""
    member = re.compile(r"^\s*([\w:<>, ]+?)\s+(\w+)(?:\s*=\s*([^;]+))?;\s*(?://\s*(.*))?$")
    for line in body.split("\n")[1:]:
        t = line.strip()
        if t.startswith("//"):
            comment.append(t[2:].strip())
            continue
        if t.startswith("struct Db {"):
            prefix, comment = "db.", []
            continue
        if t.startswith("} db;"):
            prefix, comment = "", []
            continue
        m = member.match(line)
        if not m:
            comment = []
            continue
        ctype, name, default, trailing = m.groups()
        if name == "modules":
            comment = []
            continue
        words = " ".join(comment + ([trailing] if trailing else []))
        comment = []
        if default is None:
            default = {"std::string": "\"\""}.get(ctype.strip(), "")
        default = default.strip()
        rows.append((prefix + name, ctype.strip(), default, words))
    out = ["| Key | Type | Default | Meaning (the comment in `server/config.h`) |", "|---|---|---|---|"]
    for key, ctype, default, words in rows:
        kind = {"std::string": "string", "int": "integer", "bool": "boolean"}.get(ctype, "section")
        shown = code(default.strip('"')) if default not in ("", '""') else "–"
        out.append("| `%s` | %s | %s | %s |" % (key, kind, cell(shown), cell(words)))
    return "\n".join(out) + "\n"


def _sources(root, dirs, exts=(".cc", ".h")):
    for d in dirs:
        for path in sorted(glob.glob(os.path.join(root, d, "**", "*"), recursive=True)):
            if path.endswith(exts) and not path.endswith("_test.cc") and os.path.isfile(path):
                with open(path, encoding="utf-8", errors="replace") as f:
                    yield os.path.relpath(path, root).replace(os.sep, "/"), f.read()


def server_metrics(root):
    family = re.compile(r"prometheus::Build(Counter|Gauge|Histogram|Summary)\(\)\s*"
                        r"\.Name\(\"(\w+)\"\)\s*\.Help\(\"((?:[^\"\\\\]|\\\\.)*)\"\)")
    rows = {}
    for path, text in _sources(root, ["common", "server"]):
        for kind, name, help_text in family.findall(text):
            rows.setdefault(name, (kind.lower(), help_text, set()))[2].add(path)
    out = ["| Metric | Kind | Help | Registered in |", "|---|---|---|---|"]
    for name in sorted(rows):
        kind, help_text, paths = rows[name]
        out.append("| `%s` | %s | %s | %s |" % (name, kind, cell(help_text),
                                                ", ".join("`%s`" % p for p in sorted(paths))))
    return "\n".join(out) + "\n"


_SINK_NAME = r"(?:firehose|sluice)_[a-z0-9_]+_(?:total|milliseconds|seconds|event|lag)"


def sink_metrics(root):
    name_re = re.compile(r'"(%s)"' % _SINK_NAME)
    const_re = re.compile(r'constexpr\s+char\s+(k\w+)\[\]\s*=\s*"(%s)"' % _SINK_NAME)
    call_re = re.compile(r'(Increment|Observe|Gauge)\(\s*(?:"(%s)"|(k\w+))' % _SINK_NAME)
    kinds = {"Increment": "counter", "Observe": "observation", "Gauge": "gauge"}
    rows = {}
    for path, text in _sources(root, ["sink"]):
        consts = dict(const_re.findall(text))
        for name in name_re.findall(text):
            rows.setdefault(name, [set(), set(), set()])[2].add(path)
        for m in call_re.finditer(text):
            name = m.group(2) or consts.get(m.group(3))
            if not name:
                continue
            row = rows.setdefault(name, [set(), set(), set()])
            row[0].add(kinds[m.group(1)])
            stmt = text[m.end():text.find(";", m.end())]
            row[1].update(re.findall(r'\{\s*"([a-z_]+)"\s*,', stmt))
    out = ["| Metric | Reported as | Tags | Reported in |", "|---|---|---|---|"]
    for name in sorted(rows):
        how, tags, paths = rows[name]
        if not how:  # handed to a helper (retry loop, filter) that reports it
            how = {"counter" if name.endswith(("_total", "_event")) else "observation"}
        out.append("| `%s` | %s | %s | %s |" % (
            name, ", ".join(sorted(how)), ", ".join("`%s`" % t for t in sorted(tags)) or "–",
            ", ".join("`%s`" % p for p in sorted(paths))))
    return "\n".join(out) + "\n"


def _c_string(lit):
    """The value of a C++ string literal's body (the escapes the key tables use)."""
    return lit.replace('\\"', '"').replace("\\\\", "\\")


def config_key_table(root, header, array):
    """Rows from a server::ConfigKeyDoc array: {"key", "default", "meaning" ...},
    where adjacent string literals concatenate."""
    with open(os.path.join(root, header), encoding="utf-8") as f:
        text = f.read()
    start = text.index(array + "[] = {")
    body = text[start + len(array) + 6:text.index("\n};", start)]
    entries, current, depth = [], None, 0
    for tok in re.findall(r'"(?:[^"\\]|\\.)*"|[{}]', body):
        if tok == "{":
            depth += 1
            current = []
        elif tok == "}":
            depth -= 1
            entries.append(current)
        elif depth == 1:
            current.append(_c_string(tok[1:-1]))
    out = ["| Key | Default | Meaning |", "|---|---|---|"]
    for e in entries:
        key, default, meaning = e[0], e[1], "".join(e[2:])
        shown = "`%s`" % default if default else "unset"
        out.append("| `%s` | %s | %s |" % (key, cell(shown), cell(meaning)))
    return "\n".join(out) + "\n"


def access_config(root):
    return config_key_table(root, "server/access/module.h", "kAccessConfigKeys")


def notification_config(root):
    return config_key_table(root, "server/notification/module.h", "kNotificationConfigKeys")


def gateway_metrics(root):
    """The metric families gateway/observe.go registers with client_golang:
    prometheus.New<Kind>Vec(prometheus.<Kind>Opts{Name, Help, ...}, labels)."""
    family = re.compile(r'prometheus\.New(Counter|Gauge|Histogram|Summary)(?:Vec)?\(\s*prometheus\.\w+Opts\{'
                        r'\s*Name:\s*"(\w+)",\s*Help:\s*"((?:[^"\\]|\\.)*)",.*?\}'
                        r'(?:,\s*\[\]string\{([^}]*)\})?\)', re.S)
    with open(os.path.join(root, "gateway", "observe.go"), encoding="utf-8") as f:
        text = f.read()
    out = ["| Metric | Kind | Labels | Help |", "|---|---|---|---|"]
    for kind, name, help_text, labels in sorted(family.findall(text), key=lambda r: r[1]):
        names = ", ".join("`%s`" % l.strip().strip('"') for l in labels.split(",") if l.strip())
        out.append("| `%s` | %s | %s | %s |" % (name, kind.lower(), names or "–", cell(help_text)))
    return "\n".join(out) + "\n"


TABLES = {
    "gateway-metrics": ("docs/gateway.md", gateway_metrics),
    "sink-variables": ("docs/sink-variables.md", sink_variables),
    "server-config": ("docs/configuration.md", server_config),
    "access-config": ("docs/configuration.md", access_config),
    "notification-config": ("docs/configuration.md", notification_config),
    "server-metrics": ("docs/metrics.md", server_metrics),
    "sink-metrics": ("docs/metrics.md", sink_metrics),
}


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
