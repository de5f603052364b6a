#!/usr/bin/env bash
# plot.sh - install Debian's python3-matplotlib if missing, then run
# scripts/plot.py with the system python (another python may be first on PATH).
# Usage: scripts/plot.sh DIR [--out FIGDIR] [--metric COLUMN] [--baseline NAME]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/deps.sh"
if ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
    ccsim_install_packages python3-matplotlib
fi
exec /usr/bin/python3 "$here/plot.py" "$@"
