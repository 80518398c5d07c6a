DROP TABLE receipt_events;
DROP TABLE receipt_counters;
DROP TABLE orders;
DROP TABLE stringers;
