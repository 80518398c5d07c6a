-- The best PostgreSQL does by itself with a V1 file: \copy into a staging table, then one
-- INSERT ... SELECT numbering with row_number(), then the counter upsert, one transaction.
-- sed "s|@FILE@|PATH|" benches/baseline-postgres.sql | psql URL
\set ON_ERROR_STOP on
BEGIN;
CREATE TEMP TABLE staging (
    v1_id bigint, kind text, stringer text, customer text, racket text, string text,
    tension text, price numeric, ordered_at text, strung_at timestamptz, paid_at text, notes text
) ON COMMIT DROP;
\copy staging FROM '@FILE@' WITH (FORMAT csv, HEADER true)
INSERT INTO stringers (handle, name, timezone, created_at, updated_at)
SELECT DISTINCT stringer, stringer, 'UTC', now(), now() FROM staging
ON CONFLICT (handle) DO NOTHING;
INSERT INTO orders (stringer_id, kind, customer, racket, string, tension, price_minor, currency,
                    ordered_at, strung_at, paid_at, receipt_year, receipt_seq,
                    v1_kind, v1_id, notes, created_at, updated_at)
SELECT s.id, t.kind, NULLIF(t.customer, ''), NULLIF(t.racket, ''), NULLIF(t.string, ''),
       NULLIF(t.tension, ''), (t.price * 100)::bigint, 'CHF', NULLIF(t.ordered_at, '')::timestamp,
       t.strung_at AT TIME ZONE 'UTC', NULLIF(t.paid_at, '')::timestamp,
       t.y, t.n, t.kind, t.v1_id, NULLIF(t.notes, ''), now(), now()
FROM (
    SELECT *, EXTRACT(YEAR FROM strung_at AT TIME ZONE 'UTC')::int AS y,
           CASE WHEN strung_at IS NOT NULL THEN row_number() OVER (
               PARTITION BY stringer, strung_at IS NULL, EXTRACT(YEAR FROM strung_at AT TIME ZONE 'UTC')
               ORDER BY strung_at, kind, v1_id) END AS n
    FROM staging
) t JOIN stringers s ON s.handle = t.stringer;
INSERT INTO receipt_counters (stringer_id, year, last_n, created_at, updated_at)
SELECT stringer_id, receipt_year, max(receipt_seq), now(), now() FROM orders
WHERE receipt_year IS NOT NULL GROUP BY stringer_id, receipt_year
ON CONFLICT (stringer_id, year) DO UPDATE SET last_n = GREATEST(receipt_counters.last_n, EXCLUDED.last_n);
COMMIT;
