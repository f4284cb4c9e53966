#!/usr/bin/env python3
"""No function in the library's sources is longer than the limit (150 lines).

STYLE.md asks for functions under 150 lines: a long function is a sign of
several jobs in one place (issue 36). This check reads every .c file under
SRC_DIR (and the .c.in templates), finds each function definition at file
scope and counts its lines from the line holding its name to the line of
its closing brace. Comments, strings and character constants are blanked
first, so braces inside them do not count.

ALLOWED lists the functions that may still be longer while someone splits
them; each entry names the file and the function. An entry that is no
longer long is reported too, so the list only shrinks.

Usage: check_function_length.py SRC_DIR [--limit N] [--inject]
(--inject adds a generated function one line over the limit, to prove the
check fails on it; exit 1 and one line per violation.)
"""
import argparse
import os
import re
import sys

LIMIT = 150
# Functions allowed over the limit while someone splits them, as
# (path under src/, name) pairs; the check fails once one of them is short,
# so the set only shrinks. Empty: every function in src/ is within the limit.
ALLOWED = set()

_TOKEN = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                    re.S)


def blank(text):
    """Comments, strings and char constants replaced by spaces (newlines kept)."""
    def repl(m):
        return re.sub(r'[^\n]', ' ', m.group(0))
    return _TOKEN.sub(repl, text)


_KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "do"}


def functions(text):
    """(name, first line, last line) of each function defined at file scope."""
    code = blank(text)
    # Preprocessor lines (with their continuations) never open a body.
    code = re.sub(r'^[ \t]*#(?:[^\n]*\\\n)*[^\n]*', lambda m: re.sub(r'[^\n]', ' ', m.group(0)),
                  code, flags=re.M)
    out = []
    depth = 0
    i = 0
    n = len(code)
    while i < n:
        c = code[i]
        if c == '{':
            if depth == 0:
                head = code[:i].rstrip()
                name = None
                if head.endswith(')'):
                    # Walk back over the parameter list to the name before it.
                    j = len(head) - 1
                    par = 0
                    while j >= 0:
                        if head[j] == ')':
                            par += 1
                        elif head[j] == '(':
                            par -= 1
                            if par == 0:
                                break
                        j -= 1
                    m = re.search(r'([A-Za-z_]\w*)\s*$', head[:j])
                    if m and m.group(1) not in _KEYWORDS:
                        name = m.group(1)
                        start = head.count('\n', 0, m.start(1)) + 1
                # Find the matching close brace.
                k = i
                d = 0
                while k < n:
                    if code[k] == '{':
                        d += 1
                    elif code[k] == '}':
                        d -= 1
                        if d == 0:
                            break
                    k += 1
                if name:
                    out.append((name, start, code.count('\n', 0, k) + 1))
                i = k + 1
                continue
            depth += 1
        elif c == '}':
            depth = max(0, depth - 1)
        i += 1
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("--limit", type=int, default=LIMIT)
    ap.add_argument("--inject", action="store_true")
    a = ap.parse_args()

    found = []
    for root, dirs, files in os.walk(a.src):
        dirs.sort()
        for f in sorted(files):
            if not (f.endswith(".c") or f.endswith(".c.in")):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, a.src).replace(os.sep, "/")
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
            for name, first, last in functions(text):
                found.append((rel, name, first, last - first + 1))
    if a.inject:
        body = "".join("    x += %d;\n" % k for k in range(a.limit - 3))
        text = "int injected_long(int x)\n{\n" + body + "    return x;\n}\n"
        for name, first, last in functions(text):
            found.append(("injected.c", name, first, last - first + 1))

    bad = 0
    long_allowed = set()
    for rel, name, first, length in found:
        if length <= a.limit:
            continue
        if (rel, name) in ALLOWED:
            long_allowed.add((rel, name))
            continue
        print("%s:%d: %s is %d lines (limit %d)" % (rel, first, name, length, a.limit))
        bad += 1
    if not a.inject:
        for rel, name in sorted(ALLOWED - long_allowed):
            print("%s: %s is no longer over %d lines: remove it from ALLOWED"
                  % (rel, name, a.limit))
            bad += 1
    if not found:
        print("no functions found under %s" % a.src)
        bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
