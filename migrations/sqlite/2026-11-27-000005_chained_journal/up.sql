-- The journal proves itself (SPEC 23): every event carries, per stringer, a gapless `seq`,
-- the previous event's hash and its own (docs/JOURNAL.md). On SQLite the program chains
-- each event in the transaction that writes it (`db::chain`); the events written before
-- are chained by the program right after this migration, in the order they were written.
CREATE TABLE chain_heads (
    stringer_id BIGINT PRIMARY KEY REFERENCES stringers (id),
    seq BIGINT NOT NULL CHECK (seq >= 0),
    hash TEXT NOT NULL,
    at TIMESTAMP NOT NULL,
    -- The first event chained as it was written: documents issued by it and later print a
    -- check value of their event's hash; those chained afterwards by the migration stay as
    -- they were.
    live_from BIGINT NOT NULL DEFAULT 1,
    updated_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now'))
);
ALTER TABLE receipt_events ADD COLUMN seq BIGINT;
ALTER TABLE receipt_events ADD COLUMN prev_hash TEXT;
ALTER TABLE receipt_events ADD COLUMN hash TEXT;
CREATE UNIQUE INDEX receipt_events_chain_key ON receipt_events (stringer_id, seq);
-- An event is never changed once chained; an event written before the chain existed is
-- chained once.
DROP TRIGGER receipt_events_append_only_on_update;
CREATE TRIGGER receipt_events_append_only_on_update
    BEFORE UPDATE ON receipt_events
    WHEN OLD.hash IS NOT NULL
BEGIN
    SELECT RAISE(ABORT, 'receipt_events is an append-only journal');
END;

-- A restore declared by `resync-counters` is an event of its own.
DROP TRIGGER receipt_events_known_kinds;
CREATE TRIGGER receipt_events_known_kinds
    BEFORE INSERT ON receipt_events
    FOR EACH ROW WHEN NEW.kind NOT IN ('mint', 'void', 'resync', 'v1_import', 'edit', 'send', 'payment', 'settle',
                                       'customer_merge', 'customer_forget', 'notify', 'pickup', 'credit', 'restore')
BEGIN
    SELECT RAISE(ABORT, 'CHECK constraint failed: kind');
END;
