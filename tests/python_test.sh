#!/usr/bin/env bash
# python_test.sh - the ccsim Python package (python/ccsim) under Debian's
# /usr/bin/python3: its unittest suites in python/tests, on hand-written
# result folders (figures) and on small runs of CCSIM_BINARY (load, run,
# compare, sweep, report).  Skipped (exit 77) when /usr/bin/python3 lacks
# pandas or matplotlib.  meson test "python", suite "integration".
# Usage: tests/python_test.sh SOURCE_DIR CCSIM_BINARY
set -u
src=$(realpath "$1")
ccsim=$(realpath "$2")
if ! /usr/bin/python3 -c 'import pandas, matplotlib' 2>/dev/null; then
    echo "SKIP: /usr/bin/python3 lacks pandas or matplotlib (apt-get install python3-pandas python3-matplotlib)"
    exit 77
fi
cd "$src/python" || exit 1
CCSIM_BINARY=$ccsim PYTHONPATH=$src/python MPLBACKEND=Agg \
    exec /usr/bin/python3 -m unittest discover -s tests -v
