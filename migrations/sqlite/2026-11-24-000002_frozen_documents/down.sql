-- Documents render from the profile again; the versions, the frozen fields and the new
-- journal columns go (with the journal entries of the new kinds). Tables whose columns a
-- foreign key names are rebuilt.
PRAGMA foreign_keys = OFF;
BEGIN IMMEDIATE;
DROP TRIGGER orders_freeze_on_insert;
DROP TRIGGER orders_freeze_on_numbering;
DROP TRIGGER orders_keep_documents;
DROP TRIGGER stringers_first_issuer_version;
DROP TRIGGER stringers_new_issuer_version;
CREATE TABLE new_stringers (
    id INTEGER PRIMARY KEY,
    handle TEXT NOT NULL UNIQUE CHECK (handle <> ''),
    name TEXT NOT NULL,
    timezone TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now')),
    updated_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now')),
    address TEXT,
    email TEXT,
    phone TEXT,
    vat_number TEXT,
    language TEXT CHECK (language IN ('en', 'de', 'fr', 'it')),
    CONSTRAINT stringers_handle_lowercase CHECK (handle = lower(handle))
);
INSERT INTO new_stringers (id, handle, name, timezone, created_at, updated_at, address, email, phone, vat_number, language)
    SELECT id, handle, name, timezone, created_at, updated_at, address, email, phone, vat_number, language FROM stringers;
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
    -- The one rendering of a number: at least four digits, no cap (2026-9999, 2026-10000).
    receipt_number TEXT GENERATED ALWAYS AS (
        CASE WHEN receipt_seq IS NOT NULL THEN printf('%04d-%04d', receipt_year, receipt_seq) END) STORED,
    CONSTRAINT orders_receipt_parts_together CHECK (
        CASE WHEN receipt_year IS NULL THEN receipt_seq IS NULL
        ELSE COALESCE(
            typeof(receipt_year) = 'integer' AND typeof(receipt_seq) = 'integer'
            AND receipt_year BETWEEN 1 AND 9999 AND receipt_seq >= 1,
            0)
        END),
    CONSTRAINT orders_void_needs_number_and_reason CHECK (
        voided_at IS NULL
        OR (receipt_seq IS NOT NULL AND COALESCE(trim(void_reason), '') <> '')),
    CONSTRAINT orders_v1_identity_complete CHECK ((v1_kind IS NULL) = (v1_id IS NULL))
);
INSERT INTO new_orders (id, stringer_id, kind, customer, racket, string, tension, price_minor, currency, ordered_at, strung_at, returned_at, paid_at, receipt_year, receipt_seq, voided_at, void_reason, restring_of, v1_kind, v1_id, notes, created_at, updated_at)
    SELECT id, stringer_id, kind, customer, racket, string, tension, price_minor, currency, ordered_at, strung_at, returned_at, paid_at, receipt_year, receipt_seq, voided_at, void_reason, restring_of, v1_kind, v1_id, notes, created_at, updated_at FROM orders;
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
        NEW.receipt_year IS NOT OLD.receipt_year
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
INSERT INTO new_receipt_events (id, kind, stringer_id, year, first_seq, last_seq, order_id,
                                counter_old, counter_new, reason, created_at)
    SELECT id, kind, stringer_id, year, first_seq, last_seq, order_id, counter_old, counter_new,
           reason, created_at
    FROM receipt_events WHERE kind IN ('mint', 'void', 'resync', 'v1_import');
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

DROP TABLE issuers;
COMMIT;
PRAGMA foreign_keys = ON;
