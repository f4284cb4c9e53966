#!/usr/bin/env python3
"""The library's folders form layers; no #include may point up a layer.

    core < qos < formats < gen < cdg < verify < sys < mcast < engines < route < persist

A folder may include its own headers and those of the layers below it.
Engines are held to more: they see the public headers (the engine-author
API in ibroute/sys/ among them), core/base.h and core/buffer.h (helpers),
the read-only topology layout
core/topo_int.h, the CDG (cdg/cdg.h), the LFT dump reader they share with
the formats (formats/lfts_reader.h, for the file engine) and their own headers, never the
layouts of the context, fabric, result or run (core/internal.h,
sys/run_int.h): route/ runs them.

Usage: check_layers.py SRC_DIR (exit 1 and one line per violation).
"""
import os
import re
import sys

ORDER = ["core", "qos", "formats", "gen", "cdg", "verify", "sys", "mcast", "engines", "route", "persist"]
ENGINE_ALLOWED = {"core/base.h", "core/buffer.h", "core/topo_int.h", "cdg/cdg.h",
                  "formats/lfts_reader.h", "mcast/loaded.h"}


def main():
    src = sys.argv[1]
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
                                       "formats/lfts_reader.h)")
    # what engines may include must not open the private layouts again
    for inc in sorted(ENGINE_ALLOWED):
        with open(os.path.join(src, inc), encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if m and m.group(1) in ("core/internal.h", "sys/run_int.h"):
                    bad.append(f"{inc}:{n}: includes {m.group(1)}, which engines must not see")
    for b in bad:
        print(b)
    if not bad:
        print("layers: ok")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
