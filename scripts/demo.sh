#!/usr/bin/env bash
# Set up, build, and route the example fabric shipped in examples/fabrics:
# prints the routing summary and the start of OpenSM-format LFT dump.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
[ -d build ] || meson setup build --buildtype=debugoptimized >/dev/null
ninja -C build >/dev/null
out=${IBR_DEMO_OUT:-/tmp/ibroute-demo}
./build/src/ibr info examples/fabrics/small-fattree.topo
echo
./build/src/ibr route -R minhop examples/fabrics/small-fattree.topo -o "$out"
echo
echo "== $out/opensm-lfts.dump (first switch)"
sed -n '1,/lids dumped/p' "$out/opensm-lfts.dump"
echo
echo "== the command is $(pwd)/build/src/ibr (not on PATH): try 'build/src/ibr help',"
echo "   or install it with 'ninja -C build install' (see the README's 'Installing');"
echo "   the whole dump set of this routing is in $out"
