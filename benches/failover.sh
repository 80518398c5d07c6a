#!/usr/bin/env bash
# The price of the guarantee of SPEC section 16: `receipts mint` processes through the
# multi-host URL of a pg_auto_failover formation made by docs/DEPLOY.md's block, and pgbench
# running the mint's counter upsert alone, with the synchronous standby and with replication
# made asynchronous (`pg_autoctl set node replication-quorum false`), alternating in one run.
# Prints Markdown.
#
#   benches/failover.sh       (MINTS=N mints per measurement; 300)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${RECEIPTS_TEST_PG_URL:-}" ] || exec scripts/with-postgres "$0" "$@"
mints=${MINTS:-300}
cargo build --release --quiet
receipts=$(realpath "${CARGO_TARGET_DIR:-target}")/release/receipts

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
ha=$(mktemp -d /tmp/receipts-failover.XXXXXX)
monitor_port=$(free_port) node1_port=$(free_port) node2_port=$(free_port)
as_postgres=(env)
if [ "$(id -u)" -eq 0 ]; then
    chown postgres: "$ha"
    as_postgres=(runuser -u postgres -- env)
fi
as_postgres+=(PATH="$RECEIPTS_TEST_PG_BINDIR:/usr/sbin:/usr/bin:/sbin:/bin" HA="$ha" HOST=127.0.0.1
    MONITOR_PORT="$monitor_port" NODE1_PORT="$node1_port" NODE2_PORT="$node2_port"
    XDG_CONFIG_HOME="$ha/config" XDG_DATA_HOME="$ha/data" XDG_RUNTIME_DIR="$ha/run")
cleanup() {
    for node in node2 node1 monitor; do
        "${as_postgres[@]}" pg_autoctl stop --immediate --pgdata "$ha/$node" >/dev/null 2>&1 || true
    done
    pkill -KILL -f "$ha" 2>/dev/null || true
    rm -rf "$ha"
}
trap cleanup EXIT

# DEPLOY.md's set-up block, as written.
awk '/^```sh$/ { block = ""; inside = 1; next }
     /^```$/ { if (inside && block ~ /pg_autoctl create monitor/) printf "%s", block; inside = 0; next }
     inside { block = block $0 "\n" }' docs/DEPLOY.md >"$ha/formation.sh"
mkdir -p "$ha/run" && chown -R --reference="$ha" "$ha"
(cd "$ha" && timeout 180 "${as_postgres[@]}" bash -euo pipefail formation.sh >"$ha/formation.out" 2>&1) \
    || { cat "$ha/formation.out" >&2; exit 1; }

export DATABASE_URL="postgresql://postgres@127.0.0.1:$node1_port,127.0.0.1:$node2_port/receipts?target_session_attrs=read-write&connect_timeout=2"
export TZ=UTC
"$receipts" db migrate >/dev/null
# The mint's upsert alone, one counter row per pgbench client.
psql -q "$DATABASE_URL" -c "CREATE TABLE bench_counter (id int PRIMARY KEY, n bigint NOT NULL)"
echo 'INSERT INTO bench_counter (id, n) VALUES (:client_id, 1)
    ON CONFLICT (id) DO UPDATE SET n = bench_counter.n + 1 RETURNING n;' >"$ha/upsert.sql"
upserts() {
    "$RECEIPTS_TEST_PG_BINDIR/pgbench" -n -T 5 -c "$1" -j "$1" -f "$ha/upsert.sql" "$DATABASE_URL" 2>&1 \
        | awk '/^tps/ { printf "%.0f", $3 }'
}
# Unnumbered orders of four stringers, enough for every measurement.
rounds=4
{
    echo "v1_id,kind,stringer,customer,price"
    seq 1 $(( rounds * mints * 2 )) | awk '{ print $1 ",client,s" ($1 % 4) ",Customer " $1 ",35.50" }'
} >"$ha/orders.csv"
"$receipts" migrate-v1 "$ha/orders.csv" --timezone UTC >/dev/null 2>&1
"$receipts" order list --status open --format csv | tail -n +2 | cut -d, -f1 >"$ha/open"

# replicate sync|async: sets the standby's quorum and waits until the primary has it.
replicate() {
    local quorum=true want="ANY 1 (pgautofailover_standby_2)"
    [ "$1" = sync ] || { quorum=false; want=""; }
    "${as_postgres[@]}" pg_autoctl set node replication-quorum "$quorum" --pgdata "$ha/node2" >/dev/null 2>&1
    until [ "$(psql -Atc 'SHOW synchronous_standby_names' "$DATABASE_URL")" = "$want" ]; do sleep 0.2; done
}

next=1
# take N: the next N open orders.
take() { sed -n "${next},$(( next + $1 - 1 ))p" "$ha/open"; next=$(( next + $1 )); }
seconds() { local start=$1; echo "$(( $(date +%s%N) - start ))" | awk '{ printf "%.2f", $1 / 1e9 }'; }

echo "Per round: $mints mints one after another, then $mints by 4 processes at a time, each a"
echo "whole \`receipts mint --order ID\` process through the multi-host URL (release build); then"
echo "pgbench running the counter upsert for 5 s on 1 and on 4 connections (commits per second)."
echo
echo "| standby | mint processes one after another: ms each | 4 at a time: mints/s | upsert, 1 connection: commits/s | 4 connections: commits/s |"
echo "|---|---:|---:|---:|---:|"
for round in $(seq $rounds); do
    mode=sync
    [ $(( round % 2 )) -eq 1 ] || mode=async
    replicate "$mode"
    take "$mints" >"$ha/one"
    start=$(date +%s%N)
    while read -r id; do "$receipts" mint --order "$id" >/dev/null; done <"$ha/one"
    one=$(seconds "$start")
    take "$mints" >"$ha/four"
    start=$(date +%s%N)
    xargs -P 4 -I{} "$receipts" mint --order {} <"$ha/four" >/dev/null
    four=$(seconds "$start")
    label=synchronous
    [ "$mode" = sync ] || label=asynchronous
    awk -v l="$label" -v n="$mints" -v one="$one" -v four="$four" -v u1="$(upserts 1)" -v u4="$(upserts 4)" \
        'BEGIN { printf "| %s | %.1f | %.0f | %s | %s |\n", l, one * 1000 / n, n / four, u1, u4 }'
done
"$receipts" audit >/dev/null
