DROP TRIGGER part_payments_append_only_on_delete;
DROP TRIGGER part_payments_append_only_on_update;
ALTER TABLE orders DROP COLUMN part_paid_minor;
DROP TABLE part_payments;
