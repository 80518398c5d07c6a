#!/usr/bin/env bash
# The mint benchmark (benches/mint.rs): library mint vs pgbench floors on a throwaway
# PostgreSQL, SQLite vs the sqlite3 shell, CLI latency, statements per mint. Prints
# Markdown and draws docs/mint-throughput.png with gnuplot (benches/mint-plot.gp).
#
#   benches/mint.sh            (BENCH_SECONDS=N sets each throughput cell's length; 10)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${RECEIPTS_TEST_PG_URL:-}" ] || exec scripts/with-postgres "$0" "$@"
if ! command -v gnuplot >/dev/null && [ "$(id -u)" -eq 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gnuplot-nox fonts-dejavu-core >/dev/null
fi
cargo bench --bench mint
gnuplot -e "data='target/mint-throughput.tsv'; out='docs/mint-throughput.png'" benches/mint-plot.gp
