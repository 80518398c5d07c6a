DROP FUNCTION receipts_credit_now(BIGINT, TEXT, BIGINT, TEXT, TEXT, TIMESTAMP, TEXT);
DROP FUNCTION receipts_vat_included(BIGINT, INTEGER);
CREATE OR REPLACE FUNCTION receipt_events_known_kinds() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.kind NOT IN ('mint', 'void', 'resync', 'v1_import', 'edit', 'send', 'payment', 'settle',
                        'customer_merge', 'customer_forget', 'notify', 'pickup') THEN
        RAISE EXCEPTION 'receipt_events has no kind %', NEW.kind USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;
DROP TRIGGER orders_credit_only_grows ON orders;
DROP FUNCTION orders_credit_only_grows();
ALTER TABLE orders DROP COLUMN credited_minor;
DROP TABLE credit_notes;
DROP FUNCTION credit_notes_append_only();
DROP TABLE credit_counters;
