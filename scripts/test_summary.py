#!/usr/bin/env python3
"""Prints the one-line summary that ends scripts/test.sh.

Usage: test_summary.py [--gpu-names FILE] JUNIT.xml...

Reads the JUnit files ctest wrote (--output-junit) and prints, e.g.
  test.sh: 268 tests passed, 0 failed, 43 skipped (43 gpu tests skipped: no NVIDIA GPU or driver found)
The reason of a skip is the message GoogleTest printed after "Skipped", or
for other tests the last line they printed. FILE lists the names of the
tests labelled `gpu` (ctest -N -L gpu), one a line, so that they are
counted as gpu tests.
"""
import re
import sys
import xml.etree.ElementTree as ET
from collections import OrderedDict


def skip_reason(output):
    lines = [l.strip() for l in (output or "").splitlines() if l.strip()]
    for i, line in enumerate(lines):
        if re.search(r":\d+: Skipped$", line) and i + 1 < len(lines) and not lines[i + 1].startswith("["):
            return lines[i + 1]
    return lines[-1] if lines else "no reason given"


def gpu_names(path):
    names = set()
    for line in open(path, encoding="utf-8", errors="replace"):
        m = re.match(r"\s*Test\s+#\d+:\s+(.*\S)\s*$", line)
        if m:
            names.add(m.group(1))
    return names


def main():
    args = sys.argv[1:]
    gpu = set()
    if len(args) >= 2 and args[0] == "--gpu-names":
        gpu = gpu_names(args[1])
        args = args[2:]
    passed = failed = 0
    skipped = OrderedDict()  # reason -> names
    for path in args:
        for case in ET.parse(path).getroot().iter("testcase"):
            name = case.get("name", "?")
            status = case.get("status", "")
            if case.find("skipped") is not None or status == "notrun":
                out = case.find("system-out")
                skipped.setdefault(skip_reason(out.text if out is not None else ""), []).append(name)
            elif case.find("failure") is not None or case.find("error") is not None or status == "fail":
                failed += 1
            else:
                passed += 1
    total_skipped = sum(len(v) for v in skipped.values())
    parts = []
    for reason, names in skipped.items():
        if all(n in gpu for n in names):
            parts.append(f"{len(names)} gpu tests skipped: {reason}")
        else:
            shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
            parts.append(f"{len(names)} skipped ({shown}): {reason}")
    line = f"test.sh: {passed} tests passed, {failed} failed, {total_skipped} skipped"
    if parts:
        line += " (" + "; ".join(parts) + ")"
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
