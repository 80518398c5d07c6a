DROP TRIGGER receipt_events_refuse_truncate ON receipt_events;
DROP TRIGGER receipt_counters_refuse_truncate ON receipt_counters;
DROP TRIGGER orders_refuse_truncate ON orders;
DROP FUNCTION receipts_refuse_truncate();

ALTER TABLE receipt_events ALTER COLUMN created_at DROP DEFAULT;
ALTER TABLE receipt_counters ALTER COLUMN created_at DROP DEFAULT, ALTER COLUMN updated_at DROP DEFAULT;
ALTER TABLE orders ALTER COLUMN created_at DROP DEFAULT, ALTER COLUMN updated_at DROP DEFAULT;
ALTER TABLE stringers ALTER COLUMN created_at DROP DEFAULT, ALTER COLUMN updated_at DROP DEFAULT;

-- Handles stay in lowercase: the case they had is not kept.
ALTER TABLE stringers DROP CONSTRAINT stringers_handle_lowercase;
