#!/usr/bin/env bash
# readme_test.sh - every command of README.md's "Using it" block, run as
# written on a copy of the repository's inputs (with options appended that
# make the inputs small), must succeed and may write only under results/
# (meson test "readme", suite "integration").  Skipped (77) without
# matplotlib, which scripts/plot.sh needs.
# Usage: tests/readme_test.sh SOURCE_DIR BUILD_DIR
set -u
src=$(realpath "$1")
build=$(realpath "$2")
if ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
    echo "SKIP: /usr/bin/python3 has no matplotlib (apt-get install python3-matplotlib)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# A repository as a user has it after building: sources the commands read,
# build/ the real build folder.
repo=$tmp/repo
mkdir -p "$repo/traces"
cp -r "$src/examples" "$src/scripts" "$src/python" "$src/docs" "$src/README.md" "$repo/"
cp -r "$src/traces/data" "$repo/traces/"
ln -s "$build" "$repo/build"
cd "$repo" || exit 1

# The block: the lines between "```sh" and "```" after "## Using it".
awk '/^## Using it/ { f = 1 } f && /^```sh/ { g = 1; next } g && /^```/ { exit } g { print }' \
    README.md > "$tmp/commands"
[ "$(grep -c . "$tmp/commands")" -ge 8 ] || bad "README's Using it block not found"

# Options appended to make a command's inputs small (the last value wins).
small() {
    case $1 in
    *"ccsim run --scenario"*) echo "" ;;
    *"ccsim run"* | *"ccsim compare"*) echo "--start 61260 --end 61380 -q" ;;
    *"ccsim gen-trace"*) echo "--days 1" ;;
    *"ccsim optimal-gap"*) echo "--cases 1 --window 0.5 --threads 1 --quiet" ;;
    *"reproduce-crux.sh"*) echo "--trace traces/data --start 61260 --end 61380 --scheds ecmp,crux -j 2" ;;
    *) echo "" ;;
    esac
}

listing() { find . -path ./build -prune -o -type f -print | sort; }
listing > "$tmp/before"
n=0
while IFS= read -r line; do
    cmd=${line%%#*}
    cmd=$(echo "$cmd")
    [ -n "$cmd" ] || continue
    n=$((n + 1))
    full="$cmd $(small "$cmd")"
    if ! eval "$full" >"$tmp/out" 2>&1 </dev/null; then
        bad "$full"
        tail -5 "$tmp/out"
    fi
done < "$tmp/commands"
listing > "$tmp/after"
outside=$(comm -13 "$tmp/before" "$tmp/after" | grep -v '^\./results/')
[ -z "$outside" ] || bad "files written outside results/: $outside"
[ -d results ] && [ "$(ls results | wc -l)" -ge 6 ] || bad "results/ holds too little: $(ls results 2>/dev/null)"
echo "readme: $n commands, $fails failed"
[ "$fails" -eq 0 ]
