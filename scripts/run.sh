#!/usr/bin/env bash
# run.sh - install what is missing, build, and run the main job.
# Usage: scripts/run.sh [CCSIM_ARGS...]
# Default: the demo: `ccsim compare` of seven schedulers on the bundled
# sample trace, its jobs on the hosts the generator recorded for them, on
# the sample's own three-layer Clos with ToR uplinks oversubscribed 4:1,
# over the 20 minutes around the sample's peak demand; then one sentence,
# computed from the runs' summary.csv and run.json, saying why the winner
# wins (the ccsim Python package, python/ccsim); results in results/demo/.
# It also lets Debian's /usr/bin/python3 import the package without
# PYTHONPATH (a ccsim.pth in its site folder naming this python/ folder).
# With arguments, they go to build/ccsim instead.  Every step says what it
# does on stderr, also when the output is not a terminal.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
say() { echo "run.sh: $*" >&2; }
ccsim_install_packages "${CCSIM_PACKAGES[@]}" python3-pandas
if [ -f build/build.ninja ]; then
    say "building build/ccsim (meson + ninja; only what changed)"
else
    say "configuring and building build/ccsim (meson + ninja; a minute or more the first time)"
fi
start=$SECONDS
scripts/build.sh build
say "build/ccsim built in $((SECONDS - start)) s"
if [ $# -gt 0 ]; then
    exec build/ccsim "$@"
fi

# Debian's /usr/bin/python3 finds the package through a ccsim.pth in its
# site folder.  Another python3 first on PATH (a pyenv build, say) gets a
# ccsim.pth of its own; when it lacks pandas but is the same CPython
# version as Debian's (so the same extension ABI), that file also names
# Debian's package folder, where python3-pandas lives, after its own.
python_path() {
    local py=$1 site want=$2 sudo=""
    site=$("$py" -c 'import site; print(site.getsitepackages()[0])') || return 0
    [ "$(cat "$site/ccsim.pth" 2>/dev/null)" = "$want" ] && return 0
    [ "$(id -u)" -ne 0 ] && sudo="sudo -n"
    if $sudo mkdir -p "$site" 2>/dev/null && echo "$want" | $sudo tee "$site/ccsim.pth" >/dev/null 2>&1; then
        say "$py now imports ccsim from $PWD/python ($site/ccsim.pth)"
    else
        say "cannot write $site/ccsim.pth: use PYTHONPATH=$PWD/python to import ccsim"
    fi
}
py_version() { "$1" -c 'import sys; print(sys.implementation.name, *sys.version_info[:2])'; }
python_path /usr/bin/python3 "$PWD/python"
other=$(command -v python3 || true)
if [ -n "$other" ] && [ "$(realpath "$other")" != "$(realpath /usr/bin/python3)" ]; then
    if "$other" -c 'import pandas' 2>/dev/null; then
        python_path "$other" "$PWD/python"
    elif [ "$(py_version "$other")" = "$(py_version /usr/bin/python3)" ]; then
        python_path "$other" "$PWD/python"$'\n'/usr/lib/python3/dist-packages
    else
        say "python3 on PATH is $other, without pandas: load results with /usr/bin/python3 (docs/python.md)"
    fi
fi

out=results/demo
# the window: 10 minutes either side of the first instant of peak demand
peak=$(build/ccsim trace load default | awk '$1 == "peak_at_s" { print $2 }')
say "the demo: ccsim compare of 7 schedulers, 2 at a time, into $out/ (a few minutes)"
build/ccsim compare --topo lingjun-sample:oversub=4 --start $((peak - 600)) --end $((peak + 600)) \
    --scheds ecmp,sincronia,cassini,crux-pa,taccl,crux,ideal -j 2 --out "$out" --force
PYTHONPATH=python /usr/bin/python3 -m ccsim why "$out"
echo
echo "In Python: /usr/bin/python3 -c \"import ccsim; print(ccsim.load('$out').runs)\" (docs/python.md);"
echo "a report: /usr/bin/python3 -m ccsim report $out; figures: scripts/plot.sh $out"
