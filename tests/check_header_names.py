#!/usr/bin/env python3
"""The functions the comments of the public headers name exist.

  check_header_names.py INCLUDE_DIR

Every `ibr_name(` in a comment of a header under INCLUDE_DIR/ibroute must
be a function or function-like macro that some public header declares, so
that a rename or a removal cannot leave a comment (and the Doxygen page
made from it) pointing at nothing. Prints each name that is not, with its
header and line, and exits 1 when there is one, 0 otherwise.
"""

import os
import re
import sys

COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
NAMED = re.compile(r"\b(ibr_[a-z0-9_]+)\(")


def headers(include_dir):
    root = os.path.join(include_dir, "ibroute")
    for dirpath, _, files in sorted(os.walk(root)):
        for f in sorted(files):
            if f.endswith(".h"):
                path = os.path.join(dirpath, f)
                with open(path, encoding="utf-8") as fh:
                    yield os.path.relpath(path, include_dir), fh.read()


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    texts = dict(headers(sys.argv[1]))
    declared = set()
    for text in texts.values():
        code = COMMENT.sub(" ", text)
        declared.update(re.findall(r"\b(ibr_\w+)\s*\(", code))
    named = 0
    problems = []
    for path, text in texts.items():
        for m in COMMENT.finditer(text):
            for n in NAMED.finditer(m.group()):
                named += 1
                if n.group(1) not in declared:
                    line = text.count("\n", 0, m.start() + n.start()) + 1
                    problems.append("%s:%d: the comment names %s(), which no public header "
                                    "declares" % (path, line, n.group(1)))
    if not declared or not named:
        problems.append("no declarations or no names in comments found under %s: wrong "
                        "folder?" % sys.argv[1])
    for p in problems:
        print("check_header_names: " + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
