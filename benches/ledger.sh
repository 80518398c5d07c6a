#!/usr/bin/env bash
# The ledger benchmark: a database of 1,000,000 orders (4 stringers, 2022 to 2025, so about
# 245,000 receipts a year) on SQLite and on PostgreSQL, made with migrate-v1 from a generated
# V1 file; then `order list --limit 20`, `order list | head -5`, a whole `order list` as CSV,
# and `export --year 2025`, each as a whole process with its wall time and peak RSS (GNU
# time). Prints Markdown.
#
#   benches/ledger.sh         (ROWS=N for another size; 1000000)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${RECEIPTS_TEST_PG_URL:-}" ] || exec scripts/with-postgres "$0" "$@"
rows=${ROWS:-1000000}
cargo build --release --quiet
receipts=$(realpath "${CARGO_TARGET_DIR:-target}")/release/receipts
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 benches/gen-v1.py "$rows" "$work/v1.csv" 4

pg_db="ledger_bench_$$"
psql -q "$RECEIPTS_TEST_PG_URL" -c "CREATE DATABASE $pg_db"
pg_url="${RECEIPTS_TEST_PG_URL%/*}/$pg_db"

# "seconds peak-MiB" of a shell command line: the run of median time of three (wall clock
# around GNU time, which gives the peak RSS).
measure() {
    for _ in 1 2 3; do
        local start end
        start=$(date +%s%N)
        /usr/bin/time -f "%M" -o "$work/time" sh -c "$1" >/dev/null 2>&1 || true
        end=$(date +%s%N)
        echo "$(( (end - start) / 1000 )) $(tail -1 "$work/time")"
    done | sort -n | sed -n 2p | awk '{ printf "%.3f %.0f\n", $1 / 1e6, $2 / 1024 }'
}

echo "| backend | command | seconds | peak RSS (MiB) | rows/s |"
echo "|---|---|---:|---:|---:|"
for backend in SQLite PostgreSQL; do
    if [ "$backend" = SQLite ]; then url="$work/receipts.db"; else url="$pg_url"; fi
    export DATABASE_URL="$url" TZ=UTC
    "$receipts" db migrate >/dev/null 2>&1
    "$receipts" migrate-v1 "$work/v1.csv" >/dev/null 2>&1
    year_rows=$("$receipts" export --year 2025 2>/dev/null | tail -n +2 | wc -l)
    read -r s m < <(measure "'$receipts' order list --limit 20")
    echo "| $backend | \`order list --limit 20\` | $s | $m | |"
    read -r s m < <(measure "'$receipts' order list | head -5")
    echo "| $backend | \`order list \\| head -5\` | $s | $m | |"
    read -r s m < <(measure "'$receipts' order list --format csv")
    echo "| $backend | \`order list --format csv\` ($rows orders) | $s | $m | $(awk -v n="$rows" -v s="$s" 'BEGIN { printf "%.0f", n / s }') |"
    read -r s m < <(measure "'$receipts' export --year 2025")
    echo "| $backend | \`export --year 2025\` ($year_rows receipts) | $s | $m | $(awk -v n="$year_rows" -v s="$s" 'BEGIN { printf "%.0f", n / s }') |"
done
