#!/bin/sh
# packet_crosscheck_test.sh CCSIM REPLAYER SRCDIR - one small case of the
# packet-level cross-check (docs/validation.md): a ring all-reduce alone on
# 2 hosts (validate/cases/ring-2.json, two iterations) through ccsim and
# ns-3; the iteration time and GPU utilization must agree within 5%.
# REPLAYER "none": ns-3 was not found, skipped (exit 77).
set -u
ccsim=$1
replayer=$2
src=$3
if [ "$replayer" = none ]; then
    echo "packet_crosscheck: SKIPPED (ns-3 not found at configure time: apt-get install libns3-dev)"
    exit 77
fi
if ! [ -x /usr/bin/python3 ]; then
    echo "packet_crosscheck: SKIPPED (no /usr/bin/python3 for the comparison)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$ccsim" export-packet "$src/validate/cases/ring-2.json" --end 0.02 -o "$tmp/x" >/dev/null || exit 1
"$replayer" "$tmp/x" -o "$tmp/ns3" || exit 1
/usr/bin/python3 "$src/scripts/validate-packet-compare.py" "$tmp/x" "$tmp/ns3" --case ring-2 \
    --header --max-iter-err 0.05 --max-util-err 0.05
