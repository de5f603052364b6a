#!/bin/sh
# packet_replay_test.sh REPLAYER SRCDIR - the ns-3 replayer (validate/ns3)
# on hand-written exports: one flow over one link against its hand value,
# bad input and bad usage.  REPLAYER "none": ns-3 was not found, skipped.
set -u
replayer=$1
src=$2
if [ "$replayer" = none ]; then
    echo "packet_replay: SKIPPED (ns-3 not found at configure time: apt-get install libns3-dev)"
    exit 77
fi
data=$src/tests/data/packet/one-flow
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # check WHAT CONDITION...
    what=$1
    shift
    if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fail=1; fi
}

# One flow of 1e8 bytes over one 100 Gbps (12.5e9 B/s) link of 1 us:
# 1e8 / 12.5e9 + 1e-6 = 0.008001 s by hand; within 2% (TCP/IP headers
# take 52 of every 9000 bytes: 0.6%).
"$replayer" "$data" -o "$tmp/one" >"$tmp/one.log" 2>&1
check "one flow runs" [ $? -eq 0 ]
fct=$(awk -F, 'NR == 2 { print $6 }' "$tmp/one/transfers.csv" 2>/dev/null)
check "one flow: fct $fct within 2% of 0.008001 s" \
    awk -v f="${fct:-0}" 'BEGIN { e = (f - 0.008001) / 0.008001; exit !(e < 0.02 && e > -0.02) }'

# links.csv: a row per directed link of the export, whose drops and marks
# add up to the run's (summary.csv).
check "links.csv has a row per link" [ "$(wc -l <"$tmp/one/links.csv")" -eq \
    "$(wc -l <"$data/packet_links.csv")" ]
sums=$(awk -F, 'NR > 1 { d += $4; m += $5 } END { print d "," m }' "$tmp/one/links.csv")
run=$(awk -F, 'NR == 2 { print $12 "," $13 }' "$tmp/one/summary.csv")
check "links.csv adds up to summary.csv ($sums, $run)" [ "$sums" = "$run" ]

# A missing folder: a clear error, exit 1, no output.
"$replayer" "$tmp/nothing" -o "$tmp/out1" >"$tmp/err1" 2>&1
check "missing folder exits 1" [ $? -eq 1 ]
check "missing folder says so" grep -q "packet_nodes.csv: cannot be read" "$tmp/err1"
check "missing folder writes nothing" [ ! -e "$tmp/out1" ]

# A flow routed over a link that does not exist.
cp -r "$data" "$tmp/bad"
printf 'epoch,time_s,job_id,conn,path,links\n0,0,j,0,-1,7\n' >"$tmp/bad/packet_routes.csv"
"$replayer" "$tmp/bad" -o "$tmp/out2" >"$tmp/err2" 2>&1
check "bad link exits 1" [ $? -eq 1 ]
check "bad link names file, line and link" \
    grep -q "packet_routes.csv:2: link 7 does not exist" "$tmp/err2"
check "bad link writes nothing" [ ! -e "$tmp/out2" ]

# A flow on a connection the job does not have.
cp -r "$data" "$tmp/bad3"
sed -i 's/^j,1,flow,0,0,0,0,0,/j,1,flow,0,0,0,0,3,/' "$tmp/bad3/packet_tasks.csv"
"$replayer" "$tmp/bad3" -o "$tmp/out3" >"$tmp/err3" 2>&1
check "bad connection exits 1" [ $? -eq 1 ]
check "bad connection is named" grep -q "packet_tasks.csv:3: connection 3 of job j does not exist" "$tmp/err3"

# Usage: exit 2.
"$replayer" >/dev/null 2>&1
check "no arguments exits 2" [ $? -eq 2 ]
"$replayer" "$data" -o "$tmp/o4" --routing nowhere >/dev/null 2>&1
check "bad --routing exits 2" [ $? -eq 2 ]
exit $fail
