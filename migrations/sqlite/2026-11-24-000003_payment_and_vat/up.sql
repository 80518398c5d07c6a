-- Getting paid and VAT: the rates a VAT-registered stringer charges, from a date on; the
-- rate in force frozen with each document when it is numbered (by the program: SQLite does
-- not know time zones); the customer's address (lines for people, and structured fields for
-- a QR-bill's debtor); the currency a stringer's new orders take.
CREATE TABLE vat_rates (
    stringer_id BIGINT NOT NULL REFERENCES stringers (id),
    valid_from DATE NOT NULL,
    -- In hundredths of a percent: 8.1 % is 810.
    rate_bp INTEGER NOT NULL CHECK (rate_bp BETWEEN 0 AND 10000),
    created_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now')),
    PRIMARY KEY (stringer_id, valid_from)
);

ALTER TABLE stringers ADD COLUMN currency TEXT NOT NULL DEFAULT 'CHF' CHECK (currency GLOB '[A-Z][A-Z][A-Z]');

ALTER TABLE orders ADD COLUMN vat_rate_bp INTEGER CHECK (vat_rate_bp BETWEEN 0 AND 10000);
ALTER TABLE orders ADD COLUMN customer_address TEXT;
-- street, house number, postcode, town and country code, one per line
ALTER TABLE orders ADD COLUMN customer_postal TEXT;

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
        OR NEW.customer_note IS NOT OLD.customer_note
        OR NEW.customer_address IS NOT OLD.customer_address
        OR NEW.customer_postal IS NOT OLD.customer_postal
        OR NEW.vat_rate_bp IS NOT OLD.vat_rate_bp)
BEGIN
    SELECT RAISE(ABORT, 'an issued receipt''s document cannot change: what it shows cannot change');
END;

