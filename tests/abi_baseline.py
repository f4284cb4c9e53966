#!/usr/bin/env python3
"""The ABI of libibroute against the committed record abi/libibroute.abi.

  abi_baseline.py dump   [COMMON] LIBRARY
      print the ABI of a built LIBRARY and the headers under INCLUDE_DIR, in
      the record's format.
  abi_baseline.py check  [COMMON] --baseline FILE [--symbols FILE] LIBRARY
      compare it with the record FILE: with the same soname, an exported
      function removed or with another signature or version node, a typedef
      changed, a public struct field moved, retyped or removed, a fixed-layout
      struct resized (a versioned one, whose first field is `version`, may
      grow), an enum constant removed or renumbered each fail. Additions
      pass, listed with the command that records them. A new soname passes
      (the record describes the old ABI). With --symbols, the Debian symbols
      file must list exactly the recorded functions.
  abi_baseline.py record [COMMON] --baseline FILE --symbols FILE
                         --project-version V [--force] LIBRARY
      write the record and the Debian symbols file from the build; refuses
      (without --force) to record a removal or change under the same soname.

COMMON: --include INCLUDE_DIR (the headers), --clang CLANG (parses them and
compiles the layout probe), --nm NM, --readelf READELF.

Record lines (sorted, one fact each, so that parallel additions merge):
  soname libibroute.so.0
  function NAME NODE SIGNATURE          exported, IBR_API in a header
  typedef NAME TYPE                     ibr_ typedefs, resolved one level
  struct NAME size=S align=A fixed|versioned
  field STRUCT.FIELD offset=O TYPE
  enum NAME VALUE                       every IBR_ enum constant
Exits 1 on a failure, 0 otherwise; prints every finding.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_abi import exported_symbols, public_headers  # noqa: E402

UPDATE_CMD = "scripts/update-abi.sh"
HEADER = ("# The ABI of libibroute as recorded from a build by %s (do not edit by hand;\n"
          "# tests/abi_baseline.py checks every build against it: doc/api-conventions.md).\n"
          % UPDATE_CMD)


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, **kw)


def soname_of(readelf, library):
    p = run([readelf, "-d", library])
    if p.returncode != 0:
        raise SystemExit("cannot read %s: %s" % (library, p.stderr.strip()))
    m = re.search(r"\(SONAME\)\s+Library soname: \[([^\]]+)\]", p.stdout)
    return m.group(1) if m else os.path.basename(library)


def type_text(t):
    """The type as written, and its one-level resolution when that differs."""
    q = t.get("qualType", "")
    d = t.get("desugaredQualType")
    return "%s = %s" % (q, d) if d and d != q else q


def parse_headers(clang, include_dir):
    """(functions name -> signature, typedefs, structs name -> [fields],
    enums name -> None) from clang's AST of every public header."""
    headers = public_headers(include_dir)
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "all.c")
        with open(src, "w") as f:
            f.write("".join("#include <%s>\n" % h for h in headers))
        p = run([clang, "-std=c11", "-fsyntax-only", "-I", include_dir,
                 "-Xclang", "-ast-dump=json", src])
    if p.returncode != 0:
        raise SystemExit("%s cannot parse the headers:\n%s" % (clang, p.stderr))
    ast = json.loads(p.stdout)
    functions, typedefs, structs, enums = {}, {}, {}, []
    for d in ast.get("inner", []):
        kind, name = d.get("kind"), d.get("name", "")
        if kind == "FunctionDecl" and name.startswith("ibr_"):
            functions[name] = d["type"]["qualType"]
        elif kind == "TypedefDecl" and name.startswith("ibr_"):
            typedefs[name] = type_text(d["type"])
        elif (kind == "RecordDecl" and name.startswith("ibr_") and d.get("completeDefinition")
              and any(c.get("kind") == "FieldDecl" for c in d.get("inner", []))):
            structs[name] = [(c["name"], type_text(c["type"]), bool(c.get("isBitfield")))
                             for c in d["inner"] if c.get("kind") == "FieldDecl"]
        elif kind == "EnumDecl":
            enums += [c["name"] for c in d.get("inner", [])
                      if c.get("kind") == "EnumConstantDecl" and c["name"].startswith("IBR_")]
    return headers, functions, typedefs, structs, enums


