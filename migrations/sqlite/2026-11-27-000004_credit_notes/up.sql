-- Credit notes: a document the customer holds is taken back by another that names it, in
-- its own gapless series per (stringer, year of issue), printed C-YYYY-NNNN.
CREATE TABLE credit_counters (
    stringer_id BIGINT NOT NULL REFERENCES stringers (id),
    year INTEGER NOT NULL CHECK (year BETWEEN 1900 AND 9999),
    last_n BIGINT NOT NULL CHECK (last_n >= 0),
    created_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now')),
    updated_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now')),
    PRIMARY KEY (stringer_id, year)
);

-- A row without an order holds a credit number that was issued and lost (`void --number
-- C-...`): no amount, the reason says why.
CREATE TABLE credit_notes (
    id INTEGER PRIMARY KEY,
    stringer_id BIGINT NOT NULL REFERENCES stringers (id),
    order_id BIGINT REFERENCES orders (id),
    credit_year INTEGER NOT NULL CHECK (credit_year BETWEEN 1900 AND 9999),
    credit_seq BIGINT NOT NULL CHECK (credit_seq > 0),
    credit_number TEXT GENERATED ALWAYS AS ('C-' || printf('%04d-%04d', credit_year, credit_seq)) STORED,
    issued_at TIMESTAMP NOT NULL,
    amount_minor BIGINT NOT NULL CHECK (amount_minor >= 0),
    currency TEXT NOT NULL,
    vat_rate_bp INTEGER CHECK (vat_rate_bp BETWEEN 0 AND 10000),
    vat_minor BIGINT NOT NULL DEFAULT 0,
    reason TEXT NOT NULL CHECK (reason <> ''),
    refund_method TEXT NOT NULL CHECK (refund_method IN ('cash', 'card', 'twint', 'transfer', 'other', 'none')),
    -- Frozen with the document: the original's issuer version, what earlier credit notes
    -- had taken back, and whether this one completed the total.
    issuer_id BIGINT REFERENCES issuers (id),
    credited_before_minor BIGINT NOT NULL DEFAULT 0 CHECK (credited_before_minor >= 0),
    completes BOOLEAN NOT NULL DEFAULT FALSE,
    -- The counter's form's one-time token: the same form posted twice issues one credit note.
    request_token TEXT,
    created_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now')),
    CHECK ((order_id IS NULL) = (amount_minor = 0))
);
CREATE UNIQUE INDEX credit_notes_number_key ON credit_notes (stringer_id, credit_year, credit_seq);
CREATE INDEX credit_notes_order_idx ON credit_notes (order_id) WHERE order_id IS NOT NULL;
CREATE UNIQUE INDEX credit_notes_request_key ON credit_notes (stringer_id, request_token)
    WHERE request_token IS NOT NULL;
CREATE TRIGGER credit_notes_append_only_on_update
    BEFORE UPDATE ON credit_notes
BEGIN
    SELECT RAISE(ABORT, 'a credit note is issued and cannot change');
END;
CREATE TRIGGER credit_notes_append_only_on_delete
    BEFORE DELETE ON credit_notes
BEGIN
    SELECT RAISE(ABORT, 'a credit note is issued and cannot change');
END;

-- What the order's credit notes took back in all, kept with the order so the lists of what
-- is owed need no join; it only ever grows.
ALTER TABLE orders ADD COLUMN credited_minor BIGINT NOT NULL DEFAULT 0 CHECK (credited_minor >= 0);
CREATE TRIGGER orders_credit_only_grows
    BEFORE UPDATE OF credited_minor ON orders
    FOR EACH ROW WHEN NEW.credited_minor < OLD.credited_minor
BEGIN
    SELECT RAISE(ABORT, 'an order cannot be credited less');
END;

DROP TRIGGER receipt_events_known_kinds;
CREATE TRIGGER receipt_events_known_kinds
    BEFORE INSERT ON receipt_events
    FOR EACH ROW WHEN NEW.kind NOT IN ('mint', 'void', 'resync', 'v1_import', 'edit', 'send', 'payment', 'settle',
                                       'customer_merge', 'customer_forget', 'notify', 'pickup', 'credit')
BEGIN
    SELECT RAISE(ABORT, 'CHECK constraint failed: kind');
END;
