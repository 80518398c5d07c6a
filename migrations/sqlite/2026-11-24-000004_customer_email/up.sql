-- The customer's e-mail address, where `receipts send` delivers documents. It is delivery,
-- not what a document shows: it may change after the order is numbered (journaled).
ALTER TABLE orders ADD COLUMN email TEXT;
