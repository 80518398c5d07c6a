#!/usr/bin/env bash
# The document benchmark: `receipts receipt` as a whole process (a receipt as text and as
# PDF, an invoice with its QR-bill), and a year of 1,000 receipts and of 1,000 invoices
# rendered as PDF files, on an SQLite database made from a generated V1 file. Prints Markdown.
#
#   benches/receipt.sh              (RUNS=N sets the runs of the single documents; 50)
#   BASELINE=path/to/receipts benches/receipt.sh
#                                   also measures the receipts of an earlier release's binary,
#                                   in the same run, on a database of its own
#   BASELINE_SAME_SCHEMA=path/to/receipts benches/receipt.sh
#                                   also renders this database's year with an earlier build of
#                                   the same schema, runs alternating, and checks that both
#                                   wrote the same files
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-50}
cargo build --release --quiet
receipts=$(realpath "${CARGO_TARGET_DIR:-target}")/release/receipts
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TZ=Europe/Zurich

# 1,000 paid orders of 2025 for stefan; with `invoices`, 1,000 unpaid ones for iris too.
v1_file() {
    echo "v1_id,kind,stringer,customer,racket,string,tension,price,strung_at,paid_at,notes"
    for i in $(seq 1 1000); do
        echo "$i,client,stefan,Customer $i,Wilson Pro Staff 97,Luxilon ALU Power 1.25,24/23 kg,35.50,2025-03-01 10:00,2025-03-02 10:00,Order $i"
    done
    if [ "$1" = invoices ]; then
        for i in $(seq 1 1000); do
            echo "$i,client,iris,Customer $i,Wilson Pro Staff 97,Luxilon ALU Power 1.25,24/23 kg,35.50,2025-03-01 10:00,,Order $i"
        done
    fi
}

# This release's database: the profiles first (documents freeze them when numbered).
export DATABASE_URL="$work/receipts.db"
$receipts stringer add stefan --name "Stefan Muster Bespannungen" >/dev/null 2>&1
$receipts stringer edit stefan --address "Bahnhofstrasse 1" --address "8001 Zürich" \
    --vat-number "CHE-116.281.710 MWST" --vat-rate 8.1 --vat-from 2024-01-01 --language de 2>/dev/null
$receipts stringer add iris --name "Iris Saiten" >/dev/null 2>&1
$receipts stringer edit iris --street Seestrasse --house-number 5 --postcode 8002 --town Zürich \
    --country CH --iban "CH44 3199 9123 0008 8901 2" --vat-number "CHE-116.281.710 MWST" \
    --vat-rate 8.1 --vat-from 2024-01-01 --language de 2>/dev/null
v1_file invoices >"$work/v1.csv"
$receipts migrate-v1 "$work/v1.csv" >/dev/null 2>&1

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

# One run of a year of one stringer's 1,000 documents as PDF files into DIR: a table row
# of seconds, documents/s, MB.
year() {
    local binary=$1 label=$2 run=$3 out=$4
    shift 4
    rm -rf "$out"
    start=$(date +%s%N)
    "$binary" receipt --year 2025 "$@" --out-dir "$out" 2>/dev/null
    end=$(date +%s%N)
    count=$(ls "$out" | wc -l)
    [ "$count" -eq 1000 ] || { echo "expected 1000 files, got $count" >&2; exit 1; }
    seconds=$(awk -v ns=$((end - start)) 'BEGIN { printf "%.2f", ns / 1e9 }')
    mb=$(du -sm "$out" | cut -f1)
    echo "| $label | $run | $seconds | $(awk -v s="$seconds" 'BEGIN { printf "%.0f", 1000 / s }') | $mb |"
}

echo "### \`receipts receipt\` as a whole process ($runs runs each, SQLite)"
echo
echo "| binary | command | median (ms) | p95 (ms) |"
echo "|---|---|---:|---:|"
if [ -n "${BASELINE:-}" ]; then
    # The earlier release on a database of its own schema, made by itself.
    export DATABASE_URL="$work/baseline.db"
    v1_file receipts >"$work/baseline.csv"
    "$BASELINE" migrate-v1 "$work/baseline.csv" >/dev/null 2>&1
    "$BASELINE" stringer edit stefan --name "Stefan Muster Bespannungen" --address "Bahnhofstrasse 1" \
        --address "8001 Zürich" --vat-number "CHE-116.281.710 MWST" --language de >/dev/null 2>&1
    echo "| last release | \`receipts --version\` | $(time_runs "$BASELINE" --version) |"
    echo "| last release | \`receipts receipt 500\` (text) | $(time_runs "$BASELINE" receipt 500) |"
    echo "| last release | \`receipts receipt 500 -o one.pdf\` (receipt, PDF/A) | $(time_runs "$BASELINE" receipt 500 -o "$work/one.pdf") |"
fi
export DATABASE_URL="$work/receipts.db"
echo "| this one | \`receipts --version\` | $(time_runs "$receipts" --version) |"
echo "| this one | \`receipts receipt 500\` (text) | $(time_runs "$receipts" receipt 500) |"
echo "| this one | \`receipts receipt 500 -o one.pdf\` (receipt, PDF/A) | $(time_runs "$receipts" receipt 500 -o "$work/one.pdf") |"
echo "| this one | \`receipts receipt 1500 -o one.pdf\` (invoice with its QR-bill) | $(time_runs "$receipts" receipt 1500 -o "$work/one.pdf") |"
echo
echo "### A year of 1,000 documents as PDF files"
echo
echo "| documents | run | seconds | documents/s | MB written |"
echo "|---|---:|---:|---:|---:|"
for run in 1 2 3; do
    if [ -n "${BASELINE:-}" ]; then
        DATABASE_URL="$work/baseline.db" year "$BASELINE" "receipts, last release" "$run" "$work/out-baseline"
    fi
    year "$receipts" "receipts, this release" "$run" "$work/out" --stringer stefan
done
for run in 1 2 3; do
    year "$receipts" "invoices with QR-bills" "$run" "$work/out-invoices" --stringer iris
done
if [ -n "${BASELINE_SAME_SCHEMA:-}" ]; then
    # An earlier build of this schema renders this database's year too, runs alternating:
    # the same files, byte for byte, is what a change of speed must keep.
    for run in 1 2 3; do
        year "$BASELINE_SAME_SCHEMA" "receipts, earlier build of this schema" "$run" "$work/out-earlier" --stringer stefan
        year "$receipts" "receipts, this build" "$run" "$work/out" --stringer stefan
    done
    echo
    if diff -r "$work/out-earlier" "$work/out" >/dev/null; then
        echo "The earlier build and this one wrote the same $(ls "$work/out" | wc -l) files, byte for byte."
    else
        echo "The earlier build and this one wrote different files." >&2
        exit 1
    fi
fi
