#!/usr/bin/env bash
# The chained journal at scale (SPEC 23): a stringer with EVENTS journal events (default
# 1,000,000: a mint each), chained on PostgreSQL by its trigger as they are inserted and on
# SQLite by the program after the chain's migration; then `receipts audit --verify`, time
# and peak memory, on both backends. Prints Markdown.
#
#   benches/journal.sh            (EVENTS=N; 1000000)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${RECEIPTS_TEST_PG_URL:-}" ] || exec scripts/with-postgres "$0" "$@"
events=${EVENTS:-1000000}
cargo build --release --quiet
work=$(mktemp -d)
cp "$(realpath "${CARGO_TARGET_DIR:-target}")/release/receipts" "$work/receipts"
receipts="$work/receipts"
name="journal_bench_$$"
cleanup() {
    psql -q "$RECEIPTS_TEST_PG_URL" -c "DROP DATABASE IF EXISTS $name WITH (FORCE)" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# Seconds and peak MiB of one command.
measure() {
    /usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null 2>"$work/stderr" || { cat "$work/stderr" >&2; exit 1; }
    awk '{ printf "%.1f %.0f\n", $1, $2 / 1024 }' "$work/time"
}
# The events, as SQL the backend runs: mint events of one stringer, a second apart.
# events_sql PREFIX INSTANT SOURCE: SOURCE yields the numbers n, INSTANT the n-th's time.
events_sql() {
    echo "$1 INSERT INTO receipt_events (kind, stringer_id, year, first_seq, last_seq, counter_old, counter_new, created_at)
SELECT 'mint', s.id, 2026, n, n, n - 1, n, $2
FROM stringers s, $3 WHERE s.handle = 'ana';"
}

echo "### \`audit --verify\` of one stringer's journal of $events events"
echo
echo "| backend | chaining the events (s) | \`audit --verify\` (s) | its peak memory (MiB) |"
echo "|---|---:|---:|---:|"

db="$work/bench.db"
"$receipts" --database-url "$db" stringer add ana --timezone UTC >/dev/null 2>&1
# Written as a database from before the chain holds them: unchained, then chained by the
# program as it is after the chain's migration (the schema's mark cleared, so it migrates).
sqlite3 "$db" "$(events_sql "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < $events)" \
    "strftime('%Y-%m-%d %H:%M:%f', '2026-01-01', '+' || n || ' seconds')" c) PRAGMA user_version = 0;"
read -r chain_s _ < <(measure "$receipts" --database-url "$db" stringer add bob --timezone UTC)
read -r verify_s verify_mb < <(measure "$receipts" --database-url "$db" audit --verify)
echo "| SQLite | $chain_s | $verify_s | $verify_mb |"

psql -q "$RECEIPTS_TEST_PG_URL" -c "CREATE DATABASE $name"
url="${RECEIPTS_TEST_PG_URL%/*}/$name"
"$receipts" --database-url "$url" db migrate >/dev/null 2>&1
"$receipts" --database-url "$url" stringer add ana --timezone UTC >/dev/null 2>&1
read -r chain_s _ < <(measure psql -q "$url" -c "$(events_sql "" "TIMESTAMP '2026-01-01' + n * INTERVAL '1 second'" "generate_series(1, $events) AS n")")
read -r verify_s verify_mb < <(measure "$receipts" --database-url "$url" audit --verify)
echo "| PostgreSQL | $chain_s | $verify_s | $verify_mb |"
