#!/usr/bin/env bash
# Reminders at scale (SPEC 22), on both backends, each command a whole process of the
# release binary (wall time and peak memory, GNU time):
#   - a stringer with ORDERS orders (default 1,000,000) numbered in 2026, 10 s apart, all
#     paid but every 1,000th, which was picked up unpaid: OVERDUE invoices (1,000);
#   - `remind --due --dry-run`: every invoice judged, the due ones listed;
#   - one reminder's PDF with its payment part (`remind ORDER --dry-run -o FILE`, a customer
#     without e-mail) against its invoice's (`receipt ORDER -o FILE`), RUNS times each
#     (default 20), alternating, the median.
# Prints Markdown.
#
#   benches/remind.sh            (ORDERS=N RUNS=R)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${RECEIPTS_TEST_PG_URL:-}" ] || exec scripts/with-postgres "$0" "$@"
orders=${ORDERS:-1000000}
runs=${RUNS:-20}
cargo build --release --quiet
work=$(mktemp -d)
cp "$(realpath "${CARGO_TARGET_DIR:-target}")/release/receipts" "$work/receipts"
receipts="$work/receipts"
export TZ=UTC
name="remind_bench_$$"
cleanup() {
    psql -q "$RECEIPTS_TEST_PG_URL" -c "DROP DATABASE IF EXISTS $name WITH (FORCE)" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# Seconds and peak MiB of one command.
measure() {
    /usr/bin/time -f "%e %M" -o "$work/time" "$@" >"$work/stdout" 2>"$work/stderr" || { cat "$work/stderr" >&2; exit 1; }
    awk '{ printf "%.2f %.0f\n", $1, $2 / 1024 }' "$work/time"
}
# The median of a command's wall time over `runs` runs, in milliseconds; $1 names the
# file the times go to (alternating two commands means calling it once per run each).
once_ms() {
    local file=$1
    shift
    local start end
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1
    end=$(date +%s%N)
    echo $(( (end - start) / 1000 )) >>"$file"
}
median_ms() {
    sort -n "$1" | awk '{ a[NR] = $1 } END { printf "%.1f", (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) / 1000 }'
}
# Ana in Zurich, paid into a Swiss account (her invoices carry a QR-bill).
profile() {
    "$receipts" --database-url "$1" stringer add ana --timezone Europe/Zurich >/dev/null 2>&1
    "$receipts" --database-url "$1" stringer edit ana --iban "CH93 0076 2011 6238 5295 7" --street Bahnhofstrasse \
        --house-number 1 --postcode 8001 --town Zürich --country CH >/dev/null 2>&1
}
# SQL that numbers N orders of `ana` in 2026, 10 s apart, paid but every 1,000th (picked up
# unpaid). numbered PREFIX INSTANT SOURCE: SOURCE yields n, INSTANT the n-th's time.
numbered() {
    echo "$1 INSERT INTO orders (stringer_id, kind, customer, racket, string, tension, price_minor, currency,
    receipt_year, receipt_seq, ordered_at, strung_at, returned_at, paid_at, payment_method, issuer_id, created_at, updated_at)
SELECT s.id, 'client', 'Customer ' || n, 'Pure Aero', 'RPM Blast 1.25', '24/23', 3000 + n % 2000, 'CHF',
    2026, n, $2, $2, $2, CASE WHEN n % 1000 = 0 THEN NULL ELSE $2 END, CASE WHEN n % 1000 = 0 THEN NULL ELSE 'card' END,
    s.issuer_id, $2, $2
FROM stringers s, $3 WHERE s.handle = 'ana';
INSERT INTO receipt_counters (stringer_id, year, last_n) SELECT id, 2026, (SELECT max(receipt_seq) FROM orders) FROM stringers WHERE handle = 'ana';"
}

echo "### \`remind --due --dry-run\`: $orders orders, every 1,000th an overdue invoice"
echo
echo "| backend | seconds | peak (MiB) | reminders due (CSV rows) |"
echo "|---|---:|---:|---:|"
db="$work/bench.db"
profile "$db"
sqlite3 "$db" "$(numbered "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < $orders)" \
    "strftime('%Y-%m-%d %H:%M:%f', '2026-01-01', '+' || (n * 10) || ' seconds')" c) ANALYZE;"
read -r due_s due_mb < <(measure "$receipts" --database-url "$db" remind --due --dry-run --format csv)
echo "| SQLite | $due_s | $due_mb | $(( $(wc -l < "$work/stdout") - 1 )) |"
psql -q "$RECEIPTS_TEST_PG_URL" -c "CREATE DATABASE $name"
url="${RECEIPTS_TEST_PG_URL%/*}/$name"
"$receipts" --database-url "$url" db migrate >/dev/null 2>&1
profile "$url"
psql -q "$url" -c "$(numbered "" "TIMESTAMP '2026-01-01' + n * INTERVAL '10 seconds'" "generate_series(1, $orders) AS n")"
psql -q "$url" -c "ANALYZE"  # as autovacuum would after a million rows
read -r due_s due_mb < <(measure "$receipts" --database-url "$url" remind --due --dry-run --format csv)
echo "| PostgreSQL | $due_s | $due_mb | $(( $(wc -l < "$work/stdout") - 1 )) |"

echo
echo "### One document with its QR-bill: the invoice, and its reminder (median of $runs, ms)"
echo
echo "| backend | \`receipt ORDER -o FILE\` | \`remind ORDER --dry-run -o FILE\` |"
echo "|---|---:|---:|"
for target in "$db" "$url"; do
    rm -f "$work/invoice.ms" "$work/reminder.ms"
    for _ in $(seq "$runs"); do
        rm -f "$work/invoice.pdf" "$work/reminder.pdf"
        once_ms "$work/invoice.ms" "$receipts" --database-url "$target" receipt 1000 -o "$work/invoice.pdf"
        once_ms "$work/reminder.ms" "$receipts" --database-url "$target" remind 1000 --dry-run -o "$work/reminder.pdf"
    done
    [ -s "$work/invoice.pdf" ] && [ -s "$work/reminder.pdf" ] || { echo "a PDF was not written" >&2; exit 1; }
    backend=$([ "$target" = "$db" ] && echo SQLite || echo PostgreSQL)
    echo "| $backend | $(median_ms "$work/invoice.ms") | $(median_ms "$work/reminder.ms") |"
done
