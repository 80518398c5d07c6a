DROP TRIGGER receipt_events_known_kinds;
CREATE TRIGGER receipt_events_known_kinds
    BEFORE INSERT ON receipt_events
    FOR EACH ROW WHEN NEW.kind NOT IN ('mint', 'void', 'resync', 'v1_import', 'edit', 'send', 'payment', 'settle',
                                       'customer_merge', 'customer_forget', 'notify', 'pickup', 'credit', 'restore',
                                       'closure', 'key', 'seal')
BEGIN
    SELECT RAISE(ABORT, 'CHECK constraint failed: kind');
END;
DROP INDEX orders_unpaid_idx;
ALTER TABLE payments DROP COLUMN fee_minor;
DROP TABLE reminders;
ALTER TABLE stringers DROP COLUMN reminder_fee_3_minor;
ALTER TABLE stringers DROP COLUMN reminder_fee_2_minor;
ALTER TABLE stringers DROP COLUMN reminder_fee_1_minor;
ALTER TABLE stringers DROP COLUMN remind_from;
ALTER TABLE stringers DROP COLUMN remind_every_days;
ALTER TABLE stringers DROP COLUMN remind_after_days;
