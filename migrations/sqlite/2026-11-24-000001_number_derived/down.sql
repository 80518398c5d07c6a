-- Back to a stored text beside its parts, checked to agree with them.
PRAGMA foreign_keys = OFF;
BEGIN IMMEDIATE;

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
INSERT INTO new_orders (id, stringer_id, kind, customer, racket, string, tension, price_minor, currency, ordered_at, strung_at, returned_at, paid_at, receipt_number, receipt_year, receipt_seq, voided_at, void_reason, restring_of, v1_kind, v1_id, notes, created_at, updated_at)
    SELECT id, stringer_id, kind, customer, racket, string, tension, price_minor, currency, ordered_at, strung_at, returned_at, paid_at, receipt_number, receipt_year, receipt_seq, voided_at, void_reason, restring_of, v1_kind, v1_id, notes, created_at, updated_at FROM orders;
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

COMMIT;
PRAGMA foreign_keys = ON;
