CREATE OR REPLACE FUNCTION receipt_events_known_kinds() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.kind NOT IN ('mint', 'void', 'resync', 'v1_import', 'edit', 'send', 'payment', 'settle',
                        'customer_merge', 'customer_forget', 'notify', 'pickup', 'credit', 'restore') THEN
        RAISE EXCEPTION 'receipt_events has no kind %', NEW.kind USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;
DROP TABLE closures;
DROP FUNCTION closures_append_only();
ALTER TABLE credit_notes DROP CONSTRAINT credit_notes_refund_method_check,
    ADD CONSTRAINT credit_notes_refund_method_check
        CHECK (refund_method IN ('cash', 'card', 'twint', 'transfer', 'other', 'none'));
ALTER TABLE orders DROP CONSTRAINT orders_payment_method_check,
    ADD CONSTRAINT orders_payment_method_check
        CHECK (payment_method IN ('cash', 'card', 'twint', 'transfer', 'other'));
