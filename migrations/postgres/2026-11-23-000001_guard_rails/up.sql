-- Guard rails: handles that ignore case, TRUNCATE refused like DELETE, and timestamps that
-- default to now, so a hand-written repair INSERT (docs/RESTORE.md) needs to name none.

-- Handles are stored in lowercase: `Stefan` and `stefan` are one stringer. Two existing
-- handles that differ only in case cannot both be kept: refuse and name them.
DO $$
DECLARE
    clashes TEXT;
BEGIN
    SELECT string_agg(handles, '; ') INTO clashes FROM (
        SELECT string_agg(handle, ', ' ORDER BY handle) AS handles
        FROM stringers GROUP BY lower(handle) HAVING count(*) > 1) c;
    IF clashes IS NOT NULL THEN
        RAISE EXCEPTION 'stringer handles now ignore case, and these differ only in case: %; '
            'rename all but one of each (UPDATE stringers SET handle = ''new-name'' WHERE handle = ''...'') '
            'and migrate again', clashes;
    END IF;
END;
$$;
UPDATE stringers SET handle = lower(handle) WHERE handle <> lower(handle);
ALTER TABLE stringers ADD CONSTRAINT stringers_handle_lowercase CHECK (handle = lower(handle));

ALTER TABLE stringers
    ALTER COLUMN created_at SET DEFAULT (now() AT TIME ZONE 'UTC'),
    ALTER COLUMN updated_at SET DEFAULT (now() AT TIME ZONE 'UTC');
ALTER TABLE orders
    ALTER COLUMN created_at SET DEFAULT (now() AT TIME ZONE 'UTC'),
    ALTER COLUMN updated_at SET DEFAULT (now() AT TIME ZONE 'UTC');
ALTER TABLE receipt_counters
    ALTER COLUMN created_at SET DEFAULT (now() AT TIME ZONE 'UTC'),
    ALTER COLUMN updated_at SET DEFAULT (now() AT TIME ZONE 'UTC');
ALTER TABLE receipt_events
    ALTER COLUMN created_at SET DEFAULT (now() AT TIME ZONE 'UTC');

-- TRUNCATE skips the row triggers that keep issued numbers: refuse it on every table that
-- holds numbers or their history.
CREATE FUNCTION receipts_refuse_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% cannot be truncated: it holds issued receipt numbers or their history', TG_TABLE_NAME;
END;
$$;

CREATE TRIGGER orders_refuse_truncate
    BEFORE TRUNCATE ON orders
    FOR EACH STATEMENT EXECUTE FUNCTION receipts_refuse_truncate();
CREATE TRIGGER receipt_counters_refuse_truncate
    BEFORE TRUNCATE ON receipt_counters
    FOR EACH STATEMENT EXECUTE FUNCTION receipts_refuse_truncate();
CREATE TRIGGER receipt_events_refuse_truncate
    BEFORE TRUNCATE ON receipt_events
    FOR EACH STATEMENT EXECUTE FUNCTION receipts_refuse_truncate();
