#!/usr/bin/env bash
# plot.sh - install Debian's python3-matplotlib and python3-pandas if
# missing, then run scripts/plot.py with the system python (another python
# may be first on PATH).
# Usage: scripts/plot.sh DIR [plot.py options: --out FIGDIR --metric COLUMN --x COL ...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/deps.sh"
if ! /usr/bin/python3 -c 'import matplotlib, pandas' 2>/dev/null; then
    ccsim_install_packages python3-matplotlib python3-pandas
fi
exec /usr/bin/python3 "$here/plot.py" "$@"
