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
)
for p in "${pictures[@]}"; do
  name=${p%%|*}
  spec=${p#*|}
  "$build/ccsim" topo "$spec" --export dot -o "docs/img/topo-$name.dot"
  dot -Tpng -Gdpi=60 "docs/img/topo-$name.dot" -o "docs/img/topo-$name.png"
  rm "docs/img/topo-$name.dot"
  echo "docs/img/topo-$name.png  <- $spec"
done
