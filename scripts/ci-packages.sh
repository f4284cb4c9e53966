#!/usr/bin/env bash
# Build the Debian packages of the tree in a copy of it under a temporary
# directory (dpkg-buildpackage writes its results into the parent of the
# source tree: the clone stays clean), check them with lintian, and move
# them to OUTDIR.
#   scripts/ci-packages.sh OUTDIR
# DEB_BUILD_OPTIONS (e.g. nocheck) and DEB_BUILD_PROFILES (nodoc) pass through.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/ci-packages.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/ibroute-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/ibroute"
# the tracked files as they are in the work tree (a clone's or a developer's)
git ls-files -z | xargs -0 tar -cf - | tar -C "$work/ibroute" -xf -
(cd "$work/ibroute" && dpkg-buildpackage -us -uc -b -j"$(nproc)" >"$work/build.log" 2>&1) || {
    tail -60 "$work/build.log"; echo "dpkg-buildpackage failed (log above)"; exit 1; }
grep -E "^(Ok|Fail|Skipped|Timeout): " "$work/build.log" || true   # the tests run in the build
grep -E "^dpkg-gensymbols: warning|^ (\+|-)" "$work/build.log" || true   # symbols file differences
mv "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$out"/
# lintian at its default level (errors and warnings fail)
lintian --fail-on error,warning "$out"/ibroute_*.changes
ls -1 "$out"
