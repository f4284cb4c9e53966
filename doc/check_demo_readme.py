#!/usr/bin/env python3
"""The README says, next to the two commands at its top, how long the demo
and the test suite take; scripts/demo.sh announces each of its steps
(packages, configuring, building, routing) before running it, so that it
is never silent for long.

Usage: check_demo_readme.py README.md scripts/demo.sh   (exit 1 naming
what is missing)
"""
import re
import sys


def main():
    readme, demo = sys.argv[1], sys.argv[2]
    bad = []
    with open(readme, encoding="utf-8") as fh:
        text = fh.read()
    block = text.split("```sh", 1)[1].split("```", 1)[0]
    for script in ("scripts/demo.sh", "scripts/test.sh"):
        line = next((ln for ln in block.splitlines() if script in ln), None)
        if line is None:
            bad.append("README's first sh block lacks %s" % script)
        elif not re.search(r"\babout [0-9][0-9-]* minutes?\b", line):
            bad.append("README: the %s line does not say how long it takes: %r" % (script, line))
    with open(demo, encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    # each long-running command comes after the announcement of its step
    steps = [("deps.sh", r"step 1 .*packages"), ("meson setup", r"step 2 .*configur"),
             ("ninja -C build", r"step 3 .*build"), ("ibr route", r"step 4 .*rout")]
    for cmd, announce in steps:
        at = next((i for i, ln in enumerate(lines)
                   if cmd in ln and not ln.lstrip().startswith(("#", "echo", "step"))), None)
        said = next((i for i, ln in enumerate(lines) if re.search(announce, ln)), None)
        if at is None:
            bad.append("demo.sh: no %r command" % cmd)
        elif said is None or said > at:
            bad.append("demo.sh: %r runs without announcing its step first" % cmd)
    for b in bad:
        print(b)
    print("%d problems" % len(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
