DROP TABLE receipt_events;
DROP FUNCTION receipt_events_append_only();
DROP TABLE receipt_counters;
DROP TABLE orders;
DROP FUNCTION orders_keep_issued_numbers();
DROP TABLE stringers;
