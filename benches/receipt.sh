#!/usr/bin/env bash
# The receipt benchmark: `receipts receipt` as a whole process (one PDF, one text receipt),
# and a year of 1,000 receipts rendered as PDF files, on an SQLite shop made from a
# generated V1 file. Prints Markdown.
#
#   benches/receipt.sh        (RUNS=N sets the runs of the single receipts; 50)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-50}
cargo build --release --quiet
receipts=$(realpath "${CARGO_TARGET_DIR:-target}")/release/receipts
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export DATABASE_URL="$work/receipts.db" TZ=Europe/Zurich

# 1,000 paid orders of 2025, one stringer, with a profile.
{
    echo "v1_id,kind,stringer,customer,racket,string,tension,price,strung_at,paid_at,notes"
    for i in $(seq 1 1000); do
        echo "$i,client,stefan,Customer $i,Wilson Pro Staff 97,Luxilon ALU Power 1.25,24/23 kg,35.50,2025-03-01 10:00,2025-03-02 10:00,Order $i"
    done
} >"$work/v1.csv"
$receipts migrate-v1 "$work/v1.csv" >/dev/null 2>&1
$receipts stringer edit stefan --name "Stefan Muster Bespannungen" --address "Bahnhofstrasse 1" \
    --address "8001 Zürich" --vat-number "CHE-123.456.789 MWST" --language de 2>/dev/null

# Median and 95th percentile of a command run $runs times, in ms.
time_runs() {
    local times=()
    for i in $(seq 1 "$runs"); do
        local start end
        start=$(date +%s%N)
        "$@" >/dev/null 2>&1
        end=$(date +%s%N)
        times+=($(( (end - start) / 1000 )))
        rm -f "$work/one.pdf"
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{ t[NR] = $1 } END {
        printf "%.2f | %.2f", t[int((NR + 1) / 2)] / 1000, t[int(NR * 0.95 + 0.5)] / 1000 }'
}

echo "### \`receipts receipt\` as a whole process ($runs runs each, SQLite)"
echo
echo "| command | median (ms) | p95 (ms) |"
echo "|---|---:|---:|"
echo "| \`receipts --version\` (process start alone) | $(time_runs "$receipts" --version) |"
echo "| \`receipts receipt 500\` (text) | $(time_runs "$receipts" receipt 500) |"
echo "| \`receipts receipt 500 -o one.pdf\` (PDF/A) | $(time_runs "$receipts" receipt 500 -o "$work/one.pdf") |"
echo
echo "### A year of 1,000 receipts as PDF files"
echo
echo "| run | seconds | receipts/s | MB written |"
echo "|---:|---:|---:|---:|"
for run in 1 2 3; do
    rm -rf "$work/out"
    start=$(date +%s%N)
    "$receipts" receipt --year 2025 --out-dir "$work/out" 2>/dev/null
    end=$(date +%s%N)
    count=$(ls "$work/out" | wc -l)
    [ "$count" -eq 1000 ] || { echo "expected 1000 files, got $count" >&2; exit 1; }
    seconds=$(awk -v ns=$((end - start)) 'BEGIN { printf "%.2f", ns / 1e9 }')
    mb=$(du -sm "$work/out" | cut -f1)
    echo "| $run | $seconds | $(awk -v s="$seconds" 'BEGIN { printf "%.0f", 1000 / s }') | $mb |"
done
