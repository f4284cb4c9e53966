#!/usr/bin/env bash
# Set up, build, and route the example fabric shipped in examples/fabrics:
# prints the routing summary and the start of OpenSM-format LFT dump.
# Each step says what it does and how long it took: about 1-2 minutes in
# all on a fresh machine (package install included), a few seconds when
# everything is installed and built.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
step_start=$SECONDS
step() {
    step_start=$SECONDS
    echo "== [$1/4] $2"
}
done_step() {
    echo "   done in $((SECONDS - step_start)) s"
}

step 1 "checking the Debian packages ibroute needs (scripts/deps.sh; apt-get installs the missing ones, about a minute the first time)"
bash scripts/deps.sh
done_step

if [ -d build ]; then
    step 2 "configuring: build/ exists, kept (remove it to start over)"
else
    step 2 "configuring the build with Meson into build/ (checks for the compiler and libraries)"
    # Meson's own lines (the checks it runs), indented, as they come
    meson setup build --buildtype=debugoptimized 2>&1 | sed -u 's/^/   /'
fi
done_step

step 3 "building the library, the ibr command and the tests with ninja (about 30 s on 2 cores the first time)"
if [ -t 1 ]; then
    ninja -C build       # ninja shows its [done/total] progress line
else
    # not a terminal: one progress line per tenth of the build
    ninja -C build | awk '
        match($0, /^\[[0-9]+\/[0-9]+\]/) {
            split(substr($0, 2, RLENGTH - 2), a, "/"); n = a[1]; t = a[2]
            if (t > 0 && (int(n * 10 / t) > shown || n == t)) {
                shown = int(n * 10 / t); printf "   [%d/%d] %s\n", n, t, substr($0, RLENGTH + 2)
            }
            next
        }
        /^ninja: no work to do/ { print "   already built"; next }
        { print }'
fi
done_step

out=${IBR_DEMO_OUT:-/tmp/ibroute-demo}
step 4 "routing examples/fabrics/small-fattree.topo with minhop into $out"
./build/src/ibr info examples/fabrics/small-fattree.topo
echo
./build/src/ibr route -R minhop examples/fabrics/small-fattree.topo -o "$out"
echo
echo "== $out/opensm-lfts.dump (first switch)"
sed -n '1,/lids dumped/p' "$out/opensm-lfts.dump"
echo
echo "== done in $((SECONDS - start)) s. The command is $(pwd)/build/src/ibr (not on PATH): try"
echo "   'build/src/ibr help', or install it with 'ninja -C build install' (see the README's"
echo "   'Installing'); the whole dump set of this routing is in $out"
