#!/usr/bin/env bash
# The bank-file benchmark: `receipts payments import` of a camt.053 statement of 100,000
# transactions (benches/gen-camt.py: 97,000 credits naming 100,000 unpaid invoices made with
# migrate-v1, 2,000 of them partial, 2,000 credits without a reference, 1,000 debits), on
# SQLite and on PostgreSQL: the dry run, the import, and the same file again; wall time and
# peak RSS (GNU time), the median run of three. Prints Markdown.
#
#   benches/payments.sh       (ROWS=N for another size; 100000)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${RECEIPTS_TEST_PG_URL:-}" ] || exec scripts/with-postgres "$0" "$@"
rows=${ROWS:-100000}
cargo build --release --quiet
receipts=$(realpath "${CARGO_TARGET_DIR:-target}")/release/receipts
work=$(mktemp -d)
pg_db="payments_bench_$$"
trap 'rm -rf "$work"; psql -q "$RECEIPTS_TEST_PG_URL" -c "DROP DATABASE IF EXISTS $pg_db" 2>/dev/null' EXIT
export TZ=Europe/Zurich

{
    echo "v1_id,kind,stringer,customer,price,strung_at"
    seq 1 "$rows" | awk '{ print $1 ",client,iris,Customer " $1 ",35.50,2025-03-01 10:00" }'
} >"$work/v1.csv"
python3 benches/gen-camt.py "$rows" "$work/statement.xml" 1
mb=$(du -m "$work/statement.xml" | cut -f1)

# A database with iris's 100,000 unpaid invoices.
fresh() {
    case "$1" in
        SQLite) rm -f "$work/receipts.db"* ;;
        PostgreSQL)
            psql -q "$RECEIPTS_TEST_PG_URL" -c "DROP DATABASE IF EXISTS $pg_db" -c "CREATE DATABASE $pg_db"
            "$receipts" db migrate >/dev/null 2>&1 ;;
    esac
    "$receipts" stringer add iris --name "Iris Saiten" --timezone Europe/Zurich >/dev/null 2>&1
    "$receipts" stringer edit iris --iban "CH44 3199 9123 0008 8901 2" --postcode 8002 --town Zürich \
        --country CH >/dev/null 2>&1
    "$receipts" migrate-v1 "$work/v1.csv" >/dev/null 2>&1
}

# "seconds peak-MiB" of one run of the import with the given options.
once() {
    local start end
    start=$(date +%s%N)
    /usr/bin/time -f "%M" -o "$work/time" "$receipts" payments import "$work/statement.xml" "$@" \
        --format csv >"$work/out.csv" 2>"$work/err" || true
    end=$(date +%s%N)
    echo "$(( (end - start) / 1000 )) $(tail -1 "$work/time")"
}

median() { sort -n | sed -n 2p | awk '{ printf "%.2f | %.0f", $1 / 1e6, $2 / 1024 }'; }

echo "A statement of $rows transactions ($mb MB of XML)."
echo
echo "| backend | command | seconds | peak RSS (MiB) |"
echo "|---|---|---:|---:|"
for backend in SQLite PostgreSQL; do
    if [ "$backend" = SQLite ]; then url="$work/receipts.db"; else url="${RECEIPTS_TEST_PG_URL%/*}/$pg_db"; fi
    export DATABASE_URL="$url"
    fresh "$backend"
    echo "| $backend | \`payments import --dry-run\` | $(for _ in 1 2 3; do once --dry-run; done | median) |"
    import=$(for _ in 1 2 3; do fresh "$backend"; once; done | median)
    applied=$(grep -c ',applied,' "$work/out.csv")
    echo "| $backend | \`payments import\` ($applied applied) | $import |"
    echo "| $backend | \`payments import\` again (nothing new) | $(for _ in 1 2 3; do once; done | median) |"
    echo >&2 "$backend: $(head -1 "$work/err")"
done
