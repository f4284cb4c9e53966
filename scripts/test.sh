#!/usr/bin/env bash
# Build (if needed) and run the whole test suite: unit tests, examples,
# command-line tests and the comparison against OpenSM under ibsim.
set -euo pipefail
cd "$(dirname "$0")/.."
builddir=${BUILDDIR:-build}
[ -d "$builddir" ] || meson setup "$builddir" --buildtype=debugoptimized ${MESON_ARGS:-} >/dev/null
ninja -C "$builddir"
meson test -C "$builddir" --print-errorlogs --num-processes 2 ${TEST_ARGS:-}
