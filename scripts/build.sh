#!/usr/bin/env bash
# build.sh - configure (once) and build ccsim in DIR (default build/).
# Usage: scripts/build.sh [DIR [MESON_SETUP_OPTIONS...]]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir" "$@" >/dev/null
fi
ninja -C "$dir" >/dev/null
