-- Guard rails: handles that ignore case, and timestamps that default to now, so a
-- hand-written repair INSERT (docs/RESTORE.md) needs to name none.
--
-- SQLite cannot add a default to a column: every table is rebuilt (create, copy, drop,
-- rename), in one transaction, with foreign keys off while the tables are swapped.
PRAGMA foreign_keys = OFF;
BEGIN IMMEDIATE;

-- Handles are stored in lowercase: `Stefan` and `stefan` are one stringer. Two existing
-- handles that differ only in case cannot both be kept: refuse.
CREATE TEMP TABLE handle_clashes (handle TEXT);
CREATE TEMP TRIGGER refuse_handle_clashes BEFORE INSERT ON handle_clashes
BEGIN
    SELECT RAISE(ABORT, 'stringer handles now ignore case, and two handles differ only in case (SELECT handle FROM stringers): rename all but one of them and open the database again');
END;
INSERT INTO handle_clashes SELECT lower(handle) FROM stringers GROUP BY lower(handle) HAVING count(*) > 1;
DROP TABLE handle_clashes;

CREATE TABLE new_stringers (
    id INTEGER PRIMARY KEY,
    handle TEXT NOT NULL UNIQUE CHECK (handle <> ''),
    name TEXT NOT NULL,
    timezone TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now')),
    updated_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now')),
    CONSTRAINT stringers_handle_lowercase CHECK (handle = lower(handle))
);
INSERT INTO new_stringers (id, handle, name, timezone, created_at, updated_at)
    SELECT id, lower(handle), name, timezone, created_at, updated_at FROM stringers;
DROP TABLE stringers;
ALTER TABLE new_stringers RENAME TO stringers;

CREATE TABLE new_orders (
    id INTEGER PRIMARY KEY,
    stringer_id BIGINT NOT NULL REFERENCES stringers (id),
    kind TEXT NOT NULL CHECK (kind IN ('client', 'self')),
    customer TEXT,
    racket TEXT,
    string TEXT,
    tension TEXT,
    price_minor BIGINT CHECK (price_minor >= 0),
    currency TEXT NOT NULL DEFAULT 'CHF',
    ordered_at TIMESTAMP,
    strung_at TIMESTAMP,
    returned_at TIMESTAMP,
    paid_at TIMESTAMP,
    receipt_number TEXT,
    receipt_year INTEGER,
    receipt_seq BIGINT,
    voided_at TIMESTAMP,
    void_reason TEXT,
    restring_of BIGINT REFERENCES orders (id),
    v1_kind TEXT CHECK (v1_kind IN ('client', 'self')),
    v1_id BIGINT CHECK (v1_id > 0),
    notes TEXT,
    created_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now')),
    updated_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now')),
    -- The text is exactly the rendering of its integer parts: at least four digits, no cap.
    CONSTRAINT orders_receipt_number_matches_parts CHECK (
        CASE WHEN receipt_number IS NULL THEN receipt_year IS NULL AND receipt_seq IS NULL
        ELSE COALESCE(
            typeof(receipt_year) = 'integer' AND typeof(receipt_seq) = 'integer'
            AND receipt_year BETWEEN 1 AND 9999 AND receipt_seq >= 1
            AND receipt_number = printf('%04d-%04d', receipt_year, receipt_seq),
            0)
        END),
    CONSTRAINT orders_void_needs_number_and_reason CHECK (
        voided_at IS NULL
        OR (receipt_number IS NOT NULL AND COALESCE(trim(void_reason), '') <> '')),
    CONSTRAINT orders_v1_identity_complete CHECK ((v1_kind IS NULL) = (v1_id IS NULL))
);
INSERT INTO new_orders SELECT * FROM orders;
DROP TABLE orders;
ALTER TABLE new_orders RENAME TO orders;

CREATE UNIQUE INDEX orders_receipt_number_key
    ON orders (stringer_id, receipt_number) WHERE receipt_number IS NOT NULL;
CREATE UNIQUE INDEX orders_v1_identity_key
    ON orders (stringer_id, v1_kind, v1_id) WHERE v1_id IS NOT NULL;
CREATE INDEX orders_receipt_year_idx
    ON orders (stringer_id, receipt_year, receipt_seq) WHERE receipt_number IS NOT NULL;

CREATE TRIGGER orders_keep_issued_numbers_on_delete
    BEFORE DELETE ON orders
    FOR EACH ROW WHEN OLD.receipt_number IS NOT NULL
BEGIN
    SELECT RAISE(ABORT, 'an order with a receipt number cannot be deleted; void it instead');
END;

CREATE TRIGGER orders_keep_issued_numbers_on_update
    BEFORE UPDATE ON orders
    FOR EACH ROW WHEN OLD.receipt_number IS NOT NULL AND (
        NEW.receipt_number IS NOT OLD.receipt_number
        OR NEW.receipt_year IS NOT OLD.receipt_year
        OR NEW.receipt_seq IS NOT OLD.receipt_seq
        OR NEW.stringer_id IS NOT OLD.stringer_id)
BEGIN
    SELECT RAISE(ABORT, 'an issued receipt number cannot change');
END;

CREATE TRIGGER orders_keep_voids
    BEFORE UPDATE ON orders
    FOR EACH ROW WHEN OLD.voided_at IS NOT NULL AND (
        NEW.voided_at IS NOT OLD.voided_at OR NEW.void_reason IS NOT OLD.void_reason)
BEGIN
    SELECT RAISE(ABORT, 'a void order cannot be un-voided');
END;

CREATE TABLE new_receipt_counters (
    stringer_id BIGINT NOT NULL REFERENCES stringers (id),
    year INTEGER NOT NULL CHECK (year BETWEEN 1 AND 9999),
    last_n BIGINT NOT NULL CHECK (last_n >= 0),
    created_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now')),
    updated_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now')),
    PRIMARY KEY (stringer_id, year)
);
INSERT INTO new_receipt_counters SELECT * FROM receipt_counters;
DROP TABLE receipt_counters;
ALTER TABLE new_receipt_counters RENAME TO receipt_counters;

CREATE TABLE new_receipt_events (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('mint', 'void', 'resync', 'v1_import')),
    stringer_id BIGINT NOT NULL REFERENCES stringers (id),
    year INTEGER NOT NULL,
    first_seq BIGINT,
    last_seq BIGINT,
    order_id BIGINT REFERENCES orders (id),
    counter_old BIGINT,
    counter_new BIGINT,
    reason TEXT,
    created_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now'))
);
INSERT INTO new_receipt_events SELECT * FROM receipt_events;
DROP TABLE receipt_events;
ALTER TABLE new_receipt_events RENAME TO receipt_events;
CREATE INDEX receipt_events_stringer_year_idx ON receipt_events (stringer_id, year);

CREATE TRIGGER receipt_events_append_only_on_update
    BEFORE UPDATE ON receipt_events
BEGIN
    SELECT RAISE(ABORT, 'receipt_events is an append-only journal');
END;

CREATE TRIGGER receipt_events_append_only_on_delete
    BEFORE DELETE ON receipt_events
BEGIN
    SELECT RAISE(ABORT, 'receipt_events is an append-only journal');
END;

COMMIT;
PRAGMA foreign_keys = ON;
