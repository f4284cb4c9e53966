#!/usr/bin/env python3
"""The library's folders form layers; nothing may point up a layer.

    core < formats < qos < gen < cdg < verify < sys < mcast < engines < route < persist

(doc/api-conventions.md, "Layers", draws them.) A folder may use its own
files and those of the layers below it, and the check reads three kinds of
arrow:
- #include lines: a file includes no header of a layer above its own;
- declarations: a header declares no function that a layer above its own
  defines (the declaration would hand the call down the floors);
- symbols (with --nm and --lib, the static library): each object file
  calls no function and reads no variable that only an object of a layer
  above its own defines (nm: its undefined symbols against the others'
  definitions), so a call through a prototype written by hand, or through
  a header of the right layer that declares what a higher one defines, is
  caught too.

Engines are held to more: they see the public headers (the engine-author
API in ibroute/sys/ among them), core/base.h and core/buffer.h (helpers),
core/messages.h (the message-code macro),
the read-only topology layout
core/topo_int.h, the CDG (cdg/cdg.h), the LFT dump reader they share with
the formats (formats/lfts_reader.h, for the file engine; formats/lex.h, the
lexer of every text format, for the engines' settings texts) and their own headers, never the
layouts of the context, fabric, result or run (core/internal.h,
sys/run_int.h): route/ runs them.

Usage: check_layers.py SRC_DIR [--nm NM --lib LIBIBROUTE.a [--inject UNIT:SYMBOL]]
(exit 1 and one line per violation).
"""
import argparse
import os
import re
import subprocess
import sys

ORDER = ["core", "formats", "qos", "gen", "cdg", "verify", "sys", "mcast", "engines", "route", "persist"]
ENGINE_ALLOWED = {"core/base.h", "core/buffer.h", "core/messages.h", "core/topo_int.h", "cdg/cdg.h",
                  "formats/lfts_reader.h", "formats/lex.h", "mcast/loaded.h"}


# A declaration in a header: a line at column 0 that names an ibr_ function
# with its opening parenthesis (calls inside inline bodies are indented).
DECL = re.compile(r"^(?!static\b|typedef\b|return\b|#)[A-Za-z_][\w \t*]*?\b(ibr_\w+)\s*\(")
# Generated units in the build tree (meson-generated_..) and their layers.
GENERATED = {"builtins.c": "route", "mesh_table.c": "engines"}


def layer_of(rel):
    top = rel.split("/")[0]
    return top if top in ORDER else None


def object_units(src):
    """Object name in the static library -> source path under src/."""
    units = {}
    for layer in ORDER:
        for dirpath, _dirs, files in os.walk(os.path.join(src, layer)):
            for name in files:
                if name.endswith(".c"):
                    rel = os.path.relpath(os.path.join(dirpath, name), src)
                    units[rel.replace("/", "_") + ".o"] = rel
    return units


def read_symbols(nm, lib, src):
    """(defined, used): symbol -> defining units; unit -> undefined symbols."""
    out = subprocess.run([nm, "-A", lib], check=True, capture_output=True,
                         text=True).stdout
    units = object_units(src)
    defined, used = {}, {}
    for line in out.splitlines():
        m = re.match(r"^[^:]*:([^:]+):\s*(?:[0-9a-fA-F]+)?\s+([A-Za-z])\s+(\S+)$", line)
        if not m:
            continue
        obj, kind, sym = m.groups()
        unit = units.get(obj)
        if unit is None:
            gen = obj.rsplit("_", 1)[-1][:-2] if obj.startswith("meson-generated_") else None
            unit = GENERATED.get(gen) and GENERATED[gen] + "/" + gen
        if unit is None:
            continue
        if kind == "U":
            used.setdefault(unit, set()).add(sym)
        elif kind in "TDBRCGSV":
            defined.setdefault(sym, set()).add(unit)
    return defined, used


def symbol_arrows(bad, defined, used):
    for unit in sorted(used):
        layer = layer_of(unit)
        for sym in sorted(used[unit]):
            owners = defined.get(sym)
            if not owners:
                continue  # the C library, libbsd, METIS
            low = min(owners, key=lambda u: ORDER.index(layer_of(u)))
            if ORDER.index(layer_of(low)) > ORDER.index(layer):
                bad.append(f"{unit}: {layer}/ uses {sym}, defined in {low}, a layer above it")


def declaration_arrows(bad, src, defined):
    for layer in ORDER:
        for dirpath, _dirs, files in os.walk(os.path.join(src, layer)):
            for name in files:
                if not name.endswith(".h"):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, name), src)
                with open(os.path.join(dirpath, name), encoding="utf-8") as fh:
                    for n, line in enumerate(fh, 1):
                        m = DECL.match(line)
                        owners = defined.get(m.group(1)) if m else None
                        if not owners:
                            continue
                        low = min(owners, key=lambda u: ORDER.index(layer_of(u)))
                        if ORDER.index(layer_of(low)) > ORDER.index(layer):
                            bad.append(f"{rel}:{n}: {layer}/ declares {m.group(1)}, defined "
                                       f"in {low}, a layer above it")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("--nm")
    ap.add_argument("--lib")
    ap.add_argument("--inject", action="append", default=[], metavar="UNIT:SYMBOL",
                    help="pretend UNIT uses SYMBOL (the suite's proof that the check "
                    "catches a call up the layers)")
    args = ap.parse_args()
    src = args.src
    bad = []
    for layer in ORDER:
        root = os.path.join(src, layer)
        for dirpath, _dirs, files in os.walk(root):
            for name in files:
                if not name.endswith((".c", ".h", ".in")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, src)
                with open(path, encoding="utf-8") as fh:
                    for n, line in enumerate(fh, 1):
                        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                        if not m:
                            continue
                        inc = m.group(1)
                        top = inc.split("/")[0]
                        if top == "ibroute" or "/" not in inc:
                            continue  # public headers, or a file next to it
                        if top not in ORDER:
                            bad.append(f"{rel}:{n}: includes {inc}, in no known layer")
                            continue
                        if ORDER.index(top) > ORDER.index(layer):
                            bad.append(f"{rel}:{n}: {layer}/ includes {inc}, a layer above it")
                        if layer == "engines" and top != "engines" and inc not in ENGINE_ALLOWED:
                            bad.append(f"{rel}:{n}: an engine includes {inc} (engines see "
                                       "ibroute/sys/*.h, core/base.h, core/buffer.h, core/topo_int.h, cdg/cdg.h, "
                                       "formats/lfts_reader.h, formats/lex.h)")
    # what engines may include must not open the private layouts again
    for inc in sorted(ENGINE_ALLOWED):
        with open(os.path.join(src, inc), encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if m and m.group(1) in ("core/internal.h", "sys/run_int.h"):
                    bad.append(f"{inc}:{n}: includes {m.group(1)}, which engines must not see")
    if args.nm and args.lib:
        defined, used = read_symbols(args.nm, args.lib, src)
        for inj in args.inject:
            unit, sym = inj.split(":")
            used.setdefault(unit, set()).add(sym)
        symbol_arrows(bad, defined, used)
        declaration_arrows(bad, src, defined)
    for b in bad:
        print(b)
    if not bad:
        print("layers: ok")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
