#!/usr/bin/env bash
# Record the ABI of a build in abi/libibroute.abi and debian/libibroute0.symbols
# (run it after adding exported functions, structs or enum values, and commit
# both files). It refuses to record a removal or a changed signature under
# the same soname; --force records anyway (a new soname, or an accepted
# change of the sys/ tier at a minor version). See doc/api-conventions.md.
#   scripts/update-abi.sh [--force]        BUILDDIR=build by default
set -euo pipefail
cd "$(dirname "$0")/.."
builddir=${BUILDDIR:-build}
[ -d "$builddir" ] || meson setup "$builddir" --buildtype=debugoptimized >/dev/null
ninja -C "$builddir" >/dev/null
version=$(meson introspect "$builddir" --projectinfo | python3 -c 'import json,sys; print(json.load(sys.stdin)["version"])')
exec python3 tests/abi_baseline.py record --include include \
    --baseline abi/libibroute.abi --symbols debian/libibroute0.symbols \
    --project-version "$version" "$@" "$builddir/src/libibroute.so.0"
