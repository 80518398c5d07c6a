#!/usr/bin/env bash
# Every benchmark of docs/BENCHMARKS.md in one run, on one throwaway PostgreSQL: the mint
# (tables and docs/mint-throughput.png), the receipt, the ledger, migrate-v1, the bank
# statement import, a failover formation, then whole processes at the counter against
# sqlite3, the register, the day's work and `receipts serve` under load. Prints Markdown.
#
#   benches/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${RECEIPTS_TEST_PG_URL:-}" ] || exec scripts/with-postgres "$0" "$@"
benches/mint.sh
echo
echo "## The receipt"
echo
benches/receipt.sh
echo
echo "## The ledger"
echo
benches/ledger.sh
echo
echo "## migrate-v1 against the databases' own loaders"
echo
benches/migrate-v1.sh
echo
echo "## payments import of a bank statement"
echo
benches/payments.sh
echo
echo "## Failover: the price of the synchronous standby"
echo
benches/failover.sh
echo
echo "## Speed at the counter"
echo
benches/counter.sh
echo
echo "## The register at scale"
echo
benches/register.sh
echo
echo "## The day at the counter on a million orders"
echo
benches/day.sh
echo
echo "## The counter in the browser under load"
echo
benches/serve.sh