def probe_layouts(clang, include_dir, headers, structs, enums):
    """sizeof/alignof of each struct, offsetof each field, value of each enum
    constant, as the compiler lays them out (a program built and run)."""
    lines = ["#include <stddef.h>", "#include <stdio.h>"]
    lines += ["#include <%s>" % h for h in headers]
    lines.append("int main(void) {")
    for s, fields in sorted(structs.items()):
        lines.append('printf("S %s %%zu %%zu\\n", sizeof(struct %s), _Alignof(struct %s));' % (s, s, s))
        for fname, _, bitfield in fields:
            if not bitfield:
                lines.append('printf("F %s.%s %%zu\\n", offsetof(struct %s, %s));' % (s, fname, s, fname))
    for e in enums:
        lines.append('printf("E %s %%lld\\n", (long long)%s);' % (e, e))
    lines.append("return 0; }")
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = os.path.join(tmp, "probe.c"), os.path.join(tmp, "probe")
        with open(src, "w") as f:
            f.write("\n".join(lines) + "\n")
        p = run([clang, "-std=c11", "-I", include_dir, src, "-o", exe])
        if p.returncode != 0:
            raise SystemExit("%s cannot build the layout probe:\n%s" % (clang, p.stderr))
        out = run([exe], check=True).stdout
    sizes, offsets, values = {}, {}, {}
    for line in out.splitlines():
        tag, name, *rest = line.split()
        if tag == "S":
            sizes[name] = (int(rest[0]), int(rest[1]))
        elif tag == "F":
            offsets[name] = int(rest[0])
        else:
            values[name] = int(rest[0])
    return sizes, offsets, values


def current_abi(args, library):
    """The ABI of LIBRARY and the headers as a list of record lines."""
    headers, functions, typedefs, structs, enums = parse_headers(args.clang, args.include)
    sizes, offsets, values = probe_layouts(args.clang, args.include, headers, structs, enums)
    exported, _ = exported_symbols(args.nm, library)
    out = ["soname %s" % soname_of(args.readelf, library)]
    for name in sorted(exported):
        if name.startswith("ibr_") and name in functions:
            out.append("function %s %s %s" % (name, exported[name] or "-", functions[name]))
    for name, t in sorted(typedefs.items()):
        out.append("typedef %s %s" % (name, t))
    for s, fields in sorted(structs.items()):
        versioned = fields and fields[0][0] == "version"
        out.append("struct %s size=%d align=%d %s"
                   % (s, sizes[s][0], sizes[s][1], "versioned" if versioned else "fixed"))
        for fname, ftype, bitfield in fields:
            off = "bitfield" if bitfield else str(offsets["%s.%s" % (s, fname)])
            out.append("field %s.%s offset=%s %s" % (s, fname, off, ftype))
    for e in sorted(set(enums)):
        out.append("enum %s %d" % (e, values[e]))
    return out


def parse_record(lines):
    """{(kind, name): rest} of record lines (comments and blanks skipped)."""
    rec = {}
    for line in lines:
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        kind, _, rest = line.partition(" ")
        if kind == "soname":
            rec[("soname", "")] = rest
        else:
            name, _, value = rest.partition(" ")
            rec[(kind, name)] = value
    return rec


def compare(old, new):
    """(breaks, additions) between two parsed records of the same soname."""
    breaks, additions = [], []
    for (kind, name), was in sorted(old.items()):
        if kind == "soname":
            continue
        now = new.get((kind, name))
        what = "%s %s" % (kind, name)
        if now is None:
            if kind == "field":
                s = name.split(".")[0]
                if ("struct", s) in new:
                    breaks.append("%s removed from struct %s" % (what, s))
                continue  # the struct's own removal is reported once
            breaks.append("%s removed" % what)
        elif now != was:
            if kind == "struct":
                o, n = dict(w.split("=") for w in was.split()[:2]), dict(w.split("=") for w in now.split()[:2])
                grows = (was.split()[2] == "versioned" and now.split()[2] == "versioned"
                         and o["align"] == n["align"] and int(n["size"]) > int(o["size"]))
                if grows:
                    additions.append("%s grew: %s -> %s" % (what, was, now))
                    continue
            breaks.append("%s changed: %s -> %s" % (what, was, now))
    for (kind, name), now in sorted(new.items()):
        if (kind, name) in old:
            continue
        if kind == "field":
            s = name.split(".")[0]
            srec = old.get(("struct", s))
            if srec is not None and srec.split()[2] == "fixed":
                breaks.append("field %s added to the fixed-layout struct %s" % (name, s))
                continue
        additions.append("%s %s %s" % (kind, name, now))
    return breaks, additions


def node_version(node):
    m = re.match(r"IBROUTE_(\d+)\.(\d+)$", node)
    return (int(m.group(1)), int(m.group(2))) if m else None


