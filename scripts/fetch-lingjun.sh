#!/usr/bin/env bash
# fetch-lingjun.sh - download the Alibaba Lingjun 2023 trace (job.csv,
# worker.csv, topo.csv) into DIR, where the network allows, for
#   ccsim trace stats DIR        and   {"trace": {"lingjun": "DIR"}}
#
# Usage: scripts/fetch-lingjun.sh [--gzip] [--zip FILE] [DIR]
#   DIR        where the three files go (default: lingjun-2023; keep it out
#              of the repository, the files are tens of MB)
#   --gzip     compress them (ccsim reads .csv.gz directly)
#   --zip FILE use an already downloaded archive of the repository instead
#              of downloading (offline machines)
# Source: https://github.com/alibaba/alibaba-lingjun-dataset-2023 (see its
# LICENSE); the archive holds alibaba-lingjun-dataset-2023-main/data/*.csv.
set -euo pipefail

url=https://github.com/alibaba/alibaba-lingjun-dataset-2023/archive/refs/heads/main.zip
dir=lingjun-2023
gz=0
zip=""
while [ $# -gt 0 ]; do
    case "$1" in
        --gzip) gz=1 ;;
        --zip) zip=${2:?--zip needs a file}; shift ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        -*) echo "fetch-lingjun.sh: unknown option $1" >&2; exit 2 ;;
        *) dir=$1 ;;
    esac
    shift
done

command -v unzip >/dev/null || { echo "fetch-lingjun.sh: needs unzip (apt-get install unzip)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ -z "$zip" ]; then
    zip=$tmp/lingjun.zip
    echo "fetch-lingjun.sh: downloading $url" >&2
    if command -v curl >/dev/null; then
        curl -fL --retry 3 -o "$zip" "$url" || { echo "fetch-lingjun.sh: download failed (no network?); try --zip FILE" >&2; exit 1; }
    elif command -v wget >/dev/null; then
        wget -q -O "$zip" "$url" || { echo "fetch-lingjun.sh: download failed (no network?); try --zip FILE" >&2; exit 1; }
    else
        echo "fetch-lingjun.sh: needs curl or wget" >&2
        exit 1
    fi
fi

unzip -q -o "$zip" '*/data/*.csv' -d "$tmp/x" || { echo "fetch-lingjun.sh: $zip holds no data/*.csv" >&2; exit 1; }
mkdir -p "$dir"
for f in job worker topo; do
    src=$(find "$tmp/x" -path "*/data/$f.csv" | head -n 1)
    [ -n "$src" ] || { echo "fetch-lingjun.sh: $f.csv missing from the archive" >&2; exit 1; }
    if head -c 100 "$src" | grep -q '^version https://git-lfs'; then
        echo "fetch-lingjun.sh: $f.csv is a Git LFS pointer; clone the repository with git lfs instead" >&2
        exit 1
    fi
    if [ "$gz" -eq 1 ]; then
        gzip -9 -c "$src" > "$dir/$f.csv.gz"
    else
        cp "$src" "$dir/$f.csv"
    fi
done
echo "fetch-lingjun.sh: wrote $(ls "$dir" | tr '\n' ' ')into $dir" >&2
echo "next: ccsim trace stats $dir   (add --lenient if a row is malformed)" >&2
