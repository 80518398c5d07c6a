#!/usr/bin/env bash
# The customer register at scale (issue: customers and their rackets), release build, a
# throwaway PostgreSQL (scripts/with-postgres) and SQLite files. Prints Markdown.
#
#   benches/register.sh               (RUNS=N runs per timed command; 20; PART=search or
#                                     PART=migration for one part)
#
# 1. `customer list --search TEXT` on 100,000 customers, and `customer show` of a customer
#    with 1,000 orders, as whole processes (median of RUNS).
# 2. The migration that links existing orders to the register, on 1,000,000 orders
#    (benches/gen-v1.py): the orders imported, the register's migration and those after it
#    reverted, and then `receipts db migrate` (all of them again) timed with its peak memory
#    (GNU time).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${RECEIPTS_TEST_PG_URL:-}" ] || exec scripts/with-postgres "$0" "$@"
runs=${RUNS:-20}
# RECEIPTS_BIN: a binary built before (of another commit, say) instead of this tree's.
if [ -z "${RECEIPTS_BIN:-}" ]; then
    cargo build --release --quiet
fi
receipts=${RECEIPTS_BIN:-$PWD/target/release/receipts}
work=$(mktemp -d /tmp/receipts-register.XXXXXX)
pg_dbs=()
cleanup() {
    for db in "${pg_dbs[@]}"; do psql -q "$RECEIPTS_TEST_PG_URL" -c "DROP DATABASE IF EXISTS $db" 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT
# The register's migration and every one after it, newest first.
reverted=$(ls migrations/sqlite | awk '$0 >= "2026-11-25-000003"' | sort -r)

new_pg() {
    local name="register_bench_$$_${#pg_dbs[@]}"
    pg_dbs+=("$name")
    psql -q "$RECEIPTS_TEST_PG_URL" -c "CREATE DATABASE $name"
    local url="${RECEIPTS_TEST_PG_URL%/*}/$name"
    "$receipts" --database-url "$url" db migrate >/dev/null 2>&1
    echo "$url"
}

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

# 100,000 customers of stefan (names with accents, e-mails, phones) and one customer with
# 1,000 orders, as SQL for both databases: search_name folded as the program folds.
python3 - "$work/register.sql" <<'PY'
import random, sys, unicodedata
rng = random.Random(42)
first = ["Roger", "Martina", "Belinda", "Stan", "Jürg", "Zoé", "Chloé", "Björn", "Ana", "Noël", "Léa", "Jörg"]
last = ["Müller", "Meier", "Schmid", "Keller", "Weber", "Huber", "Fässler", "Brunner", "Gerber", "Bühler",
        "Favre", "Rochat", "Bernasconi", "Rossi", "Dubois", "Lévêque", "Sørensen", "Nuñez"]
def fold(text):
    out = []
    for c in text:
        if c in "øØ": out.append("o"); continue
        base = "".join(ch for ch in unicodedata.normalize("NFD", c) if not unicodedata.combining(ch))
        out.append(base.lower() if base.isascii() else c)
    return " ".join("".join(out).split())
with open(sys.argv[1], "w") as f:
    f.write("BEGIN;\n")
    for i in range(1, 100_001):
        name = f"{rng.choice(first)} {rng.choice(last)} {i}"
        email = f"c{i}@example.com"
        phone = f"+41 79 {rng.randrange(100, 999)} {rng.randrange(10, 99)} {rng.randrange(10, 99)}"
        digits = "".join(ch for ch in phone if ch.isdigit())
        f.write("INSERT INTO customers (stringer_id, name, search_name, email, search_email, phone, phone_digits, created_at, updated_at) "
                f"VALUES (1, '{name}', '{fold(name)}', '{email}', '{email}', '{phone}', '{digits}', '2026-01-01 00:00:00', '2026-01-01 00:00:00');\n")
    f.write("INSERT INTO rackets (stringer_id, customer_id, model, search_model, created_at, updated_at) "
            "VALUES (1, 1, 'Babolat Pure Aero', 'babolat pure aero', '2026-01-01 00:00:00', '2026-01-01 00:00:00');\n")
    for i in range(1, 1001):
        f.write("INSERT INTO orders (stringer_id, kind, customer, racket, string, tension, price_minor, currency, ordered_at, customer_id, racket_id, created_at, updated_at) "
                f"VALUES (1, 'client', 'Regular', 'Babolat Pure Aero', 'RPM Blast 1.25', '24/23 kg', 3550, 'CHF', '2025-{(i % 12) + 1:02}-{(i % 28) + 1:02} 10:00:00', 1, 1, '2026-01-01 00:00:00', '2026-01-01 00:00:00');\n")
    f.write("COMMIT;\n")
PY

part=${PART:-all}
if [ "$part" != migration ]; then
echo "### The register: search and history as whole processes (median of $runs runs, ms)"
echo
echo "| backend | \`customer list --search muller\` (100,000 customers) | \`customer list --search 079 555\` | \`customer show\` (1,000 orders) |"
echo "|---|---:|---:|---:|"
sqlite_db="$work/register.db"
"$receipts" --database-url "$sqlite_db" stringer add stefan --timezone Europe/Zurich >/dev/null 2>&1
sqlite3 "$sqlite_db" <"$work/register.sql"
pg_url=$(new_pg)
"$receipts" --database-url "$pg_url" stringer add stefan --timezone Europe/Zurich >/dev/null 2>&1
psql -q "$pg_url" -f "$work/register.sql" >/dev/null
psql -q "$pg_url" -c "ANALYZE" >/dev/null
for backend in SQLite PostgreSQL; do
    url=$sqlite_db
    [ "$backend" = SQLite ] || url=$pg_url
    found=$("$receipts" --database-url "$url" customer list --search muller --format csv | tail -n +2 | wc -l)
    search=$(median_ms "$receipts" --database-url "$url" customer list --search muller)
    phone=$(median_ms "$receipts" --database-url "$url" customer list --search "079 555")
    show=$(median_ms "$receipts" --database-url "$url" customer show 1)
    echo "| $backend | $search ($found found) | $phone | $show |"
done
fi
[ "$part" != search ] || exit 0

echo
echo "### The migration linking 1,000,000 existing orders (one run each)"
echo
echo "| backend | orders | client orders linked | customers | rackets | migrate-v1 s (links as it imports) | db migrate s | peak RSS (MiB) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
python3 benches/gen-v1.py 1000000 "$work/v1.csv"
measure() {
    /usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null 2>"$work/stderr" || { cat "$work/stderr" >&2; exit 1; }
    awk '{ printf "%.1f %.0f\n", $1, $2 / 1024 }' "$work/time"
}
# SQLite: imported (which links), the migrations from the register's on reverted, then
# migrated again.
lite="$work/million.db"
read -r imported _ < <(measure "$receipts" --database-url "$lite" migrate-v1 "$work/v1.csv" --timezone UTC)
for migration in $reverted; do
    sqlite3 "$lite" <"migrations/sqlite/$migration/down.sql"
    sqlite3 "$lite" "DELETE FROM __diesel_schema_migrations WHERE version = '$(echo "${migration%%_*}" | tr -d -)'"
done
sqlite3 "$lite" "PRAGMA user_version = 0"
read -r seconds rss < <(measure "$receipts" --database-url "$lite" db migrate)
counts=$(sqlite3 -separator ' ' "$lite" "SELECT count(*), count(customer_id), (SELECT count(*) FROM customers), (SELECT count(*) FROM rackets) FROM orders")
read -r total linked customers rackets <<<"$counts"
echo "| SQLite | $total | $linked | $customers | $rackets | $imported | $seconds | $rss |"
pg_million=$(new_pg)
read -r imported _ < <(measure "$receipts" --database-url "$pg_million" migrate-v1 "$work/v1.csv" --timezone UTC)
for migration in $reverted; do
    psql -q "$pg_million" -f "migrations/postgres/$migration/down.sql" >/dev/null
    psql -q "$pg_million" -c "DELETE FROM __diesel_schema_migrations WHERE version = '$(echo "${migration%%_*}" | tr -d -)'" >/dev/null
done
read -r seconds rss < <(measure "$receipts" --database-url "$pg_million" db migrate)
counts=$(psql -qAt -F ' ' "$pg_million" -c "SELECT count(*), count(customer_id), (SELECT count(*) FROM customers), (SELECT count(*) FROM rackets) FROM orders")
read -r total linked customers rackets <<<"$counts"
echo "| PostgreSQL | $total | $linked | $customers | $rackets | $imported | $seconds | $rss |"
