#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Every case of a kselftest boot, checked against the expected results.

    kselftest-results.py <KTAP file> <label> <expected file>

The KTAP file: run_vmtests.sh's TAP, each program's nested under "# "; every
program and nested case is one result (testing.rst, "The mm selftests").

A case's name is "<program>" (run_vmtests.sh's name of it, arguments
included) or "<program>: <N> <description>", the description being the
"[RUN]" or "[INFO]" line a program printed just before the case (cow and
mkdirty name their cases there; their result lines say what happened), or
else the case's own text.

The expected file's format is in its header (and testing.rst, as above).

Prints one line per result: "<STATUS>\\x1f<name>\\x1f<reason>\\x1f<why>" (unit
separators: a field may be empty), STATUS one of PASS, SKIP (expected skip or
failure; <why> is the entry's), FAIL (<why> says what is wrong; a failed
program's last lines follow, each "OUTPUT\\x1f<line>"); then "UNUSED\\x1f<entry>"
for each entry for this label that matched nothing (reported, not a failure:
narrow or remove it), and "PLAN\\x1f<planned>\\x1f<ran>" from run_vmtests.sh's plan.
"""

import fnmatch
import re
import sys

TOP = re.compile(r"^(not ok|ok) (\d+) (.*?)(?: # (SKIP|exit=\d+)(.*))?$")
NESTED = re.compile(r"^# (not ok|ok) (\d+)(?: (.*?))??(?: # (SKIP|XFAIL|TODO)\b ?(.*))?$")
LABEL = re.compile(r"^# # \[(?:RUN|INFO)\] (.*)$")
RUNNING = re.compile(r"^# running (?:bash )?\./(.*)$")
PLAN = re.compile(r"^1\.\.(\d+)$")
SEP = "\x1f"


def read_expected(path, label):
    """Entries "<label> | <name> | <SKIP|FAIL> | <reason> | <why>" whose
    label pattern matches label."""
    entries = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            parts = [p.strip() for p in line.split(" | ")]
            if len(parts) != 5 or parts[2] not in ("SKIP", "FAIL"):
                sys.exit("%s:%d: not '<label> | <name> | SKIP|FAIL | <reason> | <why>': %s"
                         % (path, n, line))
            if fnmatch.fnmatchcase(label, parts[0]):
                entries.append({"line": n, "name": parts[1], "status": parts[2],
                                "reason": parts[3], "why": parts[4], "used": 0})
    return entries


def status_of(m):
    """PASS, SKIP or FAIL of a TOP or NESTED match."""
    return {"SKIP": "SKIP", "XFAIL": "PASS", "TODO": "PASS"}.get(
        m.group(4), "FAIL" if m.group(1) == "not ok" else "PASS")


def parse(lines):
    """(results, planned, ran): results as (status, name, reason, output),
    status PASS, SKIP or FAIL, output the last lines a program printed (None
    for a nested case)."""
    results = []
    block = []
    prog = label = planned = None
    ran = 0
    for line in lines:
        line = line.rstrip("\r\n")
        block.append(line)
        if m := RUNNING.match(line):
            prog, label = m.group(1), None
            block = [line]
        elif m := LABEL.match(line):
            label = m.group(1)
        elif (m := NESTED.match(line)) and prog is not None:
            desc = label or (m.group(3) or "").strip()
            results.append((status_of(m), "%s: %s%s" % (prog, m.group(2), " " + desc if desc else ""),
                            (m.group(5) or "").strip(), None))
            label = None
        elif m := TOP.match(line):
            ran += 1
            reason = "" if m.group(4) in (None, "SKIP") else m.group(4)
            results.append((status_of(m), m.group(3), reason, block[-12:-1]))
            prog, label, block = None, None, []
        elif m := PLAN.match(line):
            planned = int(m.group(1))
    return results, planned, ran


def main():
    ktap, label, expected_path = sys.argv[1:4]
    entries = read_expected(expected_path, label)
    with open(ktap, errors="replace") as f:
        results, planned, ran = parse(f)
    # A program's cases come before its own result (output None for a
    # case): one that failed only in cases expected to fail is expected
    # to fail with them.
    expected_fails, other_fails = 0, 0
    for status, name, reason, output in results:
        why = ""
        if status != "PASS":
            hit = next((e for e in entries
                        if e["status"] == status and fnmatch.fnmatchcase(name, e["name"])
                        and fnmatch.fnmatchcase(reason, e["reason"])), None)
            if hit:
                hit["used"] += 1
                why = "%s (expected, line %d)" % (hit["why"], hit["line"])
                expected_fails += status == "FAIL" and output is None
                status = "SKIP"
            elif status == "SKIP":
                status, why = "FAIL", "unexpected skip: not in the expected file"
            elif output is not None and expected_fails and not other_fails:
                status, why = "SKIP", "failed in cases expected to fail, %d, and no other" % expected_fails
            else:
                other_fails += output is None
        if output is not None:
            expected_fails, other_fails = 0, 0
        print(SEP.join((status, name, reason, why)))
        if status == "FAIL" and output:
            for line in output:
                print(SEP.join(("OUTPUT", line)))
    for e in entries:
        if not e["used"]:
            print(SEP.join(("UNUSED", "line %d: %s | %s | %s"
                            % (e["line"], e["name"], e["status"], e["reason"]))))
    print(SEP.join(("PLAN", "" if planned is None else str(planned), str(ran))))


if __name__ == "__main__":
    main()
