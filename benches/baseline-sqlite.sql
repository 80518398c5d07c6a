-- The best SQLite does by itself with a V1 file: .import into a staging table, then one
-- INSERT ... SELECT numbering with row_number(), then the counter upsert, one transaction.
-- The same page cache as `receipts migrate-v1` gives itself (64 MiB).
-- sed "s|@FILE@|PATH|" benches/baseline-sqlite.sql | sqlite3 DB
.bail on
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
PRAGMA cache_size = -65536;
CREATE TEMP TABLE staging (
    v1_id TEXT, kind TEXT, stringer TEXT, customer TEXT, racket TEXT, string TEXT,
    tension TEXT, price TEXT, ordered_at TEXT, strung_at TEXT, paid_at TEXT, notes TEXT
);
.import --csv --skip 1 @FILE@ staging
BEGIN IMMEDIATE;
INSERT INTO stringers (handle, name, timezone, created_at, updated_at)
SELECT DISTINCT stringer, stringer, 'UTC', datetime('now'), datetime('now') FROM staging WHERE true
ON CONFLICT (handle) DO NOTHING;
INSERT INTO orders (stringer_id, kind, customer, racket, string, tension, price_minor, currency,
                    ordered_at, strung_at, paid_at, receipt_year, receipt_seq,
                    v1_kind, v1_id, notes, created_at, updated_at)
SELECT s.id, t.kind, NULLIF(t.customer, ''), NULLIF(t.racket, ''), NULLIF(t.string, ''),
       NULLIF(t.tension, ''), CAST(round(t.price * 100) AS INTEGER), 'CHF',
       datetime(NULLIF(t.ordered_at, '')), datetime(NULLIF(t.strung_at, '')), datetime(NULLIF(t.paid_at, '')),
       t.y, t.n, t.kind,
       CAST(t.v1_id AS INTEGER), NULLIF(t.notes, ''), datetime('now'), datetime('now')
FROM (
    SELECT *, CASE WHEN strung_at <> '' THEN CAST(substr(strung_at, 1, 4) AS INTEGER) END AS y,
           CASE WHEN strung_at <> '' THEN row_number() OVER (
               PARTITION BY stringer, strung_at <> '', substr(strung_at, 1, 4)
               ORDER BY strung_at, kind, CAST(v1_id AS INTEGER)) END AS n
    FROM staging
) t JOIN stringers s ON s.handle = t.stringer;
INSERT INTO receipt_counters (stringer_id, year, last_n, created_at, updated_at)
SELECT stringer_id, receipt_year, max(receipt_seq), datetime('now'), datetime('now') FROM orders
WHERE receipt_year IS NOT NULL GROUP BY stringer_id, receipt_year
ON CONFLICT (stringer_id, year) DO UPDATE SET last_n = max(last_n, excluded.last_n);
COMMIT;
