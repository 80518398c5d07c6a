#!/usr/bin/env python3
"""Writes a large synthetic V1 export for benchmarks: ROWS rows over 4 stringers and YEARS years
(5 unless given: 2021 to 2025; 4: 2022 to 2025),
both kinds, strung_at as UTC instants (a form both the program and the databases' own CSV
loaders read), about 1 in 50 rows never strung, rows in shuffled order.

    python3 benches/gen-v1.py ROWS OUT.csv [YEARS]
"""
import csv
import random
import sys
from datetime import datetime, timedelta

rows, out = int(sys.argv[1]), sys.argv[2]
year_count = int(sys.argv[3]) if len(sys.argv) > 3 else 5
rng = random.Random(rows)
stringers = ["stefan", "anna", "mia", "luca"]
years = list(range(2026 - year_count, 2026))
next_id = {"client": 0, "self": 0}
records = []
for i in range(rows):
    kind = "client" if rng.random() < 0.7 else "self"
    next_id[kind] += 1
    year = years[i % len(years)]
    strung = datetime(year, 1, 1) + timedelta(seconds=rng.randrange(365 * 86400))
    records.append((
        next_id[kind], kind, stringers[(i // len(years)) % len(stringers)],
        f"Customer {rng.randrange(5000)}", "Babolat Pure Aero", "RPM Blast 1.25", "24/23 kg",
        f"{rng.randrange(20, 60)}.{rng.choice(['00', '50'])}",
        (strung - timedelta(days=2)).strftime("%Y-%m-%d"),
        "" if rng.random() < 0.02 else strung.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "", "" if rng.random() < 0.9 else "regular, same as last time",
    ))
rng.shuffle(records)
with open(out, "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["v1_id", "kind", "stringer", "customer", "racket", "string", "tension", "price",
                "ordered_at", "strung_at", "paid_at", "notes"])
    w.writerows(records)
