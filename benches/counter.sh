#!/usr/bin/env bash
# Speed at the counter: `receipts` run once per action, as whole processes, side by side
# with the sqlite3 shell doing the same work, alternating run by run in one run of this
# script; then the statements one `receipts mint` process sends to PostgreSQL
# (pg_stat_statements). Prints Markdown. Each side gets its database as an argument, as
# the shell does (`env DATABASE_URL=...` would add a process of its own to every run).
#
#   benches/counter.sh             (RUNS=N runs per command; 200)
#   BASELINE=path/to/receipts benches/counter.sh
#                                  also measures an earlier build, in the same run, on
#                                  databases of its own
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${RECEIPTS_TEST_PG_URL:-}" ] || exec scripts/with-postgres "$0" "$@"
runs=${RUNS:-200}
cargo build --release --quiet
current=$(realpath "${CARGO_TARGET_DIR:-target}")/release/receipts
work=$(mktemp -d)
pg_dbs=()
cleanup() {
    for db in "${pg_dbs[@]}"; do psql -q "$RECEIPTS_TEST_PG_URL" -c "DROP DATABASE IF EXISTS $db" 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT
export TZ=Europe/Zurich
binaries=("this build:$current")
[ -z "${BASELINE:-}" ] || binaries=("earlier build:$(realpath "$BASELINE")" "${binaries[@]}")

# Two stringers with $runs unnumbered orders each: ana's are the program's, ben's the shell's.
{
    echo "v1_id,kind,stringer,customer,price"
    for s in ana ben; do seq 1 "$runs" | awk -v s="$s" '{ print $1 ",client," s ",Customer " $1 ",35.50" }'; done
} >"$work/v1.csv"
# prepare BINARY DATABASE_URL: the orders loaded by that binary; prints ana's order ids, then ben's.
prepare() {
    DATABASE_URL="$2" "$1" db migrate >/dev/null 2>&1
    DATABASE_URL="$2" "$1" migrate-v1 "$work/v1.csv" >/dev/null 2>&1
    for s in ana ben; do
        DATABASE_URL="$2" "$1" order list --stringer "$s" --format csv | tail -n +2 | cut -d, -f1 | paste -sd' '
    done
}

# Microseconds one run of the command takes.
once() {
    local start
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
    echo $(( ($(date +%s%N) - start) / 1000 ))
}
median() { printf '%s\n' "$@" | sort -n | awk '{ t[NR] = $1 } END { printf "%.2f", t[int((NR + 1) / 2)] / 1000 }'; }
row() {
    awk -v l="$1" -v a="$2" -v b="$3" -v c="$4" -v t="$5" \
        'BEGIN { printf "| %s | %s | %.2f | %.2f | %.2f | %s |\n", l, c, a, b, a / b, t }'
}

now_sql() { date -u '+%Y-%m-%d %H:%M:%S'; }
# What `receipts mint` does, as the shell's SQL: the counter upsert and the order update.
mint_sql() {
    local at year
    at=$(now_sql)
    year=${at:0:4}
    # (Not `.timeout`: an argument that starts with a dot command is that command alone.)
    echo "PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL;
BEGIN IMMEDIATE;
INSERT INTO receipt_counters (stringer_id, year, last_n, created_at, updated_at)
    VALUES ($2, $year, 1, '$at', '$at')
    ON CONFLICT (stringer_id, year) DO UPDATE SET last_n = last_n + 1, updated_at = excluded.updated_at
    RETURNING last_n;
UPDATE orders SET strung_at = '$at', receipt_year = $year,
    receipt_seq = (SELECT last_n FROM receipt_counters WHERE stringer_id = $2 AND year = $year),
    updated_at = '$at'
WHERE id = $1 AND receipt_seq IS NULL;
COMMIT;"
}

echo "### Whole processes against the sqlite3 shell ($runs runs each, alternating; median ms)"
echo
echo "| build | command | receipts | sqlite3 | ratio | target |"
echo "|---|---|---:|---:|---:|---:|"
for entry in "${binaries[@]}"; do
    label=${entry%%:*}
    receipts=${entry#*:}
    db="$work/${label// /-}.db"
    mapfile -t ids < <(prepare "$receipts" "$db")
    read -ra ours <<<"${ids[0]}"
    read -ra theirs <<<"${ids[1]}"
    ben=$(sqlite3 "$db" "SELECT id FROM stringers WHERE handle = 'ben'")

    a=() b=()
    for _ in $(seq "$runs"); do
        a+=("$(once "$receipts" --version)")
        b+=("$(once sqlite3 --version)")
    done
    row "$label" "$(median "${a[@]}")" "$(median "${b[@]}")" '`--version`' "1.2"

    a=() b=()
    for i in $(seq 0 $(( runs - 1 ))); do
        a+=("$(once "$receipts" --database-url "$db" mint --order "${ours[$i]}")")
        b+=("$(once sqlite3 "$db" "$(mint_sql "${theirs[$i]}" "$ben")")")
    done
    row "$label" "$(median "${a[@]}")" "$(median "${b[@]}")" \
        '`mint --order N` / the same upsert and update' "1.2"

    a=() b=()
    for i in $(seq 0 $(( runs - 1 ))); do
        a+=("$(once "$receipts" --database-url "$db" receipt "${ours[$i]}")")
        b+=("$(once sqlite3 "$db" "SELECT * FROM orders WHERE id = ${ours[$i]}")")
    done
    row "$label" "$(median "${a[@]}")" "$(median "${b[@]}")" \
        '`receipt N` (text) / reading the same row' "2"
done

echo
echo "### Where a process start goes (\`receipts --version\`)"
echo
echo "| build | size (MB) | dynamic relocations | minor page faults | |"
echo "|---|---:|---:|---:|---|"
for entry in "${binaries[@]}" "sqlite3:$(command -v sqlite3)"; do
    label=${entry%%:*}
    binary=${entry#*:}
    relocations=$(readelf -r -W "$binary" | grep -c '^[0-9a-f]\{8,\}' || true)
    /usr/bin/time -f %R -o "$work/faults" "$binary" --version >/dev/null
    size=$(stat -c %s "$binary" | awk '{ printf "%.1f", $1 / 1e6 }')
    echo "| $label | $size | $relocations | $(tail -1 "$work/faults") | $(readelf -h "$binary" | awk -F: '/Type:/ { gsub(/^ +/, "", $2); print $2 }') |"
done

echo
echo "### PostgreSQL: one \`receipts mint --order N\` process ($runs runs; statements from pg_stat_statements)"
echo
echo "The fresh mint at the counter, then the same command again for each order (the way out"
echo "of doubt: the number read back, and on this build confirmed on the standby first)."
echo
echo "| build | mint | statements per process | median ms |"
echo "|---|---|---:|---:|"
psql -q "$RECEIPTS_TEST_PG_URL" -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" >/dev/null
for entry in "${binaries[@]}"; do
    label=${entry%%:*}
    receipts=${entry#*:}
    name="counter_bench_$$_${#pg_dbs[@]}"
    pg_dbs+=("$name")
    psql -q "$RECEIPTS_TEST_PG_URL" -c "CREATE DATABASE $name"
    url="${RECEIPTS_TEST_PG_URL%/*}/$name"
    mapfile -t ids < <(prepare "$receipts" "$url")
    read -ra ours <<<"${ids[0]}"
    statements="SELECT coalesce(sum(calls), 0) FROM pg_stat_statements
        WHERE dbid = (SELECT oid FROM pg_database WHERE datname = '$name') AND query NOT LIKE '%pg_stat_statements%'"
    for what in fresh again; do
        times=()
        for i in $(seq 0 $(( runs - 1 ))); do
            [ "$i" -ne 1 ] || psql -qAt "$RECEIPTS_TEST_PG_URL" -c "SELECT pg_stat_statements_reset()" >/dev/null
            times+=("$(once "$receipts" --database-url "$url" mint --order "${ours[$i]}")")
        done
        calls=$(psql -qAt "$RECEIPTS_TEST_PG_URL" -c "$statements")
        echo "| $label | $what | $(awk -v c="$calls" -v n=$(( runs - 1 )) 'BEGIN { printf "%.2f", c / n }') | $(median "${times[@]}") |"
    done
done
