#!/usr/bin/env bash
# The e-invoice benchmark (SPEC 24): one document as the plain PDF, as the Factur-X hybrid
# and as the XML alone (whole processes), and a year of 10,000 documents written as hybrids
# (`receipt --year --einvoice`) and as FatturaPA files (`einvoice --year`), with time and
# peak memory. On SQLite, from a generated V1 file. Prints Markdown.
#
#   benches/einvoice.sh            (RUNS=N sets the runs of the single documents; 50)
#
# The V1 file has no structured addresses: after the import, the bench database's orders are
# given their buyer's address and identifiers by SQL, with the triggers that freeze issued
# documents dropped for it. Its journal no longer verifies; nothing here asks it to.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-50}
count=${COUNT:-10000}
cargo build --release --quiet
receipts=$(realpath "${CARGO_TARGET_DIR:-target}")/release/receipts
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TZ=Europe/Berlin DATABASE_URL="$work/receipts.db"
command -v sqlite3 >/dev/null || { echo "benches/einvoice.sh needs sqlite3" >&2; exit 1; }

$receipts stringer add anna --name "Anna Cordes Bespannungen" --timezone Europe/Berlin >/dev/null 2>&1
$receipts stringer edit anna --street Hauptstrasse --house-number 5 --postcode 10115 --town Berlin \
    --country DE --currency EUR --vat-number DE123456788 --vat-rate 19 --vat-from 2024-01-01 \
    --iban DE89370400440532013000 --email anna@example.de --language de >/dev/null 2>&1
$receipts stringer add giulia --name "Giulia Corde" --timezone Europe/Rome >/dev/null 2>&1
$receipts stringer edit giulia --street "Via Roma" --house-number 10 --postcode 00184 --town Roma \
    --country IT --currency EUR --vat-number IT01234567897 --tax-code RSSMRA85T10A562S --regime RF19 \
    --iban IT60X0542811101000000123456 --language it >/dev/null 2>&1
{
    echo "v1_id,kind,stringer,customer,racket,string,tension,price,strung_at,paid_at,notes"
    for handle in anna giulia; do
        for i in $(seq 1 "$count"); do
            echo "$i,client,$handle,Tennisclub $i,Wilson Pro Staff 97,Luxilon ALU Power 1.25,24/23 kg,95.50,2025-03-01 10:00,,Order $i"
        done
    done
} >"$work/v1.csv"
$receipts migrate-v1 "$work/v1.csv" >/dev/null 2>&1
sqlite3 "$work/receipts.db" <<'SQL'
DROP TRIGGER orders_keep_documents;
DROP TRIGGER orders_keep_buyer_ids;
UPDATE orders SET
    customer_postal = 'Sportweg' || char(10) || '1' || char(10) || '80331' || char(10) || 'München' || char(10) || 'DE',
    customer_business = 'DE811907980' || char(10) || 'PO-4711' || char(10) || char(10) || char(10)
WHERE stringer_id = (SELECT id FROM stringers WHERE handle = 'anna');
UPDATE orders SET
    customer_postal = 'Via dei Monti' || char(10) || '3' || char(10) || '00197' || char(10) || 'Roma' || char(10) || 'IT',
    customer_business = 'IT12345678903' || char(10) || char(10) || char(10) || 'ABC1234' || char(10)
WHERE stringer_id = (SELECT id FROM stringers WHERE handle = 'giulia');
SQL
order=$($receipts order list --stringer anna --format json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')

# Median and 95th percentile of a command run $runs times, in ms (its output removed each time).
time_runs() {
    local times=()
    for _ in $(seq 1 "$runs"); do
        local start end
        start=$(date +%s%N)
        "$@" >/dev/null 2>&1
        end=$(date +%s%N)
        times+=($(( (end - start) / 1000 )))
        rm -f "$work/one.pdf" "$work/one.xml"
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{ t[NR] = $1 } END {
        printf "%.2f | %.2f", t[int((NR + 1) / 2)] / 1000, t[int(NR * 0.95 + 0.5)] / 1000 }'
}

# One run of a year written into an empty DIR by `receipts ARGS --out-dir DIR`: a table row
# of seconds, documents/s, peak memory (MB, GNU time's maximum resident set) and MB written.
year() {
    local label=$1 out=$2
    shift 2
    rm -rf "$out"
    local start end
    start=$(date +%s%N)
    /usr/bin/time -f %M -o "$work/rss" "$receipts" "$@" --out-dir "$out" 2>/dev/null
    end=$(date +%s%N)
    local files seconds
    files=$(ls "$out" | wc -l)
    [ "$files" -eq "$count" ] || { echo "expected $count files, got $files" >&2; exit 1; }
    seconds=$(awk -v ns=$((end - start)) 'BEGIN { printf "%.2f", ns / 1e9 }')
    echo "| $label | $seconds | $(awk -v s="$seconds" -v n="$count" 'BEGIN { printf "%.0f", n / s }') | $(( $(cat "$work/rss") / 1024 )) | $(du -sm "$out" | cut -f1) |"
}

echo "### One document as a whole process ($runs runs each, SQLite)"
echo
echo "| command | median (ms) | p95 (ms) |"
echo "|---|---:|---:|"
echo "| \`receipts receipt $order -o one.pdf --no-einvoice\` (plain PDF/A-2b) | $(time_runs "$receipts" receipt "$order" -o "$work/one.pdf" --no-einvoice) |"
echo "| \`receipts receipt $order -o one.pdf --einvoice\` (hybrid PDF/A-3b, journaled) | $(time_runs "$receipts" receipt "$order" -o "$work/one.pdf" --einvoice) |"
echo "| \`receipts receipt $order --xml one.xml\` (Factur-X XML, journaled) | $(time_runs "$receipts" receipt "$order" --xml "$work/one.xml") |"
echo
echo "### A year of $count documents"
echo
echo "| files | seconds | documents/s | peak memory (MB) | MB written |"
echo "|---|---:|---:|---:|---:|"
for run in 1 2; do
    year "plain PDFs (\`receipt --year --no-einvoice\`), run $run" "$work/plain" receipt --year 2025 --stringer anna --no-einvoice
    year "hybrids (\`receipt --year --einvoice\`), run $run" "$work/hybrid" receipt --year 2025 --stringer anna --einvoice
    year "FatturaPA (\`einvoice --year\`), run $run" "$work/fatturapa" einvoice --year 2025 --stringer giulia
done
