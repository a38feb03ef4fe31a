#!/usr/bin/env python3
"""Counts test cases from Bazel's JUnit XML files and prints the summary line.

usage: test_summary.py ROOT BAZEL_RC EXTRA_PASSED EXTRA_FAILED
Every test target of //... is counted: its test.xml's cases (gtest writes one
<testcase> per TEST), or one failure when the target failed without a usable
XML (build error, crash, timeout). Prints failed target names, then
"N passed, N failed" alone on the last line.
"""
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

root, bazel_rc, extra_pass, extra_fail = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
targets = subprocess.run(["bazel", "query", "tests(//...) except attr(tags, \"manual\", tests(//...))", "--output=label"], cwd=root,
                         capture_output=True, text=True).stdout.split()
testlogs = os.path.join(root, "bazel-testlogs")
passed, failed = extra_pass, extra_fail
failed_targets = []
for label in targets:
    rel = label.lstrip("/").replace(":", "/")
    xml_path = os.path.join(testlogs, rel, "test.xml")
    log_path = os.path.join(testlogs, rel, "test.log")
    if not os.path.exists(xml_path):
        failed += 1
        failed_targets.append(label + " (no result)")
        continue
    try:
        tree = ET.parse(xml_path)
    except ET.ParseError:
        failed += 1
        failed_targets.append(label + " (unreadable result)")
        continue
    cases = list(tree.iter("testcase"))
    case_failed = [c for c in cases if c.find("failure") is not None or c.find("error") is not None]
    # Bazel writes a synthetic single-case XML for non-gtest tests; a crash
    # after gtest started still shows up as the suite's error/failure count.
    suites_fail = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in tree.iter("testsuite"))
    n_fail = max(len(case_failed), 1 if suites_fail and not case_failed else 0)
    skipped = [c for c in cases if c.find("skipped") is not None or c.get("status") == "notrun"]
    n_pass = len(cases) - len(case_failed) - len(skipped)
    passed += max(n_pass, 0)
    failed += n_fail
    if n_fail:
        failed_targets.append(label)
if bazel_rc != 0 and failed == 0:
    failed += 1
    failed_targets.append("bazel test exited %d" % bazel_rc)
for t in failed_targets:
    print("FAILED:", t)
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
