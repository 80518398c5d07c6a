-- Part payments: money taken at the counter towards an invoice that stays open. The part
-- that settles what is left is the order's payment (`paid_at`), as a payment in full is.
-- Kept for good, like the journal; the order keeps their sum.
CREATE TABLE part_payments (
    id INTEGER PRIMARY KEY,
    stringer_id BIGINT NOT NULL REFERENCES stringers (id),
    order_id BIGINT NOT NULL REFERENCES orders (id),
    amount_minor BIGINT NOT NULL CHECK (amount_minor > 0),
    method TEXT NOT NULL,
    paid_at TIMESTAMP NOT NULL,
    created_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now'))
);
CREATE INDEX part_payments_order ON part_payments (order_id);
CREATE INDEX part_payments_paid_at ON part_payments (stringer_id, paid_at);
ALTER TABLE orders ADD COLUMN part_paid_minor BIGINT NOT NULL DEFAULT 0 CHECK (part_paid_minor >= 0);

CREATE TRIGGER part_payments_append_only_on_update
    BEFORE UPDATE ON part_payments
BEGIN
    SELECT RAISE(ABORT, 'part_payments records money received and is append-only');
END;

CREATE TRIGGER part_payments_append_only_on_delete
    BEFORE DELETE ON part_payments
BEGIN
    SELECT RAISE(ABORT, 'part_payments records money received and is append-only');
END;
