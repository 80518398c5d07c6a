DROP TABLE payments;
DROP FUNCTION payments_append_only();
