#!/usr/bin/env bash
# topo-pictures.sh - render one small picture per topology builder for
# docs/topologies.md: `ccsim topo SPEC --export dot` through Graphviz (the
# Debian graphviz package, installed if missing) into docs/img/topo-*.png.
# Usage: scripts/topo-pictures.sh [BUILD_DIR]   (default build/)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
ccsim_install_packages graphviz
build=${1:-build}
[ -x "$build/ccsim" ] || scripts/build.sh "$build"
mkdir -p docs/img
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# a made-up 7-host topo.csv in the Lingjun format (two PSW groups, ASW labels
# local to each), and the object-form example of docs/topologies.md
printf 'ip,DSW,PSW,ASW\na1,G6,P8,S1\na2,G6,P8,S1\na3,G6,P8,S2\nb1,G6,P10,S1\nb2,G6,P10,S1\nb3,G6,P10,S2\nb4,G6,P10,S2\n' \
  >"$tmp/topo.csv"
cat >"$tmp/net.json" <<'JSON'
{
  "hosts":    [{"name": "h1", "gpus": 8, "nics": 2},
               {"name": "h2", "gpus": 8, "nics": 2, "nic_gbps": 100}],
  "switches": ["s1", {"name": "s2", "kind": "tor"}, {"name": "sp", "kind": "agg"}],
  "links":    [{"a": "h1", "b": "s1"}, {"a": "h1", "b": "s2"},
               {"a": "h2", "b": "s1"}, {"a": "h2", "b": "s2", "nic": 1},
               {"a": "s1", "b": "sp", "gbps": 400, "latency_us": 1},
               {"a": "s2", "b": "sp", "gbps": 400}]
}
JSON

# name | spec (small instances, so the pictures stay readable)
pictures=(
  "fat-tree|fat-tree:k=4"
  "fat-tree-rail|fat-tree:k=4,attach=rail"
  "clos2|clos2:tors=4,aggs=2,hosts_per_tor=2"
  "clos2-dual|clos2:tors=4,aggs=2,hosts_per_tor=2,attach=dual"
  "clos3|clos3:pods=2,tors_per_pod=2,aggs_per_pod=2,cores=4,hosts_per_tor=2"
  "torus|torus:x=4,y=3"
  "dragonfly|dragonfly:routers=3,global_links=1,hosts_per_router=1"
  "crux-clos2|crux-clos2:hosts=12,tors=6,aggs=3"
  "crux-double-sided|crux-double-sided:hosts=9"
  "lingjun|lingjun:path=$tmp/topo.csv,psw=2,dsw=2,nics=2"
  "file|file:$tmp/net.json"
)
for p in "${pictures[@]}"; do
  name=${p%%|*}
  spec=${p#*|}
  "$build/ccsim" topo "$spec" --export dot -o "docs/img/topo-$name.dot"
  dot -Tpng -Gdpi=60 "docs/img/topo-$name.dot" -o "docs/img/topo-$name.png"
  rm "docs/img/topo-$name.dot"
  echo "docs/img/topo-$name.png  <- $spec"
done
