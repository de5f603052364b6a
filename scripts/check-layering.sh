#!/usr/bin/env bash
# check-layering.sh - fail when an #include runs back up the layering of
# docs/architecture.md, or reaches into another folder's private header.
#
# Layers, lowest first (a file may include the headers of its own folder and
# of lower layers only; folders on one layer do not include each other):
#   0 base/                 errors, units, float comparison
#   1 topo/  traces/        topologies; traces and the model catalog
#   2 sim/                  the engine (owns the scheduler interface, sim/scheduler.h)
#   2 sim/steady/           the engine's steady-state wing: one layer with sim/, it
#                           includes sim/'s public headers and sim/ includes its public
#                           header (steady.h); neither includes the other's private one
#   3 schedulers/           the schedulers and their registry
#   4 sim/experiments/      sweeps, merge, the optimal-gap benchmark
#   5 sim/cli/              main.c and the subcommands
#   6 tests/, tests/fuzz/   may include anything, private headers too (white-box)
#   6 validate/ns3/         the packet replayer, a C++ program of its own: its own folder
#                           and ns-3 only
# A *-private.h is included only by files of its own folder (and tests/).
# Generated headers belong to the layer that generates them: ccs-config.h to
# base/, trace-resources.h to traces/, topo-resources.h to topo/.  Every .c/.h under ROOT (but .git/
# and build folders, those holding a build.ninja) must sit in one of these
# folders.
#
# Usage: scripts/check-layering.sh [--root DIR]   (default: this repository)
# Prints each violation as FILE:LINE: message; exit 0 clean, 1 violations,
# 2 usage.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
while [ $# -gt 0 ]; do
    case $1 in
    --root)
        [ $# -ge 2 ] || { echo "check-layering.sh: --root needs a folder" >&2; exit 2; }
        root=$2
        shift 2
        ;;
    -h | --help)
        sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
        exit 0
        ;;
    *)
        echo "check-layering.sh: unknown argument '$1' (see --help)" >&2
        exit 2
        ;;
    esac
done
[ -d "$root" ] || { echo "check-layering.sh: $root: no such folder" >&2; exit 2; }
root=$(cd "$root" && pwd)

# layer_of FOLDER: its layer (path from the root) in $layer, or -1.
layer_of() {
    case $1 in
    base) layer=0 ;;
    topo | traces) layer=1 ;;
    sim | sim/steady) layer=2 ;;
    schedulers) layer=3 ;;
    sim/experiments) layer=4 ;;
    sim/cli) layer=5 ;;
    tests | tests/fuzz | validate/ns3) layer=6 ;;
    *) layer=-1 ;;
    esac
}

# generated_owner NAME: the folder that owns a generated header in $owner,
# or nothing.
generated_owner() {
    case $1 in
    ccs-config.h | ccs-commit.h) owner=base ;;
    trace-resources.h) owner=traces ;;
    topo-resources.h) owner=topo ;;
    *) owner= ;;
    esac
}

# dir_of PATH: its folder in $d ("." for a bare name).
dir_of() {
    case $1 in
    */*) d=${1%/*} ;;
    *) d=. ;;
    esac
}

# Not sources: .git/ and every build folder (one holding a build.ninja).
prune=(-path "$root/.git")
while IFS= read -r b; do
    prune+=(-o -path "$b")
done < <(find "$root" -maxdepth 4 -path "$root/.git" -prune -o -name build.ninja -printf '%h\n')

bad=0
files=0
includes=0
report() {
    echo "$1"
    bad=$((bad + 1))
}

while IFS= read -r f; do
    rel=${f#"$root"/}
    dir_of "$rel"
    dir=$d
    files=$((files + 1))
    layer_of "$dir"
    src_layer=$layer
    if [ "$src_layer" -lt 0 ]; then
        report "$rel:1: folder $dir/ has no layer (add it to scripts/check-layering.sh and docs/architecture.md)"
        continue
    fi
    while IFS= read -r hit; do
        [ -n "$hit" ] || continue
        line=${hit%%:*}
        [[ ${hit#*:} =~ \"([^\"]*)\" ]] || continue
        inc=${BASH_REMATCH[1]}
        includes=$((includes + 1))
        case $inc in
        *..*)
            report "$rel:$line: #include \"$inc\": name other folders' headers from the root, without .."
            continue
            ;;
        esac
        if [ -f "$root/$dir/$inc" ]; then
            dir_of "$dir/$inc"
            target=$d
        elif [ -f "$root/$inc" ]; then
            dir_of "$inc"
            target=$d
        else
            generated_owner "${inc##*/}"
            target=$owner
            if [ -z "$target" ]; then
                report "$rel:$line: #include \"$inc\": no such header in $dir/ or from the root"
                continue
            fi
        fi
        [ "$target" = . ] && target=$dir
        if [ "$target" != "$dir" ]; then
            layer_of "$target"
            t_layer=$layer
            if [ "$t_layer" -lt 0 ]; then
                report "$rel:$line: #include \"$inc\": $target/ has no layer"
                continue
            fi
            wing=0
            case "$dir>$target" in
            "sim>sim/steady" | "sim/steady>sim") wing=1 ;;
            esac
            if [ "$t_layer" -ge "$src_layer" ] && [ $wing = 0 ]; then
                report "$rel:$line: #include \"$inc\": $dir/ (layer $src_layer) may not include from $target/ (layer $t_layer); includes go down only"
                continue
            fi
            case ${inc##*/} in
            *-private.h)
                if [ "$dir" != tests ]; then
                    report "$rel:$line: #include \"$inc\": a private header of $target/, included from $dir/"
                fi
                ;;
            esac
        fi
    done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" || true)
done < <(find "$root" \( "${prune[@]}" \) -prune -o \
              -type f \( -name '*.c' -o -name '*.h' \) -print | LC_ALL=C sort)

if [ "$bad" -gt 0 ]; then
    echo "check-layering: $bad violation(s) in $files files"
    exit 1
fi
echo "check-layering: OK ($files files, $includes includes)"
