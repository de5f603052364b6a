#!/bin/sh
# json_reader_test.sh - every JSON input goes through the one strict reader
# (base/json.h: ccs_json_parse / ccs_json_load): no product source but
# base/json.c calls cJSON's own lenient parsers (trailing data, duplicate
# keys and NUL pass through them silently).  The check is also run on a
# fixture holding such a call, which it must find.
# Usage: json_reader_test.sh SOURCE_ROOT
root=${1:?usage: json_reader_test.sh SOURCE_ROOT}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# lenient ROOT: the calls of cJSON_Parse* outside base/json.c, as FILE:LINE
lenient() {
    (cd "$1" && grep -rnE 'cJSON_Parse[A-Za-z]*[[:space:]]*\(' --include='*.c' --include='*.h' \
        base topo traces sim schedulers 2>/dev/null | grep -v '^base/json\.c:')
}

fails=0
found=$(lenient "$root")
if [ -n "$found" ]; then
    echo "FAIL: cJSON parsed directly (use ccs_json_parse or ccs_json_load, base/json.h):"
    echo "$found"
    fails=$((fails + 1))
fi
mkdir -p "$tmp/base" "$tmp/sim"
printf 'cJSON *x = cJSON_ParseWithLength(s, n);\n' >"$tmp/sim/reader.c"
printf 'cJSON *y = cJSON_ParseWithOpts(s, NULL, 1);\n' >"$tmp/base/json.c"
if [ "$(lenient "$tmp")" != "sim/reader.c:1:cJSON *x = cJSON_ParseWithLength(s, n);" ]; then
    echo "FAIL: the check missed the fixture's direct call (or flagged base/json.c)"
    fails=$((fails + 1))
fi
[ "$fails" -eq 0 ] && echo "json: one strict reader"
[ "$fails" -eq 0 ]
