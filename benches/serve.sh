#!/usr/bin/env bash
# The counter in the browser under load (issue: the counter in the browser), release build,
# `receipts serve` on an SQLite file and on the throwaway PostgreSQL (through its PgBouncer),
# driven by wrk (Debian's). Prints Markdown.
#
#   benches/serve.sh               (SECONDS_EACH=N seconds per load; 15; RECEIPTS_BIN=an
#                                   earlier build to compare, else this one is built)
#
# The shop: stringer anna with 1,000,000 orders (20,000 customers with 50 visits each; all
# numbered and picked up but 200 open and 100 waiting), as benches/day.sh writes them, and
# stringer ben with 5,000 open orders to press Strung on.
# 1. Each page alone, 4 clients (a shop's phones and desk) for SECONDS_EACH: the queue, an
#    order, a customer with 50 visits, the new-order form of his racket.
# 2. 50 clients at once for SECONDS_EACH: 40 viewing anna's queue, 10 pressing Strung on
#    ben's open orders one after another; first at the counter's pace (each client waits
#    250 ms between requests), then flat out. Then: every request answered, ben's numbers
#    1..N with one mint journaled each, `receipts audit` passes, and the peak memory of
#    `serve` over both loads.
# 3. The register under 50 clients at the counter's pace: a search and the list's first and
#    last page (skipping to it, and following the customer before it), with 20,000
#    customers (anna's) and with 1,000 (cleo's, a shop of her own).
#    ONLY=register runs this part alone.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${RECEIPTS_TEST_PG_URL:-}" ] || exec scripts/with-postgres "$0" "$@"
seconds=${SECONDS_EACH:-15}
think_ms=250
command -v wrk >/dev/null || { echo "benches/serve.sh needs wrk (apt-get install wrk)" >&2; exit 1; }
if [ -z "${RECEIPTS_BIN:-}" ]; then
    cargo build --release --quiet
