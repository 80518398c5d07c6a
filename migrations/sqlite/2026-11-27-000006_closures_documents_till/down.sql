DROP TABLE event_values;
DROP INDEX receipt_events_kind_idx;
ALTER TABLE receipt_events DROP COLUMN document_hash;
DROP TRIGGER receipt_events_known_kinds;
CREATE TRIGGER receipt_events_known_kinds
    BEFORE INSERT ON receipt_events
    FOR EACH ROW WHEN NEW.kind NOT IN ('mint', 'void', 'resync', 'v1_import', 'edit', 'send', 'payment', 'settle',
                                       'customer_merge', 'customer_forget', 'notify', 'pickup', 'credit', 'restore')
BEGIN
    SELECT RAISE(ABORT, 'CHECK constraint failed: kind');
END;
DROP TABLE closures;
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
SET sql = replace(sql, 'payment_method IN (''cash'', ''card'', ''twint'', ''transfer'', ''other'', ''till'')',
                       'payment_method IN (''cash'', ''card'', ''twint'', ''transfer'', ''other'')')
WHERE type = 'table' AND name = 'orders';
UPDATE sqlite_schema
SET sql = replace(sql, 'refund_method IN (''cash'', ''card'', ''twint'', ''transfer'', ''other'', ''till'', ''none'')',
                       'refund_method IN (''cash'', ''card'', ''twint'', ''transfer'', ''other'', ''none'')')
WHERE type = 'table' AND name = 'credit_notes';
PRAGMA writable_schema = RESET;
CREATE TABLE schema_cookie_moved (x INTEGER);
DROP TABLE schema_cookie_moved;
