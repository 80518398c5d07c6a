-- The day's closure (SPEC 23): numbered gapless per stringer, signed with the stringer's
-- Ed25519 key (kept outside the database), and itself an event of the chain. Keys are
-- recorded as `key` events. And the till: `till` is a payment taken through the shop's own
-- certified till, where the law wants one at the counter.

-- Widening a CHECK keeps every stored row valid, so the table's recorded definition is
-- edited in place (SQLite's documented way for such changes) instead of rebuilding the
-- orders and everything that refers to them; the DDL below moves the schema cookie on, so
-- every open connection reads the new definition.
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
SET sql = replace(sql, 'payment_method IN (''cash'', ''card'', ''twint'', ''transfer'', ''other'')',
                       'payment_method IN (''cash'', ''card'', ''twint'', ''transfer'', ''other'', ''till'')')
WHERE type = 'table' AND name = 'orders';
UPDATE sqlite_schema
SET sql = replace(sql, 'refund_method IN (''cash'', ''card'', ''twint'', ''transfer'', ''other'', ''none'')',
                       'refund_method IN (''cash'', ''card'', ''twint'', ''transfer'', ''other'', ''till'', ''none'')')
WHERE type = 'table' AND name = 'credit_notes';
PRAGMA writable_schema = RESET;

CREATE TABLE closures (
    id INTEGER PRIMARY KEY,
    stringer_id BIGINT NOT NULL REFERENCES stringers (id),
    seq BIGINT NOT NULL CHECK (seq > 0),
    day DATE NOT NULL,
    -- The events covered: first_event_seq..=event_seq of the stringer's chain.
    first_event_seq BIGINT NOT NULL CHECK (first_event_seq > 0),
    event_seq BIGINT NOT NULL CHECK (event_seq >= first_event_seq),
    event_hash TEXT NOT NULL,
    -- Canonical JSON (docs/JOURNAL.md): counts and sums per series, currency and VAT rate,
    -- voids per series, payments per method and currency; the perpetual grand totals.
    totals TEXT NOT NULL,
    grand_totals TEXT NOT NULL,
    -- The previous closure's digest (of the first: the chain's genesis).
    previous TEXT NOT NULL,
    digest TEXT NOT NULL,
    public_key TEXT NOT NULL,
    signature TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now'))
);
CREATE UNIQUE INDEX closures_seq_key ON closures (stringer_id, seq);
-- The journal's rare kinds (a key, a closure, a restore, a seal) are looked up by kind:
-- closing a day must not read a million mints to find the key.
CREATE INDEX receipt_events_kind_idx ON receipt_events (stringer_id, kind, seq);
CREATE TRIGGER closures_append_only_on_update
    BEFORE UPDATE ON closures
BEGIN
    SELECT RAISE(ABORT, 'a closure is signed and cannot change');
END;
CREATE TRIGGER closures_append_only_on_delete
    BEFORE DELETE ON closures
BEGIN
    SELECT RAISE(ABORT, 'a closure is signed and cannot change');
END;

DROP TRIGGER receipt_events_known_kinds;
CREATE TRIGGER receipt_events_known_kinds
    BEFORE INSERT ON receipt_events
    FOR EACH ROW WHEN NEW.kind NOT IN ('mint', 'void', 'resync', 'v1_import', 'edit', 'send', 'payment', 'settle',
                                       'customer_merge', 'customer_forget', 'notify', 'pickup', 'credit', 'restore',
                                       'closure', 'key', 'seal')
BEGIN
    SELECT RAISE(ABORT, 'CHECK constraint failed: kind');
END;

-- Events of a document carry the SHA-256 of its frozen content, what the document prints
-- (docs/JOURNAL.md); the program computes it in the event's transaction.
ALTER TABLE receipt_events ADD COLUMN document_hash TEXT;

-- Personal values of events (an e-mail address a document went to, internal notes, an
-- address changed) are kept here, beside their event; the event itself carries only a
-- salted digest of each, so `customer forget` can erase them and the chain still verifies.
CREATE TABLE event_values (
    event_id BIGINT PRIMARY KEY REFERENCES receipt_events (id),
    salt TEXT NOT NULL,
    old_value TEXT,
    new_value TEXT,
    created_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now'))
);
