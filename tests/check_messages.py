#!/usr/bin/env python3
"""The stable message codes (src/core/messages.h) and their table agree.

Every IBR__MSG(code, text) in src/ has a row `| code | text |` in
doc/messages.md with the same text (the printf format as written, string
literals joined, PRIx64 read as llx, PRIX64 as llX, PRIu64 as llu,
PRId64 as lld, PRIu32 as u), one code names one message, the code's part
(its two letters) is listed in the parts table, and every code of the
table is still used.

Usage: check_messages.py SRC_DIR DOC (exit 1 and one line per problem).
"""
import os
import re
import sys

MACROS = {"PRIx64": "llx", "PRIX64": "llX", "PRIu64": "llu", "PRId64": "lld", "PRIu32": "u",
          "PRIx32": "x", "MAGIC": "ibroute-routing-db", "DOR_SETTING": "port_search_ordering"}
CALL = re.compile(r'IBR__MSG\(\s*"([A-Z]{2}\d{3})"\s*,')


def c_string(s, i):
    """The C string literal at s[i] == '"': (its text, the index past it)."""
    out, k = [], i + 1
    while s[k] != '"':
        if s[k] == "\\":
            out.append(s[k + 1] if s[k + 1] in '"\\' else s[k:k + 2])
            k += 2
            continue
        out.append(s[k])
        k += 1
    return "".join(out), k + 1


def format_text(s, i):
    """The format expression at s[i:]: literals and known macros, joined."""
    parts = []
    while True:
        while s[i] in " \t\n":
            i += 1
        if s[i] == '"':
            t, i = c_string(s, i)
            parts.append(t)
            continue
        m = re.match(r"[A-Za-z_]\w*", s[i:])
        if m and m.group(0) in MACROS:
            parts.append(MACROS[m.group(0)])
            i += m.end()
            continue
        return "".join(parts)


def source_codes(src):
    codes, problems = {}, []
    for dirpath, _dirs, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, src)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for m in CALL.finditer(text):
                code, msg = m.group(1), format_text(text, m.end())
                if code in codes and codes[code][0] != msg:
                    problems.append(f"{rel}: {code} names two messages: {codes[code][0]!r} "
                                    f"({codes[code][1]}) and {msg!r}")
                codes.setdefault(code, (msg, rel))
    return codes, problems


def doc_codes(doc):
    rows, parts = {}, set()
    with open(doc, encoding="utf-8") as f:
        for line in f:
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
            if len(cells) >= 2 and re.fullmatch(r"[A-Z]{2}\d{3}", cells[0]):
                text = cells[1]
                if text.startswith("`") and text.endswith("`"):
                    text = text[1:-1]
                rows[cells[0]] = text.replace("\\|", "|")
            elif len(cells) >= 2 and re.fullmatch(r"[A-Z]{2}", cells[0]):
                parts.add(cells[0])
    return rows, parts


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    src, doc = sys.argv[1], sys.argv[2]
    codes, problems = source_codes(src)
    rows, parts = doc_codes(doc)
    for code, (msg, rel) in sorted(codes.items()):
        if code[:2] not in parts:
            problems.append(f"{rel}: {code}: part {code[:2]} is not in {doc}'s parts table")
        if code not in rows:
            problems.append(f"{rel}: {code} ({msg!r}) is not listed in {doc}")
        elif rows[code] != msg:
            problems.append(f"{rel}: {code} reads {msg!r} in the source, {rows[code]!r} in {doc}")
    for code in sorted(set(rows) - set(codes)):
        problems.append(f"{doc}: {code} is used nowhere in {src}")
    if not codes:
        problems.append(f"{src}: no IBR__MSG() found")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
