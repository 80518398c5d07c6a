DROP TRIGGER receipt_events_known_kinds;
CREATE TRIGGER receipt_events_known_kinds
    BEFORE INSERT ON receipt_events
    FOR EACH ROW WHEN NEW.kind NOT IN ('mint', 'void', 'resync', 'v1_import', 'edit', 'send', 'payment', 'settle',
                                       'customer_merge', 'customer_forget', 'notify', 'pickup', 'credit', 'restore',
                                       'closure', 'key', 'seal', 'reminder', 'profile')
BEGIN
    SELECT RAISE(ABORT, 'CHECK constraint failed: kind');
END;

DROP TRIGGER orders_keep_buyer_ids;
ALTER TABLE stringers DROP COLUMN einvoice;
ALTER TABLE orders DROP COLUMN customer_business;
ALTER TABLE customers DROP COLUMN business;
