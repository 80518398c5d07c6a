#!/usr/bin/env bash
# The journal that proves itself at scale (SPEC 23), on both backends, each command a whole
# process of the release binary (wall time and peak memory, GNU time):
#   - a stringer with ORDERS orders (default 1,000,000) numbered in 2026, 30 s apart, a mint
#     event each: on SQLite written as a database from before the chain holds them (the
#     program chains and seals them after its migration), on PostgreSQL inserted after the
#     migrations (its trigger chains each and hashes its document);
#   - `audit --verify` of it all: every event's hash and every document's content;
#   - `close` of its first day (2,880 mints: a busy day's upper bound), after `key init`;
#   - `export --auditor` of a year of EXPORTED receipts (default 100,000) in a database of
#     their own.
# Prints Markdown.
#
#   benches/journal.sh            (ORDERS=N EXPORTED=M)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${RECEIPTS_TEST_PG_URL:-}" ] || exec scripts/with-postgres "$0" "$@"
orders=${ORDERS:-1000000}
exported=${EXPORTED:-100000}
cargo build --release --quiet
work=$(mktemp -d)
cp "$(realpath "${CARGO_TARGET_DIR:-target}")/release/receipts" "$work/receipts"
receipts="$work/receipts"
export TZ=UTC
names=()
cleanup() {
    for name in "${names[@]}"; do
        psql -q "$RECEIPTS_TEST_PG_URL" -c "DROP DATABASE IF EXISTS $name WITH (FORCE)" 2>/dev/null || true
    done
    rm -rf "$work"
}
trap cleanup EXIT

# Seconds and peak MiB of one command.
measure() {
    /usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null 2>"$work/stderr" || { cat "$work/stderr" >&2; exit 1; }
    awk '{ printf "%.2f %.0f\n", $1, $2 / 1024 }' "$work/time"
}
# SQL that numbers N orders of stringer `ana` in 2026, 30 s apart, each with its mint event.
# numbered PREFIX INSTANT SOURCE: SOURCE yields n, INSTANT the n-th's time.
numbered() {
    echo "$1 INSERT INTO orders (stringer_id, kind, customer, racket, string, tension, price_minor, currency,
    receipt_year, receipt_seq, ordered_at, strung_at, created_at, updated_at)
SELECT s.id, 'client', 'Customer ' || n, 'Pure Aero', 'RPM Blast 1.25', '24/23', 3000 + n % 2000, 'CHF',
    2026, n, $2, $2, $2, $2
FROM stringers s, $3 WHERE s.handle = 'ana';
$1 INSERT INTO receipt_events (kind, stringer_id, year, first_seq, last_seq, order_id, counter_old, counter_new, created_at)
SELECT 'mint', s.id, 2026, n, n, n, n - 1, n, $2
FROM stringers s, $3 WHERE s.handle = 'ana';
INSERT INTO receipt_counters (stringer_id, year, last_n) SELECT id, 2026, (SELECT max(receipt_seq) FROM orders) FROM stringers WHERE handle = 'ana';"
}
sqlite_numbered() {
    numbered "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < $1)" \
        "strftime('%Y-%m-%d %H:%M:%f', '2026-01-01', '+' || (n * 30) || ' seconds')" c
}
pg_numbered() {
    numbered "" "TIMESTAMP '2026-01-01' + n * INTERVAL '30 seconds'" "generate_series(1, $1) AS n"
}
# A new database on the server; its URL in `url`.
pg_database() {
    local name="journal_bench_$1_$$"
    names+=("$name")
    psql -q "$RECEIPTS_TEST_PG_URL" -c "CREATE DATABASE $name"
    url="${RECEIPTS_TEST_PG_URL%/*}/$name"
}

echo "### The journal of one stringer: $orders numbered orders with their mint events"
echo
echo "| backend | chaining them (s) | \`audit --verify\` (s) | its peak (MiB) | \`close\` of a day of 2,880 mints (s) | its peak (MiB) |"
echo "|---|---:|---:|---:|---:|---:|"

db="$work/bench.db"
"$receipts" --database-url "$db" stringer add ana --timezone UTC >/dev/null 2>&1
# Written as a database from before the chain holds them, then chained and sealed by the
# program as it is after the chain's migration (the schema's mark cleared, so it migrates).
sqlite3 "$db" "$(sqlite_numbered "$orders") PRAGMA user_version = 0;"
read -r chain_s _ < <(measure "$receipts" --database-url "$db" stringer add bob --timezone UTC)
read -r verify_s verify_mb < <(measure "$receipts" --database-url "$db" audit --verify)
"$receipts" --database-url "$db" key init --stringer ana --key-file "$work/sqlite.key" >/dev/null 2>&1
read -r close_s close_mb < <(measure "$receipts" --database-url "$db" close --stringer ana --date 2026-01-01 --key-file "$work/sqlite.key")
echo "| SQLite | $chain_s | $verify_s | $verify_mb | $close_s | $close_mb |"

pg_database verify
"$receipts" --database-url "$url" db migrate >/dev/null 2>&1
"$receipts" --database-url "$url" stringer add ana --timezone UTC >/dev/null 2>&1
read -r chain_s _ < <(measure psql -q "$url" -c "$(pg_numbered "$orders")")
psql -q "$url" -c "ANALYZE"  # as autovacuum would after a million rows
read -r verify_s verify_mb < <(measure "$receipts" --database-url "$url" audit --verify)
"$receipts" --database-url "$url" key init --stringer ana --key-file "$work/pg.key" >/dev/null 2>&1
read -r close_s close_mb < <(measure "$receipts" --database-url "$url" close --stringer ana --date 2026-01-01 --key-file "$work/pg.key")
echo "| PostgreSQL | $chain_s | $verify_s | $verify_mb | $close_s | $close_mb |"

echo
echo "### \`export --auditor\` of a year of $exported receipts"
echo
echo "| backend | seconds | peak (MiB) | documents.csv rows |"
echo "|---|---:|---:|---:|"
db="$work/export.db"
"$receipts" --database-url "$db" stringer add ana --timezone UTC >/dev/null 2>&1
sqlite3 "$db" "$(sqlite_numbered "$exported") PRAGMA user_version = 0;"
"$receipts" --database-url "$db" stringer add bob --timezone UTC >/dev/null 2>&1
read -r export_s export_mb < <(measure "$receipts" --database-url "$db" export --auditor --year 2026 --stringer ana --out-dir "$work/sqlite-export")
echo "| SQLite | $export_s | $export_mb | $(wc -l < "$work/sqlite-export/documents.csv") |"
pg_database export
"$receipts" --database-url "$url" db migrate >/dev/null 2>&1
"$receipts" --database-url "$url" stringer add ana --timezone UTC >/dev/null 2>&1
psql -q "$url" -c "$(pg_numbered "$exported")"
psql -q "$url" -c "ANALYZE"
read -r export_s export_mb < <(measure "$receipts" --database-url "$url" export --auditor --year 2026 --stringer ana --out-dir "$work/pg-export")
echo "| PostgreSQL | $export_s | $export_mb | $(wc -l < "$work/pg-export/documents.csv") |"
