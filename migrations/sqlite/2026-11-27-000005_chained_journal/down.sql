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
