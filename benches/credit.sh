#!/usr/bin/env bash
# What a credit note costs against a mint (SPEC 21, issue: "a credit costs no more than a
# mint"): whole `receipts credit ORDER --reason ...` processes alternating with
# `receipts mint --order N` processes, run by run, on the same database (SQLite, and
# PostgreSQL through PgBouncer in transaction pooling); then the statements one process of
# each sends to PostgreSQL (pg_stat_statements). Prints Markdown.
#
#   benches/credit.sh             (RUNS=N runs per command; 200)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${RECEIPTS_TEST_PG_URL:-}" ] || exec scripts/with-postgres "$0" "$@"
runs=${RUNS:-200}
cargo build --release --quiet
# A copy: a binary run straight from the linker's output measures slower the first times.
work=$(mktemp -d)
cp "$(realpath "${CARGO_TARGET_DIR:-target}")/release/receipts" "$work/receipts"
receipts="$work/receipts"
name="credit_bench_$$"
cleanup() {
    psql -q "$RECEIPTS_TEST_PG_URL" -c "DROP DATABASE IF EXISTS $name WITH (FORCE)" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
export TZ=Europe/Zurich

# One stringer with 2 x $runs orders: the first half numbered (they are credited), the
# second half not (they are minted).
{
    echo "v1_id,kind,stringer,customer,price"
    seq 1 $(( 2 * runs )) | awk '{ print $1 ",client,ana,Customer " $1 ",35.50" }'
} >"$work/v1.csv"
prepare() {
    "$receipts" --database-url "$1" db migrate >/dev/null 2>&1 || true
    "$receipts" --database-url "$1" migrate-v1 "$work/v1.csv" >/dev/null 2>&1
    mapfile -t ids < <("$receipts" --database-url "$1" order list --format csv | tail -n +2 | cut -d, -f1)
    credited=("${ids[@]:0:$runs}")
    minted=("${ids[@]:$runs:$runs}")
    for id in "${credited[@]}"; do
        "$receipts" --database-url "$1" mint --order "$id" >/dev/null 2>&1
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

echo "### \`credit\` against \`mint\`: whole processes ($runs runs each, alternating; median ms)"
echo
echo "| database | \`mint --order N\` | \`credit N --reason ...\` | ratio | target |"
echo "|---|---:|---:|---:|---:|"
psql -q "$RECEIPTS_TEST_PG_URL" -c "CREATE DATABASE $name"
bouncer="${RECEIPTS_TEST_PGBOUNCER_URL%/*}/$name"
for database in sqlite "postgres through PgBouncer"; do
    case $database in
        sqlite) url="$work/bench.db" ;;
        *) url="$bouncer" ;;
    esac
    prepare "$url"
    a=() b=()
    for i in $(seq 0 $(( runs - 1 ))); do
        a+=("$(once "$receipts" --database-url "$url" mint --order "${minted[$i]}")")
        b+=("$(once "$receipts" --database-url "$url" credit "${credited[$i]}" --reason "order cancelled")")
    done
    awk -v d="$database" -v a="$(median "${a[@]}")" -v b="$(median "${b[@]}")" \
        'BEGIN { printf "| %s | %.2f | %.2f | %.2f | 1.2 |\n", d, a, b, b / a }'
done

echo
echo "### Statements one process sends to PostgreSQL through PgBouncer (pg_stat_statements, $runs processes each)"
echo
echo "| command | statements per process |"
echo "|---|---:|"
psql -q "$RECEIPTS_TEST_PG_URL" -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" >/dev/null
psql -q "$RECEIPTS_TEST_PG_URL" -c "DROP DATABASE $name WITH (FORCE)" -c "CREATE DATABASE $name" >/dev/null
prepare "$bouncer"
statements="SELECT coalesce(sum(calls), 0) FROM pg_stat_statements
    WHERE dbid = (SELECT oid FROM pg_database WHERE datname = '$name') AND query NOT LIKE '%pg_stat_statements%'"
count() {
    local label=$1
    shift
    psql -qAt "$RECEIPTS_TEST_PG_URL" -c "SELECT pg_stat_statements_reset()" >/dev/null
    "$@"
    local calls
    calls=$(psql -qAt "$RECEIPTS_TEST_PG_URL" -c "$statements")
    awk -v l="$label" -v c="$calls" -v n="$runs" 'BEGIN { printf "| %s | %.2f |\n", l, c / n }'
}
mints() { for id in "${minted[@]}"; do "$receipts" --database-url "$bouncer" mint --order "$id" >/dev/null 2>&1; done; }
credits() { for id in "${credited[@]}"; do "$receipts" --database-url "$bouncer" credit "$id" --reason x >/dev/null 2>&1; done; }
count '`mint --order N`' mints
count '`credit N --reason ...`' credits
