-- The journal is append-only: entries of the new kinds stay, and so do the kinds.
DROP TABLE string_moves;
DROP TABLE strings;
DROP TABLE order_items;
DROP TRIGGER orders_keep_items;
DROP INDEX orders_paid_idx;
DROP INDEX orders_waiting_idx;
DROP INDEX orders_open_idx;
ALTER TABLE orders DROP COLUMN cross_string;
ALTER TABLE orders DROP COLUMN own_string;
ALTER TABLE orders DROP COLUMN string_length_cm;
ALTER TABLE orders DROP COLUMN item_count;
ALTER TABLE orders DROP COLUMN items_minor;
ALTER TABLE orders DROP COLUMN notified_at;
ALTER TABLE orders DROP COLUMN due_at;
ALTER TABLE stringers DROP COLUMN pickup_note;
ALTER TABLE stringers DROP COLUMN turnaround_hours;
