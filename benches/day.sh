#!/usr/bin/env bash
# The day at the counter at scale (issue: the day at the counter), release build, a
# throwaway PostgreSQL (scripts/with-postgres) and an SQLite file. Prints Markdown.
#
#   benches/day.sh               (RUNS=N runs per timed command; 20)
#
# A stringer with 1,000,000 orders, as a shop has after years: all strung, numbered and
# picked up but 200 open ones (promised over the next days) and 100 strung in the last
# weeks and waiting; written straight into the tables, as the program's own would be.
# Timed as whole processes (median of RUNS): `queue`, `label ORDER` and `label --queue`
# (one page per open order).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${RECEIPTS_TEST_PG_URL:-}" ] || exec scripts/with-postgres "$0" "$@"
runs=${RUNS:-20}
# RECEIPTS_BIN: a binary built before (of another commit, say) instead of this tree's.
if [ -z "${RECEIPTS_BIN:-}" ]; then
    cargo build --release --quiet
fi
receipts=${RECEIPTS_BIN:-$PWD/target/release/receipts}
work=$(mktemp -d /tmp/receipts-day.XXXXXX)
pg_db="day_bench_$$"
cleanup() {
    psql -q "$RECEIPTS_TEST_PG_URL" -c "DROP DATABASE IF EXISTS $pg_db" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

# Milliseconds of one whole process, median of $runs.
median_ms() {
    local times=() start
    for _ in $(seq "$runs"); do
        start=$(date +%s%N)
        "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
        times+=($(( ($(date +%s%N) - start) / 1000 )))
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{ t[NR] = $1 } END { printf "%.1f", t[int((NR + 1) / 2)] / 1000 }'
}

# The orders of stringer 1, by SQL the two databases share but for the row source ($1:
# generate_series on PostgreSQL, a recursive count on SQLite) and the type of a time
# literal ($T: ::timestamp on PostgreSQL, nothing on SQLite); $2 to $4 are times.
orders_sql() {
    cat <<SQL
INSERT INTO orders (stringer_id, kind, customer, racket, string, tension, price_minor, currency,
                    ordered_at, due_at, strung_at, returned_at, receipt_year, receipt_seq, created_at, updated_at)
SELECT 1, 'client', 'Customer ' || (i % 20000), 'Pure Aero', 'RPM Blast 1.25', '24/23 kg', 3550, 'CHF',
       '2024-01-01 10:00:00', '2024-01-02 10:00:00',
       CASE WHEN i <= 999700 THEN '2024-01-01 12:00:00'\$T WHEN i <= 999800 THEN \$2\$T END,
       CASE WHEN i <= 999700 THEN '2024-01-03 12:00:00'\$T END,
       CASE WHEN i <= 999800 THEN 2024 END, CASE WHEN i <= 999800 THEN i END,
       '2024-01-01 10:00:00', '2024-01-01 10:00:00'
FROM \$1;
UPDATE orders SET ordered_at = \$3, due_at = \$4 WHERE strung_at IS NULL;
SQL
}
now_utc() { date -u -d "$1" '+%Y-%m-%d %H:%M:%S'; }
waiting_at="'$(now_utc '-10 days')'"
open_at="'$(now_utc '-1 hour')'"
due_at="'$(now_utc '+2 days')'"

sqlite_db="$work/day.db"
"$receipts" --database-url "$sqlite_db" stringer add stefan --timezone Europe/Zurich >/dev/null 2>&1
orders_sql | sed -e "s/\\\$1/(WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1000000) SELECT i FROM c)/" \
    -e "s/\\\$2/$waiting_at/; s/\\\$3/$open_at/; s/\\\$4/$due_at/; s/\\\$T//g" | sqlite3 "$sqlite_db"
sqlite3 "$sqlite_db" "INSERT INTO receipt_counters (stringer_id, year, last_n, created_at, updated_at) VALUES (1, 2024, 999800, '2024-01-01', '2024-01-01')"
sqlite3 "$sqlite_db" "ANALYZE"

psql -q "$RECEIPTS_TEST_PG_URL" -c "CREATE DATABASE $pg_db"
pg_url="${RECEIPTS_TEST_PG_URL%/*}/$pg_db"
"$receipts" --database-url "$pg_url" db migrate >/dev/null 2>&1
"$receipts" --database-url "$pg_url" stringer add stefan --timezone Europe/Zurich >/dev/null 2>&1
orders_sql | sed -e "s/\\\$1/generate_series(1, 1000000) AS i/" \
    -e "s/\\\$2/$waiting_at/; s/\\\$3/$open_at/; s/\\\$4/$due_at/; s/\\\$T/::timestamp/g" | psql -q "$pg_url" >/dev/null
psql -q "$pg_url" -c "INSERT INTO receipt_counters (stringer_id, year, last_n, created_at, updated_at) VALUES (1, 2024, 999800, '2024-01-01', '2024-01-01')" >/dev/null
psql -q "$pg_url" -c "VACUUM ANALYZE orders" >/dev/null

echo "### The day's work on 1,000,000 orders (200 open, 100 waiting): whole processes, median of $runs runs, ms"
echo
echo "| backend | \`queue\` | \`queue --format json\` | \`label ORDER\` | \`label --queue\` (200 pages) |"
echo "|---|---:|---:|---:|---:|"
for backend in SQLite PostgreSQL; do
    url=$sqlite_db
    [ "$backend" = SQLite ] || url=$pg_url
    open=$("$receipts" --database-url "$url" queue --format csv | grep -c '^open,' || true)
    [ "$open" = 200 ] || { echo "expected 200 open orders in the queue, found $open" >&2; exit 1; }
    order=$("$receipts" --database-url "$url" queue --format csv | awk -F, '$1 == "open" { print $3; exit }')
    queue=$(median_ms "$receipts" --database-url "$url" queue)
    json=$(median_ms "$receipts" --database-url "$url" queue --format json)
    label=$(median_ms "$receipts" --database-url "$url" label "$order" -o -)
    labels=$(median_ms "$receipts" --database-url "$url" label --queue -o -)
    echo "| $backend | $queue | $json | $label | $labels |"
done
