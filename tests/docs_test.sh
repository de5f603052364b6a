#!/usr/bin/env bash
# docs_test.sh - the documentation holds.
#   tests/docs_test.sh SOURCE_DIR
#       the repository stands alone: no source, doc or help text cites a
#       document the repository does not have, and every docs/NAME.md
#       named anywhere exists (meson test "docs", suite "unit");
#   tests/docs_test.sh SOURCE_DIR --examples CCSIM_BINARY
#       every numbered example of docs/usage.md is run again and its output
#       compared, and every column table checked against the header a real
#       run writes (tests/docs_examples.py; meson test "docs_examples",
#       suite "integration").  Skipped (77) without Debian's python3 with
#       matplotlib (an example draws a timeline).
set -u
src=$(realpath "$1")
if [ "${2:-}" = --examples ]; then
    ccsim=$(realpath "$3")   # before cd: meson may give it relative to the build folder
    if ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
        echo "SKIP: /usr/bin/python3 has no matplotlib (apt-get install python3-matplotlib)"
        exit 77
    fi
    exec /usr/bin/python3 "$src/tests/docs_examples.py" "$src" "$ccsim"
fi
cd "$src" || exit 1
fails=0
files=$(find . -path ./.git -prune -o -type d -name 'build*' -prune -o -type f \
    \( -name '*.c' -o -name '*.h' -o -name '*.md' -o -name '*.json' -o -name '*.sh' \
       -o -name '*.py' -o -name 'meson.build' -o -name '*.xml' \) -print | grep -v '^./tests/docs_test.sh$')
# documents outside the repository
if grep -nE 'DESIGN\.md|STYLE\.md|research/|baselines\.md|workloads\.md|anchors\.md|\.\./shared' $files; then
    echo "FAIL: the lines above cite documents outside the repository"
    fails=$((fails + 1))
fi
# every docs/NAME.md that is named exists
for d in $(grep -ohE 'docs/[a-z0-9_-]+\.md' $files README.md | sort -u); do
    [ -f "$d" ] || { echo "FAIL: $d is named but missing"; fails=$((fails + 1)); }
done
[ "$fails" -eq 0 ] && echo "docs: self-contained"
[ "$fails" -eq 0 ]
