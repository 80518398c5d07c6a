CREATE OR REPLACE FUNCTION receipt_events_known_kinds() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.kind NOT IN ('mint', 'void', 'resync', 'v1_import', 'edit', 'send', 'payment', 'settle',
                        'customer_merge', 'customer_forget', 'notify', 'pickup', 'credit', 'restore',
                        'closure', 'key', 'seal') THEN
        RAISE EXCEPTION 'receipt_events has no kind %', NEW.kind USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;
DROP INDEX orders_unpaid_idx;
ALTER TABLE payments DROP COLUMN fee_minor;
DROP TABLE reminders;
DROP FUNCTION reminders_frozen();
ALTER TABLE stringers DROP COLUMN reminder_fee_3_minor;
ALTER TABLE stringers DROP COLUMN reminder_fee_2_minor;
ALTER TABLE stringers DROP COLUMN reminder_fee_1_minor;
ALTER TABLE stringers DROP COLUMN remind_from;
ALTER TABLE stringers DROP COLUMN remind_every_days;
ALTER TABLE stringers DROP COLUMN remind_after_days;
