#!/usr/bin/env python3
"""The public headers and the ABI, checked from a build tree or an installed
copy (meson test --suite abi, and .ci/run after `meson install`).

  check_abi.py headers --std STD INCLUDE_DIR COMPILER...
      every header under INCLUDE_DIR/ibroute compiles on its own
      (#include <ibroute/...> alone) with COMPILER -std=STD -Wall -Wextra
      -Werror; COMPILER is a C or C++ compiler command (c++ when STD is
      c++NN).

  check_abi.py exports [--nm NM] --map MAP INCLUDE_DIR LIBRARY
      the shared LIBRARY exports only ibr_ symbols (plus the version nodes),
      and its exports, the version script MAP and the IBR_API declarations
      of the headers under INCLUDE_DIR/ibroute name the same functions:
      every IBR_API function exported and listed, nothing exported or listed
      that is not declared, each export in the version node that lists it.

Prints every problem found and exits 1 when there is one, 0 otherwise.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile


def public_headers(include_dir):
    """'ibroute/...h' paths of every header under include_dir/ibroute."""
    root = os.path.join(include_dir, "ibroute")
    found = []
    for dirpath, _, files in os.walk(root):
        for f in files:
            if f.endswith(".h"):
                found.append(os.path.relpath(os.path.join(dirpath, f), include_dir))
    return sorted(p.replace(os.sep, "/") for p in found)


def check_headers(args):
    compiler = args.compiler
    lang = "c++" if args.std.startswith(("c++", "gnu++")) else "c"
    headers = public_headers(args.include_dir)
    if not headers:
        return ["no headers under %s/ibroute" % args.include_dir]
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        for h in headers:
            src = os.path.join(tmp, "alone." + ("cpp" if lang == "c++" else "c"))
            with open(src, "w") as f:
                f.write("#include <%s>\n" % h)
            cmd = compiler + ["-std=" + args.std, "-Wall", "-Wextra", "-Werror",
                              "-I", args.include_dir, "-x", lang, "-fsyntax-only", src]
            try:
                p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   universal_newlines=True)
            except OSError as e:
                return ["cannot run %s: %s" % (compiler[0], e)]
            if p.returncode != 0:
                problems.append("%s does not compile alone as %s:\n%s" % (h, args.std, p.stdout))
    print("%d headers compiled alone as %s with %s" % (len(headers), args.std, " ".join(compiler)))
    return problems


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def declared_functions(include_dir):
    """name -> header of every IBR_API declaration."""
    names = {}
    for h in public_headers(include_dir):
        with open(os.path.join(include_dir, h)) as f:
            text = strip_comments(f.read())
        text = re.sub(r"^\s*#.*?(?<!\\)$", " ", text, flags=re.M | re.S)  # directives
        for m in re.finditer(r"\bIBR_API\b[^;{}]*?\b(ibr_\w+)\s*\(", text):
            names.setdefault(m.group(1), h)
    return names


def map_nodes(path):
    """name -> version node of every global in a GNU ld version script, plus
    the list of problems in its layout."""
    with open(path) as f:
        text = re.sub(r"#[^\n]*", " ", f.read())
    listed, problems = {}, []
    local_all = False
    for node, body in re.findall(r"([\w.]+)\s*\{(.*?)\}\s*[\w.]*\s*;", text, re.S):
        scope = None
        for tok in re.findall(r"[\w.*]+:|[^\s;]+", body):
            if tok in ("global:", "local:"):
                scope = tok
            elif scope == "local:":
                local_all |= tok == "*"
            elif scope == "global:":
                if tok in listed:
                    problems.append("%s: %s listed twice (%s and %s)" % (path, tok, listed[tok], node))
                listed[tok] = node
            else:
                problems.append("%s: %s outside global:/local: in %s" % (path, tok, node))
    if not listed:
        problems.append("%s: no version node found" % path)
    if not local_all:
        problems.append("%s: no 'local: *;' (everything else would be exported)" % path)
    return listed, problems


def exported_symbols(nm, library):
    """name -> version (or None) of the defined dynamic symbols, and the set
    of version-node symbols (type A)."""
    p = subprocess.run([nm, "-D", "--defined-only", library], stdout=subprocess.PIPE,
                       universal_newlines=True, check=True)
    syms, nodes = {}, set()
    for line in p.stdout.splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        kind, sym = parts[1], parts[2]
        name, _, version = sym.partition("@")
        if kind == "A":
            nodes.add(name)
            continue
        syms[name] = version.lstrip("@") or None
    return syms, nodes


def check_exports(args):
    declared = declared_functions(args.include_dir)
    listed, problems = map_nodes(args.map)
    exported, nodes = exported_symbols(args.nm, args.library)
    for name in sorted(exported):
        if not name.startswith("ibr_"):
            problems.append("%s exports %s, which is not an ibr_ symbol" % (args.library, name))
    for node in sorted(nodes - set(listed.values())):
        problems.append("%s has a version node %s that %s does not define" % (args.library, node, args.map))
    for name, h in sorted(declared.items()):
        if name not in exported:
            problems.append("%s (IBR_API in %s) is not exported" % (name, h))
        if name not in listed:
            problems.append("%s (IBR_API in %s) is not listed in %s" % (name, h, args.map))
    for name, node in sorted(listed.items()):
        if name not in declared:
            problems.append("%s is listed in %s but declared IBR_API in no header" % (name, args.map))
        if name not in exported:
            problems.append("%s is listed in %s but not exported" % (name, args.map))
        elif exported[name] and exported[name] != node:
            problems.append("%s is exported in version %s, listed in %s" % (name, exported[name], node))
    for name in sorted(exported):
        if name.startswith("ibr_") and name not in declared:
            problems.append("%s is exported but declared IBR_API in no header" % name)
    print("%d IBR_API functions, %d listed in %s, %d exported by %s"
          % (len(declared), len(listed), os.path.basename(args.map), len(exported),
             os.path.basename(args.library)))
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd")
    h = sub.add_parser("headers")
    h.add_argument("--std", required=True)
    h.add_argument("include_dir")
    h.add_argument("compiler", nargs=argparse.REMAINDER)
    e = sub.add_parser("exports")
    e.add_argument("--nm", default="nm")
    e.add_argument("--map", required=True)
    e.add_argument("include_dir")
    e.add_argument("library")
    args = ap.parse_args()
    if args.cmd == "headers":
        if not args.compiler:
            ap.error("headers: give the compiler command after the include directory")
        problems = check_headers(args)
    elif args.cmd == "exports":
        problems = check_exports(args)
    else:
        ap.error("give a command: headers or exports")
    for p in problems:
        print("FAIL: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