def symbols_text(rec, project_version):
    """The Debian symbols file of the recorded functions: each at the version
    its node names (IBROUTE_X.Y -> X.Y.0)."""
    soname = rec[("soname", "")]
    m = re.match(r"lib(.+)\.so\.(\d+)$", soname)
    package = "lib%s%s" % (m.group(1), m.group(2)) if m else soname
    pv = tuple(int(x) for x in project_version.split(".")[:2])
    body, nodes = [], set()
    for (kind, name), value in sorted(rec.items()):
        if kind != "function":
            continue
        node = value.split()[0]
        v = node_version(node)
        if v is None:
            raise SystemExit("function %s is in version node %s, not IBROUTE_X.Y" % (name, node))
        if v > pv:
            raise SystemExit("%s is newer than the project version %s: bump "
                             "include/ibroute/version.h to %d.%d.0 and add a debian/changelog "
                             "entry (dch -v %d.%d.0) first" % (node, project_version, *v, *v))
        nodes.add(node)
        body.append(" %s@%s %d.%d.0" % (name, node, *v))
    body += [" %s@%s %d.%d.0" % (n, n, *node_version(n)) for n in nodes]
    dev = re.sub(r"\d+$", "", package) + "-dev"
    return ("%s %s #MINVER#\n* Build-Depends-Package: %s\n" % (soname, package, dev)
            + "".join(l + "\n" for l in sorted(body)))


def symbols_names(path):
    names = set()
    with open(path) as f:
        for line in f:
            if line.startswith(" ") and "@" in line:
                names.add(line.split()[0].split("@")[0])
    return names


def cmd_check(args):
    with open(args.baseline) as f:
        old = parse_record(f)
    new = parse_record(current_abi(args, args.library))
    problems, notes = [], []
    if old.get(("soname", "")) != new[("soname", "")]:
        notes.append("soname %s (recorded: %s): a new ABI, so nothing is compared; record it "
                     "with '%s --force'" % (new[("soname", "")], old.get(("soname", "")), UPDATE_CMD))
        breaks, additions = [], []
    else:
        breaks, additions = compare(old, new)
        problems += ["ABI break under the same soname %s: %s" % (new[("soname", "")], b)
                     for b in breaks]
    if additions:
        notes.append("%d addition(s) not yet recorded in %s (they pass; record them with '%s' "
                     "and commit %s and the symbols file):\n  %s"
                     % (len(additions), args.baseline, UPDATE_CMD, args.baseline,
                        "\n  ".join(additions)))
    if args.symbols:
        recorded = {n for (k, n) in old if k == "function"}
        listed = {n for n in symbols_names(args.symbols) if n.startswith("ibr_")}
        for n in sorted(recorded - listed):
            problems.append("%s is recorded in %s but not in %s (run %s)"
                            % (n, args.baseline, args.symbols, UPDATE_CMD))
        for n in sorted(listed - recorded):
            problems.append("%s is in %s but not recorded in %s (run %s)"
                            % (n, args.symbols, args.baseline, UPDATE_CMD))
    nf = sum(1 for k, _ in new if k == "function")
    print("%d exported functions, %d typedefs, %d structs, %d enum constants compared with %s"
          % (nf, sum(1 for k, _ in new if k == "typedef"), sum(1 for k, _ in new if k == "struct"),
             sum(1 for k, _ in new if k == "enum"), args.baseline))
    for n in notes:
        print("NOTE: " + n)
    if breaks:
        print("A removed or changed symbol needs a new soname (libibroute.so.N+1) or a new "
              "name (ibr_foo_v2, a new struct version): doc/api-conventions.md, 'ABI'.")
    return problems


def cmd_dump(args):
    print("\n".join(current_abi(args, args.library)))
    return []


def cmd_record(args):
    lines = current_abi(args, args.library)
    new = parse_record(lines)
    if os.path.exists(args.baseline) and not args.force:
        with open(args.baseline) as f:
            old = parse_record(f)
        if old.get(("soname", "")) == new[("soname", "")]:
            breaks, _ = compare(old, new)
            if breaks:
                return ["not recorded: %s (a break under the same soname; --force records it "
                        "anyway, for a new soname or an accepted sys/ change)" % b for b in breaks]
    text = symbols_text(new, args.project_version)
    with open(args.baseline, "w") as f:
        f.write(HEADER + "\n".join(lines) + "\n")
    with open(args.symbols, "w") as f:
        f.write(text)
    print("recorded %d functions in %s and %s" % (sum(1 for k, _ in new if k == "function"),
                                                  args.baseline, args.symbols))
    return []


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd")
    parsers = {}
    for name in ("dump", "check", "record"):
        p = sub.add_parser(name)
        p.add_argument("--include", required=True)
        p.add_argument("--clang", default="clang")
        p.add_argument("--nm", default="nm")
        p.add_argument("--readelf", default="readelf")
        p.add_argument("library")
        parsers[name] = p
    parsers["check"].add_argument("--baseline", required=True)
    parsers["check"].add_argument("--symbols")
    parsers["record"].add_argument("--baseline", required=True)
    parsers["record"].add_argument("--symbols", required=True)
    parsers["record"].add_argument("--project-version", required=True)
    parsers["record"].add_argument("--force", action="store_true")
    args = ap.parse_args()
    if not args.cmd:
        ap.error("give a command: dump, check or record")
    problems = {"dump": cmd_dump, "check": cmd_check, "record": cmd_record}[args.cmd](args)
    for p in problems:
        print("FAIL: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
