#!/usr/bin/env bash
# The three ways a user uses an installed ibroute (the Debian packages, or
# any install into the system's prefix), run against the installed files
# only, never the source or build tree's: the ibr command routes the example
# fabric; a C program builds through pkg-config (shared and static) and
# runs; a Python script imports the installed bindings, which load the
# installed libibroute.so.0. Run from the top of the source tree (for the
# example sources); PYTHON is the system's Python (default /usr/bin/python3).
set -euo pipefail
cd "$(dirname "$0")/.."
py=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibroute-installed.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# nothing may point at a build tree
unset IBROUTE_LIBRARY IBROUTE_BUILD_DIR IBROUTE_IBR PYTHONPATH LD_LIBRARY_PATH PKG_CONFIG_PATH
version=$(sed -n 's/^#define IBR_VERSION_STRING "\(.*\)"/\1/p' include/ibroute/version.h)

# 1. ibr, from PATH
ibr=$(command -v ibr)
echo "ibr: $ibr"
[ "$(ibr --version)" = "ibr (ibroute) $version" ]
ibr route -R ftree,updn examples/fabrics/small-fattree.topo -o "$tmp/out" | sed -n '1,4p'
grep -q "lids dumped" "$tmp/out/opensm-lfts.dump"
ibr verify examples/fabrics/small-fattree.topo "$tmp/out/opensm-lfts.dump" >/dev/null
[ -f /usr/share/bash-completion/completions/ibr ] && bash -c \
    'source /usr/share/bash-completion/completions/ibr; COMP_WORDS=(ibr rou); COMP_CWORD=1; _ibr;
     [ "${COMPREPLY[*]}" = route ]'
man -w ibr >/dev/null 2>&1 || [ -f /usr/share/man/man1/ibr.1.gz ]

# 2. C, through pkg-config
echo "pkg-config: ibroute $(pkg-config --modversion ibroute), $(pkg-config --cflags --libs ibroute)"
[ "$(pkg-config --modversion ibroute)" = "$version" ]
cc -std=c99 -Wall -Wextra -Werror examples/route_fabric.c $(pkg-config --cflags --libs ibroute) \
    -o "$tmp/route_fabric"
ldd "$tmp/route_fabric" | grep -Eq "libibroute.so.0 => /(usr/)?lib/"
"$tmp/route_fabric" | tail -2
# the static library, with the private dependencies pkg-config --static names
cc -std=c99 examples/route_ibnetdiscover.c $(pkg-config --cflags ibroute) \
    "$(pkg-config --variable=libdir ibroute)/libibroute.a" \
    $(pkg-config --static --libs ibroute | sed 's/-libroute\b//') -o "$tmp/route_ibnetdiscover_static"
! ldd "$tmp/route_ibnetdiscover_static" | grep -q libibroute
"$tmp/route_ibnetdiscover_static" examples/fabrics/small-fattree.topo | tail -1

# 3. Python, from another directory, with the system's interpreter
(cd "$tmp" && "$py" - "$version" <<'PY'
import os, sys
import ibroute
assert ibroute.__file__.startswith("/usr/lib/python3/dist-packages/"), ibroute.__file__
maps = open("/proc/self/maps").read()
lib = [l.split()[-1] for l in maps.splitlines() if "libibroute.so" in l][0]
assert lib.startswith(("/usr/lib/", "/lib/")), lib
assert ibroute.__version__ == sys.argv[1], ibroute.__version__
with ibroute.Fabric.from_spec("fattree:levels=2,radix=8") as f, f.freeze() as t, \
        t.route("ftree") as r:
    rep = r.verify()
    assert rep.ok, rep
    print("python: ibroute %s from %s, library %s: %s routed %d switches, max link load %d"
          % (ibroute.__version__, os.path.dirname(ibroute.__file__), lib, r.engine,
             t.switch_count, rep.max_link_load))
PY
)
(cd "$tmp" && "$py" -m ibroute --version)
# 4. The OpenSM plugin (ibroute-opensm-plugin), when installed: OpenSM under
#    ibsim loads it by name from the library path and routes with ibr-ftree
#    (skipped without ibsim or OpenSM)
if ldconfig -p | grep -q 'libibroute-opensm\.so'; then
    ibr gen fattree:levels=2,radix=8 -o "$tmp/ft.net"
    rc=0
    "$py" tests/opensm/run_opensm.py --event-plugin ibroute-opensm --timeout 60 \
        "$tmp/ft.net" ibr-ftree "$tmp/osm" 2>"$tmp/osm.err" || rc=$?
    if [ "$rc" = 77 ]; then
        echo "opensm plugin: not checked: $(cat "$tmp/osm.err")"
    else
        [ "$rc" = 0 ] || { cat "$tmp/osm.err"; exit 1; }
        grep -q "ibr-ftree: ibroute ftree routed" "$tmp/osm/opensm.log"
        echo "opensm plugin: OpenSM loaded libibroute-opensm.so and routed with ibr-ftree"
    fi
fi
echo "installed ibroute $version: ibr, C (pkg-config) and Python all work"
