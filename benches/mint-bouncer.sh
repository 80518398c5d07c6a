#!/usr/bin/env bash
# A mint as production runs it: `receipts mint --order N` through PgBouncer (transaction
# pooling), a whole process each, this build and an earlier one alternating run by run on
# databases of their own. Prints the median of each.
#
#   BASELINE=path/to/earlier/receipts benches/mint-bouncer.sh     (RUNS=N; 80)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${RECEIPTS_TEST_PG_URL:-}" ] || exec scripts/with-postgres "$0" "$@"
runs=${RUNS:-80}
cargo build --release --quiet
current=$(realpath "${CARGO_TARGET_DIR:-target}")/release/receipts
baseline=$(realpath "${BASELINE:?BASELINE=path/to/an/earlier/receipts}")
work=$(mktemp -d)
trap 'for l in earlier this; do psql -q "$RECEIPTS_TEST_PG_URL" -c "DROP DATABASE IF EXISTS bouncer_$l$$ WITH (FORCE)" 2>/dev/null; done; rm -rf "$work"' EXIT
seq 1 "$runs" | awk 'BEGIN { print "v1_id,kind,stringer,customer,price" } { print $1 ",client,ana,Customer " $1 ",35.50" }' >"$work/v1.csv"
declare -A bins=([earlier]="$baseline" [this]="$current") times=()
for label in earlier this; do
    psql -q "$RECEIPTS_TEST_PG_URL" -c "CREATE DATABASE bouncer_$label$$"
    "${bins[$label]}" --database-url "${RECEIPTS_TEST_PG_URL%/*}/bouncer_$label$$" db migrate >/dev/null 2>&1
    "${bins[$label]}" --database-url "${RECEIPTS_TEST_PG_URL%/*}/bouncer_$label$$" migrate-v1 "$work/v1.csv" >/dev/null 2>&1
done
for i in $(seq 1 "$runs"); do
    for label in earlier this; do
        start=$(date +%s%N)
        "${bins[$label]}" --database-url "${RECEIPTS_TEST_PGBOUNCER_URL%/*}/bouncer_$label$$" mint --order "$i" >/dev/null 2>&1
        times[$label]+="$(( ($(date +%s%N) - start) / 1000 )) "
    done
done
echo "| build | \`mint --order N\` through PgBouncer, median ms ($runs runs) |"
echo "|---|---:|"
for label in earlier this; do
    echo "| $label | $(tr ' ' '\n' <<<"${times[$label]}" | grep . | sort -n | awk '{ a[NR] = $1 } END { printf "%.2f", a[int((NR + 1) / 2)] / 1000 }') |"
done
