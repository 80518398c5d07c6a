DROP TRIGGER orders_keep_documents;
CREATE TRIGGER orders_keep_documents
    BEFORE UPDATE ON orders
    FOR EACH ROW WHEN OLD.receipt_seq IS NOT NULL AND (
        (OLD.issuer_id IS NOT NULL AND NEW.issuer_id IS NOT OLD.issuer_id)
        OR NEW.kind IS NOT OLD.kind
        OR NEW.customer IS NOT OLD.customer
        OR NEW.racket IS NOT OLD.racket
        OR NEW.string IS NOT OLD.string
        OR NEW.tension IS NOT OLD.tension
        OR NEW.price_minor IS NOT OLD.price_minor
        OR NEW.currency IS NOT OLD.currency
        OR NEW.customer_note IS NOT OLD.customer_note)
BEGIN
    SELECT RAISE(ABORT, 'an issued receipt''s document cannot change: what it shows cannot change');
END;

ALTER TABLE orders DROP COLUMN customer_postal;
ALTER TABLE orders DROP COLUMN customer_address;
ALTER TABLE orders DROP COLUMN vat_rate_bp;
ALTER TABLE stringers DROP COLUMN currency;
DROP TABLE vat_rates;
