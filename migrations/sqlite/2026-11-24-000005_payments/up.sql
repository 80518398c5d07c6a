-- Payments from the bank's files: every bank transaction applied to an order, keyed by the
-- bank's own reference, so that a file imported twice, or two overlapping statements, apply
-- each transaction once. Kept for good, like the journal.
CREATE TABLE payments (
    id INTEGER PRIMARY KEY,
    stringer_id BIGINT NOT NULL REFERENCES stringers (id),
    bank_reference TEXT NOT NULL,
    order_id BIGINT NOT NULL REFERENCES orders (id),
    reference TEXT NOT NULL,
    amount_minor BIGINT NOT NULL CHECK (amount_minor > 0),
    currency TEXT NOT NULL,
    booked_on DATE NOT NULL,
    created_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now'))
);
CREATE UNIQUE INDEX payments_bank_reference_key ON payments (stringer_id, bank_reference);

CREATE TRIGGER payments_append_only_on_update
    BEFORE UPDATE ON payments
BEGIN
    SELECT RAISE(ABORT, 'payments records what the bank booked and is append-only');
END;

CREATE TRIGGER payments_append_only_on_delete
    BEFORE DELETE ON payments
BEGIN
    SELECT RAISE(ABORT, 'payments records what the bank booked and is append-only');
END;
