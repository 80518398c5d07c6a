CREATE OR REPLACE FUNCTION receipt_events_known_kinds() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.kind NOT IN ('mint', 'void', 'resync', 'v1_import', 'edit', 'send', 'payment', 'settle',
                        'customer_merge', 'customer_forget', 'notify', 'pickup', 'credit', 'restore',
                        'closure', 'key', 'seal', 'reminder') THEN
        RAISE EXCEPTION 'receipt_events has no kind %', NEW.kind USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;
