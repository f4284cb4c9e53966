#!/usr/bin/env python3
"""The stable message codes (src/core/messages.h) and their table agree.

Every IBR__MSG(code, text) in src/ has a row `| code | text |` in
doc/messages.md with the same text (the printf format as written, string
literals joined, PRIx64 read as llx, PRIX64 as llX, PRIu64 as llu,
PRId64 as lld, PRIu32 as u), one code names one message, the code's part
(its two letters) is listed in the parts table, every code of the table
is still used and listed once, and every code of a listed part that src/
names anywhere else (a comment, the CLI matching a code) is in the table.

The CLI's own messages (src/cli) go through cli_error(CODE, WHAT, FORMAT,
...), which appends the code: each call names its code as a string
literal of the CL part and is checked like an IBR__MSG; a call without a
literal code is a problem.

Usage: check_messages.py [--self-test] SRC_DIR DOC (exit 1 and one line
per problem; --self-test: show that each kind of problem is caught).
"""
import os
import re
import sys

MACROS = {"PRIx64": "llx", "PRIX64": "llX", "PRIu64": "llu", "PRId64": "lld", "PRIu32": "u",
          "PRIx32": "x", "MAGIC": "ibroute-routing-db", "DOR_SETTING": "port_search_ordering"}
CALL = re.compile(r'IBR__MSG\(\s*"([A-Z]{2}\d{3})"\s*,')
CLI_CALL = re.compile(r'(?<![\w.>])cli_error\((?!\))')
CLI_CODE = re.compile(r'\s*"(CL\d{3})"\s*,')


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


def past_argument(s, i):
    """The index past the comma that ends the call argument at s[i:]."""
    depth = 0
    while True:
        c = s[i]
        if c == '"':
            i = c_string(s, i)[1]
            continue
        if c == "'":
            i = s.index("'", i + 2 if s[i + 1] == "\\" else i + 1) + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            return i + 1
        i += 1


def cli_messages(text, rel):
    """The cli_error() calls of one file: [(code, text)], [problems]."""
    found, problems = [], []
    for m in CLI_CALL.finditer(text):
        if re.search(r"\bvoid\s+$", text[max(0, m.start() - 16):m.start()]):
            continue  # the declaration or the definition
        line = text.count("\n", 0, m.start()) + 1
        c = CLI_CODE.match(text, m.end())
        if not c:
            problems.append(f"{rel}:{line}: cli_error() without a literal CL code first")
            continue
        found.append((c.group(1), format_text(text, past_argument(text, c.end()))))
    return found, problems


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
            found = [(m.group(1), format_text(text, m.end())) for m in CALL.finditer(text)]
            cli, bad = cli_messages(text, rel)
            problems += bad
            for code, msg in found + cli:
                if code in codes and codes[code][0] != msg:
                    problems.append(f"{rel}: {code} names two messages: {codes[code][0]!r} "
                                    f"({codes[code][1]}) and {msg!r}")
                codes.setdefault(code, (msg, rel))
    return codes, problems


def mentioned_codes(src, parts):
    """Every code of a listed part that src/ names anywhere (a comment, a
    CLI matching a message's code, an IBR__MSG): {code: first place}."""
    seen = {}
    token = re.compile(r"\b([A-Z]{2})(\d{3})\b")
    for dirpath, _dirs, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, name)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for m in token.finditer(text):
                if m.group(1) in parts:
                    line = text.count("\n", 0, m.start()) + 1
                    seen.setdefault(m.group(0), f"{os.path.relpath(path, src)}:{line}")
    return seen


def doc_codes(doc):
    """The table's rows {code: text}, the parts, and the problems: a code
    listed twice."""
    rows, parts, problems = {}, set(), []
    with open(doc, encoding="utf-8") as f:
        for line in f:
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
            if len(cells) >= 2 and re.fullmatch(r"[A-Z]{2}\d{3}", cells[0]):
                text = cells[1]
                if text.startswith("`") and text.endswith("`"):
                    text = text[1:-1]
                if cells[0] in rows:
                    problems.append(f"{doc}: {cells[0]} is listed twice")
                rows[cells[0]] = text.replace("\\|", "|")
            elif len(cells) >= 2 and re.fullmatch(r"[A-Z]{2}", cells[0]):
                parts.add(cells[0])
    return rows, parts, problems


def problems_of(src, doc):
    """Every disagreement of src/ and the table, one line each."""
    codes, problems = source_codes(src)
    rows, parts, listed_twice = doc_codes(doc)
    problems += listed_twice
    for code, where in sorted(mentioned_codes(src, parts).items()):
        if code not in rows:
            problems.append(f"{where}: names {code}, which {doc} does not list")
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
    return problems


def self_test(src, doc):
    """The check catches each kind of disagreement on doctored copies of
    the real table and a one-file source tree: 0 when it catches all."""
    import tempfile
    with open(doc, encoding="utf-8") as f:
        lines = f.read().splitlines(keepends=True)
    first = next(i for i, l in enumerate(lines) if re.match(r"\| [A-Z]{2}\d{3} \|", l))
    code = lines[first].split("|")[1].strip()
    text = doc_codes(doc)[0][code].replace("\\", "\\\\").replace('"', '\\"')
    cases = {
        "listed twice": (lines[:first + 1] + lines[first:], None),
        "is not listed": (lines[:first] + lines[first + 1:], None),
        "does not list": (lines, f'/* see {code[:2]}999 */\n'),
        "reads": (lines[:first] + [f"| {code} | `changed` |\n"] + lines[first + 1:], None),
        "without a literal CL code": (lines, 'void f(void) { cli_error(what, "%s", x); }\n'),
    }
    missed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for want, (doc_lines, extra) in cases.items():
            d = os.path.join(tmp, "messages.md")
            with open(d, "w", encoding="utf-8") as f:
                f.writelines(doc_lines)
            srcdir = os.path.join(tmp, "src")
            os.makedirs(srcdir, exist_ok=True)
            with open(os.path.join(srcdir, "one.c"), "w", encoding="utf-8") as f:
                f.write(f'const char *m = IBR__MSG("{code}", "{text}");\n' + (extra or ""))
            only = [r for r in sorted(doc_codes(d)[0]) if r != code]
            got = [p for p in problems_of(srcdir, d)
                   if not any(f"{r} is used nowhere" in p for r in only)]
            if not any(want in p for p in got):
                print(f"self-test: a table that should give '{want}' gave {got}")
                missed += 1
    if not missed and problems_of(src, doc):
        print("self-test: the real sources and table disagree (run without --self-test)")
        missed += 1
    return 1 if missed else 0


def main():
    args = [a for a in sys.argv[1:] if a != "--self-test"]
    if len(args) != 2:
        print(__doc__[__doc__.index("Usage:"):].strip(), file=sys.stderr)
        return 2
    src, doc = args
    if "--self-test" in sys.argv:
        return self_test(src, doc)
    problems = problems_of(src, doc)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
