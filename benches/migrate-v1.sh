#!/usr/bin/env bash
# Benchmark of `receipts migrate-v1` against the best each database does by itself with
# the same file (benches/baseline-*.sql), 100k and 1M rows, on a throwaway PostgreSQL
# (started by scripts/with-postgres) and SQLite files. Prints a Markdown table.
#
#   benches/migrate-v1.sh
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${RECEIPTS_TEST_PG_URL:-}" ] || exec scripts/with-postgres "$0" "$@"

cargo build --release --quiet
receipts=$PWD/target/release/receipts
work=$(mktemp -d /tmp/receipts-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

# Runs a command; prints "seconds peak-RSS-MiB" (GNU time).
measure() {
    /usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null 2>"$work/stderr" \
        || { cat "$work/stderr" >&2; exit 1; }
    awk '{ printf "%.2f %.0f\n", $1, $2 / 1024 }' "$work/time"
}

# An order-independent digest of which V1 row got which number: both sides must agree.
digest_sql="SELECT count(*) || ' ' || count(receipt_number) || ' ' || sum(v1_id * receipt_seq + CASE kind WHEN 'self' THEN receipt_seq ELSE 0 END) FROM orders"

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

new_pg() {
    psql -q "$RECEIPTS_TEST_PG_URL" -c "CREATE DATABASE $1"
    local url="${RECEIPTS_TEST_PG_URL%/*}/$1"
    "$receipts" --database-url "$url" db migrate 2>/dev/null
    echo "$url"
}

new_sqlite() {
    "$receipts" --database-url "$1" stringer list >/dev/null 2>&1 # creates and migrates it
}

echo "| backend | rows | migrate-v1 (s) | of which reading and checking, --dry-run (s) | baseline (s) | ratio | migrate-v1 peak RSS (MiB) | baseline peak RSS (MiB) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for rows in 100000 1000000; do
    file="$work/v1-$rows.csv"
    python3 benches/gen-v1.py "$rows" "$file"

    ours=$(new_pg "ours_$rows")
    read -r dry_s _ < <(measure "$receipts" --database-url "$ours" migrate-v1 "$file" --timezone UTC --dry-run)
    read -r ours_s ours_mb < <(measure "$receipts" --database-url "$ours" migrate-v1 "$file" --timezone UTC)
    base=$(new_pg "base_$rows")
    sed "s|@FILE@|$file|" benches/baseline-postgres.sql >"$work/baseline.sql"
    read -r base_s base_mb < <(measure psql -q "$base" -f "$work/baseline.sql")
    [ "$(psql -At "$ours" -c "$digest_sql")" = "$(psql -At "$base" -c "$digest_sql")" ] \
        || { echo "PostgreSQL: migrate-v1 and the baseline numbered differently" >&2; exit 1; }
    echo "| PostgreSQL | $rows | $ours_s | $dry_s | $base_s | $(ratio "$ours_s" "$base_s") | $ours_mb | $base_mb |"

    new_sqlite "$work/ours-$rows.db"
    read -r dry_s _ < <(measure "$receipts" --database-url "$work/ours-$rows.db" migrate-v1 "$file" --timezone UTC --dry-run)
    read -r ours_s ours_mb < <(measure "$receipts" --database-url "$work/ours-$rows.db" migrate-v1 "$file" --timezone UTC)
    new_sqlite "$work/base-$rows.db"
    sed "s|@FILE@|$file|" benches/baseline-sqlite.sql >"$work/baseline.sql"
    read -r base_s base_mb < <(measure sh -c "sqlite3 '$work/base-$rows.db' < '$work/baseline.sql'")
    [ "$(sqlite3 "$work/ours-$rows.db" "$digest_sql")" = "$(sqlite3 "$work/base-$rows.db" "$digest_sql")" ] \
        || { echo "SQLite: migrate-v1 and the baseline numbered differently" >&2; exit 1; }
    echo "| SQLite | $rows | $ours_s | $dry_s | $base_s | $(ratio "$ours_s" "$base_s") | $ours_mb | $base_mb |"
done
