DROP INDEX receipt_events_order_idx;