fi
receipts=${RECEIPTS_BIN:-$PWD/target/release/receipts}
work=$(mktemp -d /tmp/receipts-serve.XXXXXX)
pg_db="serve_bench_$$"
server=
cleanup() {
    [ -z "$server" ] || pkill -P "$server" 2>/dev/null || true
    psql -q "$RECEIPTS_TEST_PG_URL" -c "DROP DATABASE IF EXISTS $pg_db" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

# The shop, as SQL both databases take but for the row source ($1 with its bound as $N:
# generate_series on PostgreSQL, a recursive count on SQLite) and the type of a time
# literal ($T); $2 to $4 are times.
shop_sql() {
    cat <<SQL
INSERT INTO customers (stringer_id, name, search_name, email, search_email, created_at, updated_at)
SELECT 1, 'Customer ' || i, 'customer ' || i, 'c' || i || '@example.com', 'c' || i || '@example.com',
       '2024-01-01 10:00:00', '2024-01-01 10:00:00'
FROM \$1 WHERE i <= 20000;
INSERT INTO rackets (stringer_id, customer_id, model, search_model, created_at, updated_at)
SELECT 1, i, 'Pure Aero', 'pure aero', '2024-01-01 10:00:00', '2024-01-01 10:00:00' FROM \$1 WHERE i <= 20000;
INSERT INTO orders (stringer_id, kind, customer, customer_id, racket, racket_id, string, tension, price_minor,
                    currency, ordered_at, due_at, strung_at, returned_at, receipt_year, receipt_seq,
                    created_at, updated_at)
SELECT 1, 'client', 'Customer ' || (i % 20000 + 1), i % 20000 + 1, 'Pure Aero', i % 20000 + 1,
       'RPM Blast 1.25', '24/23 kg', 3550, 'CHF', '2024-01-01 10:00:00', '2024-01-02 10:00:00',
       CASE WHEN i <= 999700 THEN '2024-01-01 12:00:00'\$T WHEN i <= 999800 THEN \$2\$T END,
       CASE WHEN i <= 999700 THEN '2024-01-03 12:00:00'\$T END,
       CASE WHEN i <= 999800 THEN 2024 END, CASE WHEN i <= 999800 THEN i END,
       '2024-01-01 10:00:00', '2024-01-01 10:00:00'
FROM \$1;
UPDATE orders SET ordered_at = \$3, due_at = \$4 WHERE strung_at IS NULL;
INSERT INTO receipt_counters (stringer_id, year, last_n, created_at, updated_at)
VALUES (1, 2024, 999800, '2024-01-01', '2024-01-01');
INSERT INTO customers (stringer_id, name, search_name, email, search_email, created_at, updated_at)
SELECT 3, 'Customer ' || i, 'customer ' || i, 'c' || i || '@example.com', 'c' || i || '@example.com',
       '2024-01-01 10:00:00', '2024-01-01 10:00:00'
FROM \$1 WHERE i <= 1000;
INSERT INTO orders (stringer_id, kind, customer, racket, string, tension, price_minor, currency,
                    ordered_at, due_at, created_at, updated_at)
SELECT 2, 'client', 'Walk-in ' || i, 'Blade 98', 'Hawk 1.20', '22 kg', 3000, 'CHF', \$3\$T, \$4\$T,
       '2024-01-01 10:00:00', '2024-01-01 10:00:00'
FROM \$1 WHERE i <= 5000;
SQL
}
now_utc() { date -u -d "$1" '+%Y-%m-%d %H:%M:%S'; }
times="s/\\\$2/'$(now_utc '-10 days')'/; s/\\\$3/'$(now_utc '-1 hour')'/; s/\\\$4/'$(now_utc '+2 days')'/"
password="correct horse battery"

# A database with the shop and an account for each stringer.
make_shop() {
    local url=$1 series=$2 time_type=$3
    "$receipts" --database-url "$url" stringer add anna --timezone Europe/Zurich >/dev/null 2>&1
    "$receipts" --database-url "$url" stringer add ben --timezone Europe/Zurich >/dev/null 2>&1
    "$receipts" --database-url "$url" stringer add cleo --timezone Europe/Zurich >/dev/null 2>&1
    for who in anna ben cleo; do
        echo "$password" | "$receipts" --database-url "$url" account add "$who" --stringer "$who" \
            --role staff --password-stdin >/dev/null 2>&1
    done
    shop_sql | sed -e "s/\\\$1/$series/" -e "$times" -e "s/\\\$T/$time_type/g"
}

sqlite_db="$work/serve.db"
"$receipts" --database-url "$sqlite_db" db migrate >/dev/null 2>&1
make_shop "$sqlite_db" "(WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1000000) SELECT i FROM c)" "" \
    | sqlite3 "$sqlite_db"
sqlite3 "$sqlite_db" "ANALYZE"

psql -q "$RECEIPTS_TEST_PG_URL" -c "CREATE DATABASE $pg_db"
pg_url="${RECEIPTS_TEST_PG_URL%/*}/$pg_db"
"$receipts" --database-url "$pg_url" db migrate >/dev/null 2>&1
make_shop "$pg_url" "generate_series(1, 1000000) AS i" "::timestamp" | psql -q "$pg_url" >/dev/null
psql -q "$pg_url" -c "VACUUM ANALYZE" >/dev/null
pg_via_bouncer="${RECEIPTS_TEST_PGBOUNCER_URL%/*}/$pg_db"

# Starts `serve` on $1 under GNU time (its peak memory into $work/rss); sets $base.
start_server() {
    local log="$work/serve.log"
    : >"$log"
    /usr/bin/time -f '%M' -o "$work/rss" "$receipts" --database-url "$1" serve --listen 127.0.0.1:0 2>"$log" &
    server=$!
    until grep -q 'serving the counter on' "$log"; do
        kill -0 "$server" 2>/dev/null || { cat "$log" >&2; exit 1; }
        sleep 0.1
    done
    base=$(grep -o 'http://[^ ]*' "$log" | head -n 1)
    base=${base%/}
}

# Starts `serve` on the backend named (SQLite, or PostgreSQL through PgBouncer); sets $url.
serve_on() {
    url=$sqlite_db
    [ "$1" = SQLite ] || url=$pg_via_bouncer
    start_server "$url"
}

stop_server() {
    kill -TERM "$(pgrep -P "$server" receipts)"
    wait "$server" || true
    server=
}

# Logs $1 in: sets $cookie and $csrf.
log_in() {
    local jar="$work/jar"
    local login
    # The login form's token (an earlier build's form has none, and takes the login without).
    login=$(curl -s -c "$jar" "$base/login" | grep -o 'name="csrf" value="[0-9a-f]*"' | grep -o '[0-9a-f]\{64\}' || true)
    curl -s -o /dev/null -b "$jar" -c "$jar" --data-urlencode "csrf=$login" \
        --data-urlencode "username=$1" --data-urlencode "password=$password" "$base/login"
    cookie="receipts_session=$(awk '$6 == "receipts_session" { print $7 }' "$jar")"
    curl -s -o "$work/queue.html" -H "Cookie: $cookie" "$base/"
    csrf=$(grep -o 'name="csrf" value="[0-9a-f]*"' "$work/queue.html" | head -n 1 | grep -o '[0-9a-f]\{64\}')
}

# The orders of the queue last fetched by log_in, by id.
queued() {
    grep -o 'href="/orders/[0-9]*"' "$work/queue.html" | grep -o '[0-9]*' | sort -n
}

# wrk's figures as a table row: requests/s, p50, p90, p99 (ms), failed requests.
wrk_row() {
    awk '
        /^ +50%/ { p50 = $2 } /^ +90%/ { p90 = $2 } /^ +99%/ { p99 = $2 }
        /Requests\/sec/ { rps = $2 }
        /Non-2xx or 3xx/ { bad += $NF } /Socket errors/ { for (i = 4; i <= NF; i += 2) bad += $i }
        function ms(t) { if (t ~ /us$/) return sprintf("%.2f", t / 1000); if (t ~ /ms$/) return sprintf("%.2f", t + 0); return sprintf("%.2f", t * 1000) }
        END { printf "%.0f | %s | %s | %s | %d", rps, ms(p50), ms(p90), ms(p99), bad }
    ' "$1"
}

cat >"$work/client.lua" <<'LUA'
-- One kind of client at the counter: MODE=queue views the queue; MODE=strung presses
-- Strung on ben's open orders FIRST.. one after another (round again after COUNT). THINK:
-- milliseconds each client waits between its requests on average, drawn anew each time so
-- that the clients do not press in step (none if unset).
local mode, think = os.getenv("MODE"), tonumber(os.getenv("THINK") or "0")
local first, count = tonumber(os.getenv("FIRST") or "0"), tonumber(os.getenv("COUNT") or "1")
local headers = { ["Cookie"] = os.getenv("COOKIE") }
local n = 0
if mode == "strung" then headers["Content-Type"] = "application/x-www-form-urlencoded" end
request = function()
    if mode == "queue" then return wrk.format("GET", "/", headers) end
    local id = first + n % count
    n = n + 1
    return wrk.format("POST", "/orders/" .. id .. "/strung", headers, "csrf=" .. os.getenv("CSRF"))
end
if think > 0 then delay = function() return math.random(0, 2 * think) end end
LUA

cat >"$work/page.lua" <<'LUA'
-- A client at the counter's pace viewing one page: each waits THINK ms on average.
local think = tonumber(os.getenv("THINK") or "0")
if think > 0 then delay = function() return math.random(0, 2 * think) end end
LUA

# measure PAGE CLIENTS [THINK_MS]: the page answers 200, then wrk's figures into $work/wrk.
measure() {
    local status
    status=$(curl -s -o /dev/null -w '%{http_code}' -H "Cookie: $cookie" "$base$1")
    [ "$status" = 200 ] || { echo "$1 answered $status" >&2; exit 1; }
    THINK=${3:-0} wrk -t1 -c"$2" -d"${seconds}s" --latency -s "$work/page.lua" \
        -H "Cookie: $cookie" "$base$1" >"$work/wrk"
}

if [ "${ONLY:-}" = register ]; then
    echo "### The register: 50 clients at the counter's pace (${think_ms} ms between requests), ${seconds} s each (wrk; ms)"
    echo
    echo "| backend | customers | page | requests/s | p50 | p90 | p99 | failed |"
    echo "|---|---:|---|---:|---:|---:|---:|---:|"
    for backend in SQLite PostgreSQL; do
        serve_on "$backend"
        # Who, how many customers, a search, where the last page starts and the customer
        # before it ("customer 9953" stands 19,950th of anna's by name; cleo's ids follow
        # anna's 20,000).
        for shop in "anna 20,000 customer+1999 19950 9953" "cleo 1,000 customer+199 950 20953"; do
            read -r who count text last before_last <<<"$shop"
            log_in "$who"
            for page in "/customers?q=$text" "/customers" "/customers?from=$last" "/customers?after=$before_last"; do
                measure "$page" 50 "$think_ms"
                echo "| $backend | $count | \`${page}\` | $(wrk_row "$work/wrk") |"
            done
        done
        stop_server
    done
    exit 0
fi

echo "### Each page alone on 1,000,000 orders: 4 clients, ${seconds} s each (wrk; ms)"
echo
echo "| backend | page | requests/s | p50 | p90 | p99 | failed |"
echo "|---|---|---:|---:|---:|---:|---:|"
for backend in SQLite PostgreSQL; do
    serve_on "$backend"
    log_in anna
    order=$(queued | sed -n 1p)
    for page in "/" "/orders/$order" "/customers/1" "/orders/new?customer_id=1&racket_id=1&same=yes" "/customers?q=customer+1999"; do
        measure "$page" 4
        echo "| $backend | \`${page}\` | $(wrk_row "$work/wrk") |"
    done
    stop_server
done

echo
echo "### 50 clients at once, ${seconds} s each load: 40 viewing anna's queue, 10 pressing Strung on ben's orders (wrk; ms)"
echo
echo "At the counter's pace each client waits ${think_ms} ms on average between its requests (four a"
echo "second each, 200 a second in all: more than any shop's devices send); flat out they wait"
echo "for nothing, and the figures are what two cores shared by wrk, the database and \`serve\` give."
echo
echo "| backend | load | clients | requests/s | p50 | p90 | p99 | failed |"
echo "|---|---|---|---:|---:|---:|---:|---:|"
checks=()
for backend in SQLite PostgreSQL; do
    serve_on "$backend"
    log_in anna
    anna_cookie=$cookie
    log_in ben
    first=$(queued | sed -n 1p)
    for load in "at the counter's pace" "flat out"; do
        think=0
        [ "$load" = "flat out" ] || think=$think_ms
        MODE=queue THINK=$think COOKIE=$anna_cookie \
            wrk -t1 -c40 -d"${seconds}s" --latency -s "$work/client.lua" "$base" >"$work/queue" &
        views=$!
        MODE=strung THINK=$think FIRST=$first COUNT=2500 COOKIE=$cookie CSRF=$csrf \
            wrk -t1 -c10 -d"${seconds}s" --latency -s "$work/client.lua" "$base" >"$work/strung"
        wait "$views"
        echo "| $backend | $load | 40 queue views | $(wrk_row "$work/queue") |"
        echo "| $backend | $load | 10 Strung | $(wrk_row "$work/strung") |"
        first=$((first + 2500))
    done
    stop_server
    # Ben's numbers: how many, the highest, how many distinct; the mints journaled.
    query="SELECT count(*), coalesce(max(receipt_seq), 0), count(DISTINCT receipt_seq) FROM orders
           WHERE stringer_id = 2 AND receipt_seq IS NOT NULL;
           SELECT count(*) FROM receipt_events WHERE stringer_id = 2 AND kind = 'mint';"
    if [ "$backend" = SQLite ]; then numbers=$(sqlite3 "$sqlite_db" "$query"); else numbers=$(psql -tA "$pg_url" -c "$query"); fi
    numbers=$(tr '\n' '|' <<<"$numbers")
    IFS='|' read -r count highest distinct mints _ <<<"$numbers"
    [ "$count" = "$highest" ] && [ "$count" = "$distinct" ] && [ "$count" = "$mints" ] && gapless="1..$count, gapless" \
        || gapless="FAILS: $count numbers, highest $highest, $distinct distinct, $mints mints"
    "$receipts" --database-url "$url" audit --stringer ben >/dev/null 2>&1 && audit=passes || audit=FAILS
    checks+=("| $backend | $gapless | $mints | $audit | $(( $(cat "$work/rss") / 1024 )) MiB |")
done
echo
echo "| backend | ben's numbers after the load | mints journaled | \`receipts audit --stringer ben\` | peak memory of \`serve\` |"
echo "|---|---:|---:|---|---:|"
printf '%s\n' "${checks[@]}"
