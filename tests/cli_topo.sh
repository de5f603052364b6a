#!/bin/sh
# cli_topo.sh - integration test of `ccsim topo` (suite "integration"):
# exit statuses, the error format, describe, and an export that re-imports.
# Usage: cli_topo.sh PATH/TO/ccsim
set -u
ccsim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # check WHAT CONDITION...
  what=$1; shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fail=1; fi
}

"$ccsim" topo fat-tree:k=7 >"$tmp/out" 2>"$tmp/err"; st=$?
check "bad spec exits 1" [ "$st" -eq 1 ]
check "bad spec message" grep -q "^ccsim: topology 'fat-tree:k=7': k must be even" "$tmp/err"

"$ccsim" topo >/dev/null 2>&1; st=$?
check "missing SPEC exits 2" [ "$st" -eq 2 ]
"$ccsim" topo fat-tree --export xml >/dev/null 2>&1; st=$?
check "bad --export exits 2" [ "$st" -eq 2 ]

"$ccsim" topo fat-tree:k=4 >"$tmp/desc"; st=$?
check "describe exits 0" [ "$st" -eq 0 ]
# 16 hosts x 4 NICs x 200 Gbps / 2 = 6400 Gbps
check "describe bisection" grep -q "bisection bandwidth: 6400 Gbps" "$tmp/desc"
check "describe paths" grep -q "h0 -> h4: 4 paths of 6 links" "$tmp/desc"

for fmt in json graphml; do
  "$ccsim" topo fat-tree:k=4 --export $fmt -o "$tmp/ft.$fmt"; st=$?
  check "export $fmt exits 0" [ "$st" -eq 0 ]
  check "export $fmt leaves no temp file" [ ! -e "$tmp/ft.$fmt.tmp" ]
  "$ccsim" topo "file:$tmp/ft.$fmt" >"$tmp/re.$fmt"; st=$?
  check "re-import $fmt exits 0" [ "$st" -eq 0 ]
  # everything but the first line (the topology's name) is the same
  tail -n +2 "$tmp/desc" >"$tmp/a"; tail -n +2 "$tmp/re.$fmt" >"$tmp/b"
  check "re-import $fmt same description" cmp -s "$tmp/a" "$tmp/b"
done

"$ccsim" topo clos2:tors=2,aggs=1,hosts_per_tor=1 --export dot >"$tmp/g.dot"; st=$?
check "export dot" [ "$st" -eq 0 ]
check "dot edge" grep -q '"h0" -- "rack0/tor"' "$tmp/g.dot"
check "dot keeps each rank in id order" grep -q '{ edge \[style=invis\]; "h0" -- "h1"; }' "$tmp/g.dot"
"$ccsim" topo --list >"$tmp/list"; st=$?
check "list" grep -q "^crux-double-sided" "$tmp/list"
exit $fail
