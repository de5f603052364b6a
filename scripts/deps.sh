#!/usr/bin/env bash
# deps.sh - install the Debian packages ccsim needs, only those missing.
# Sourced by run.sh and test.sh; usable alone: scripts/deps.sh [--mdot] [EXTRA_PKG...]
# --mdot adds MDOT's tooling (scripts/mdot/: dataset collection, training,
# the graph library, the scaling figure; docs/mdot.md): Debian's PyTorch and
# torchvision, run with /usr/bin/python3.  Works as root or through sudo.
set -euo pipefail

CCSIM_PACKAGES=(libglib2.0-dev libigraph-dev libcjson-dev zlib1g-dev libcunit1-dev
                meson ninja-build pkg-config gcc)
CCSIM_MDOT_PACKAGES=(python3-torch python3-torchvision python3-matplotlib)

ccsim_install_packages() {
    local missing=() pkg
    for pkg in "$@"; do
        if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
            missing+=("$pkg")
        fi
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { echo "deps.sh: need root or sudo to install: ${missing[*]}" >&2; return 1; }
        sudo="sudo"
    fi
    echo "deps.sh: installing ${missing[*]}" >&2
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    if [ "${1:-}" = "--mdot" ]; then
        shift
        set -- "${CCSIM_MDOT_PACKAGES[@]}" "$@"
    fi
    ccsim_install_packages "${CCSIM_PACKAGES[@]}" "$@"
fi
