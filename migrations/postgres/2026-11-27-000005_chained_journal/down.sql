DROP TRIGGER receipt_events_chain ON receipt_events;
DROP FUNCTION receipt_events_chain();
DROP FUNCTION receipts_chain_genesis(BIGINT);
DROP FUNCTION receipts_event_canonical(receipt_events);
DROP FUNCTION receipts_canonical_field(TEXT, TEXT);
DROP FUNCTION receipts_sha256_hex(TEXT);
DROP INDEX receipt_events_chain_key;
ALTER TABLE receipt_events DROP COLUMN seq, DROP COLUMN prev_hash, DROP COLUMN hash;
DROP TABLE chain_heads;
