-- The journal is append-only: entries of the new kinds stay, and so do the kinds.
DROP INDEX orders_racket_idx;
DROP INDEX orders_customer_idx;
ALTER TABLE orders DROP COLUMN racket_id, DROP COLUMN customer_id;
DROP TABLE rackets;
DROP TABLE customers;
