DROP TRIGGER receipt_events_chain ON receipt_events;
DROP TRIGGER receipt_events_move_head ON receipt_events;
DROP FUNCTION receipt_events_chain();
DROP FUNCTION receipt_events_move_head();
DROP FUNCTION receipts_chain_genesis(BIGINT);
DROP FUNCTION receipts_event_canonical(receipt_events);
DROP FUNCTION receipts_canonical_field(TEXT, TEXT);
DROP FUNCTION receipts_sha256_hex(TEXT);
DROP INDEX receipt_events_chain_key;
ALTER TABLE receipt_events DROP COLUMN seq, DROP COLUMN prev_hash, DROP COLUMN hash;
DROP TABLE chain_heads;
CREATE OR REPLACE FUNCTION receipt_events_known_kinds() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.kind NOT IN ('mint', 'void', 'resync', 'v1_import', 'edit', 'send', 'payment', 'settle',
                        'customer_merge', 'customer_forget', 'notify', 'pickup', 'credit') THEN
        RAISE EXCEPTION 'receipt_events has no kind %', NEW.kind USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;
