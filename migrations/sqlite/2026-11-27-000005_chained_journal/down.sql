DROP TRIGGER receipt_events_known_kinds;
CREATE TRIGGER receipt_events_known_kinds
    BEFORE INSERT ON receipt_events
    FOR EACH ROW WHEN NEW.kind NOT IN ('mint', 'void', 'resync', 'v1_import', 'edit', 'send', 'payment', 'settle',
                                       'customer_merge', 'customer_forget', 'notify', 'pickup', 'credit')
BEGIN
    SELECT RAISE(ABORT, 'CHECK constraint failed: kind');
END;
DROP TRIGGER receipt_events_append_only_on_update;
CREATE TRIGGER receipt_events_append_only_on_update
    BEFORE UPDATE ON receipt_events
BEGIN
    SELECT RAISE(ABORT, 'receipt_events is an append-only journal');
END;
DROP INDEX receipt_events_chain_key;
ALTER TABLE receipt_events DROP COLUMN hash;
ALTER TABLE receipt_events DROP COLUMN prev_hash;
ALTER TABLE receipt_events DROP COLUMN seq;
DROP TABLE chain_heads;
