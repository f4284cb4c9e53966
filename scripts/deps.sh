#!/usr/bin/env bash
# Install the Debian packages ibroute needs to build, test and compare
# against OpenSM. Run as root on Debian 12 or later. Idempotent.
set -euo pipefail
pkgs=(build-essential meson ninja-build pkg-config libbsd-dev libcunit1-dev
      libopensm-dev libibumad-dev
      doxygen python3 python3-networkx python3-yaml python3-pytest
      opensm ibsim-utils ibutils infiniband-diags gnuplot-nox time
      clang libclang-rt-14-dev libmetis-dev
      dpkg-dev debhelper dh-python fakeroot lintian python3-mesonpy python3-venv
      chromium-headless-shell graphviz slurmctld slurm-client munge)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
