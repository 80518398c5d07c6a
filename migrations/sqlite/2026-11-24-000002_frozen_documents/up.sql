-- An issued document never changes. What a receipt shows of its issuer is frozen when the
-- order is numbered: `issuers` keeps every version of a stringer's business profile (a new
-- row whenever a printed field changes, never updated or deleted), and a numbered order
-- points at the version in force when it was numbered. The order's own printed fields
-- (customer, work, price, the note for the customer) cannot change once it has a number.
-- Internal `notes` stay internal; `customer_note` is what the document prints.
--
-- The journal's kinds are a CHECK, which SQLite cannot alter: receipt_events is rebuilt.
PRAGMA foreign_keys = OFF;
BEGIN IMMEDIATE;

ALTER TABLE stringers ADD COLUMN tax_number TEXT;
ALTER TABLE stringers ADD COLUMN small_business BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE stringers ADD COLUMN street TEXT;
ALTER TABLE stringers ADD COLUMN house_number TEXT;
ALTER TABLE stringers ADD COLUMN postcode TEXT;
ALTER TABLE stringers ADD COLUMN town TEXT;
ALTER TABLE stringers ADD COLUMN country TEXT CHECK (country GLOB '[A-Z][A-Z]');
ALTER TABLE stringers ADD COLUMN iban TEXT;
ALTER TABLE stringers ADD COLUMN bic TEXT;
ALTER TABLE stringers ADD COLUMN payment_days INTEGER NOT NULL DEFAULT 30 CHECK (payment_days BETWEEN 0 AND 365);

CREATE TABLE issuers (
    id INTEGER PRIMARY KEY,
    stringer_id BIGINT NOT NULL REFERENCES stringers (id),
    name TEXT NOT NULL,
    address TEXT,
    email TEXT,
    phone TEXT,
    vat_number TEXT,
    tax_number TEXT,
    small_business BOOLEAN NOT NULL,
    language TEXT,
    timezone TEXT NOT NULL,
    street TEXT,
    house_number TEXT,
    postcode TEXT,
    town TEXT,
    country TEXT,
    iban TEXT,
    bic TEXT,
    payment_days INTEGER NOT NULL,
    created_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now'))
);
CREATE INDEX issuers_stringer_idx ON issuers (stringer_id);

ALTER TABLE stringers ADD COLUMN issuer_id BIGINT REFERENCES issuers (id);
ALTER TABLE orders ADD COLUMN issuer_id BIGINT REFERENCES issuers (id);
ALTER TABLE orders ADD COLUMN customer_note TEXT;

-- Today's profiles become the first versions, and today's numbered orders are frozen with
-- what they show now (their notes were printed: they become the note for the customer).
INSERT INTO issuers (stringer_id, name, address, email, phone, vat_number, tax_number,
                     small_business, language, timezone, street, house_number, postcode, town,
                     country, iban, bic, payment_days)
    SELECT id, name, address, email, phone, vat_number, tax_number, small_business, language,
           timezone, street, house_number, postcode, town, country, iban, bic, payment_days
    FROM stringers;
UPDATE stringers SET issuer_id = (SELECT max(i.id) FROM issuers i WHERE i.stringer_id = stringers.id);
UPDATE orders
SET issuer_id = (SELECT s.issuer_id FROM stringers s WHERE s.id = orders.stringer_id),
    customer_note = notes
WHERE receipt_seq IS NOT NULL;

-- Every stringer has a current version; a change of a printed field makes a new one.
CREATE TRIGGER stringers_first_issuer_version
    AFTER INSERT ON stringers
BEGIN
    INSERT INTO issuers (stringer_id, name, address, email, phone, vat_number, tax_number,
                         small_business, language, timezone, street, house_number, postcode, town,
                         country, iban, bic, payment_days)
        SELECT id, name, address, email, phone, vat_number, tax_number, small_business, language,
               timezone, street, house_number, postcode, town, country, iban, bic, payment_days
        FROM stringers WHERE id = NEW.id;
    UPDATE stringers SET issuer_id = (SELECT max(id) FROM issuers WHERE stringer_id = NEW.id)
    WHERE id = NEW.id;
END;

CREATE TRIGGER stringers_new_issuer_version
    AFTER UPDATE OF name, address, email, phone, vat_number, tax_number, small_business, language,
        timezone, street, house_number, postcode, town, country, iban, bic, payment_days ON stringers
    FOR EACH ROW WHEN NEW.name IS NOT OLD.name OR NEW.address IS NOT OLD.address
        OR NEW.email IS NOT OLD.email OR NEW.phone IS NOT OLD.phone
        OR NEW.vat_number IS NOT OLD.vat_number OR NEW.tax_number IS NOT OLD.tax_number
        OR NEW.small_business IS NOT OLD.small_business OR NEW.language IS NOT OLD.language
        OR NEW.timezone IS NOT OLD.timezone OR NEW.street IS NOT OLD.street
        OR NEW.house_number IS NOT OLD.house_number OR NEW.postcode IS NOT OLD.postcode
        OR NEW.town IS NOT OLD.town OR NEW.country IS NOT OLD.country OR NEW.iban IS NOT OLD.iban
        OR NEW.bic IS NOT OLD.bic OR NEW.payment_days IS NOT OLD.payment_days
BEGIN
    INSERT INTO issuers (stringer_id, name, address, email, phone, vat_number, tax_number,
                         small_business, language, timezone, street, house_number, postcode, town,
                         country, iban, bic, payment_days)
        SELECT id, name, address, email, phone, vat_number, tax_number, small_business, language,
               timezone, street, house_number, postcode, town, country, iban, bic, payment_days
        FROM stringers WHERE id = NEW.id;
    UPDATE stringers SET issuer_id = (SELECT max(id) FROM issuers WHERE stringer_id = NEW.id)
    WHERE id = NEW.id;
END;

CREATE TRIGGER issuers_append_only_on_update
    BEFORE UPDATE ON issuers
BEGIN
    SELECT RAISE(ABORT, 'issuers keeps what issued documents show and is append-only');
END;

CREATE TRIGGER issuers_append_only_on_delete
    BEFORE DELETE ON issuers
BEGIN
    SELECT RAISE(ABORT, 'issuers keeps what issued documents show and is append-only');
END;

-- Numbering freezes: whoever numbers an order (the mint, an import, a hand-written repair),
-- it takes its stringer's current issuer version. Once numbered, what the document shows
-- cannot change.
CREATE TRIGGER orders_freeze_on_insert
    AFTER INSERT ON orders
    FOR EACH ROW WHEN NEW.receipt_seq IS NOT NULL AND NEW.issuer_id IS NULL
BEGIN
    UPDATE orders SET issuer_id = (SELECT issuer_id FROM stringers WHERE id = NEW.stringer_id)
    WHERE id = NEW.id;
END;

CREATE TRIGGER orders_freeze_on_numbering
    AFTER UPDATE OF receipt_seq, issuer_id ON orders
    FOR EACH ROW WHEN NEW.receipt_seq IS NOT NULL AND NEW.issuer_id IS NULL
BEGIN
    UPDATE orders SET issuer_id = (SELECT issuer_id FROM stringers WHERE id = NEW.stringer_id)
    WHERE id = NEW.id;
END;

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

-- The journal records every change of a numbered order, with its old and new value.
CREATE TABLE new_receipt_events (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('mint', 'void', 'resync', 'v1_import', 'edit', 'send', 'payment')),
    stringer_id BIGINT NOT NULL REFERENCES stringers (id),
    year INTEGER NOT NULL,
    first_seq BIGINT,
    last_seq BIGINT,
    order_id BIGINT REFERENCES orders (id),
    counter_old BIGINT,
    counter_new BIGINT,
    reason TEXT,
    created_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now')),
    field TEXT,
    old_value TEXT,
    new_value TEXT
);
INSERT INTO new_receipt_events (id, kind, stringer_id, year, first_seq, last_seq, order_id,
                                counter_old, counter_new, reason, created_at)
    SELECT id, kind, stringer_id, year, first_seq, last_seq, order_id, counter_old, counter_new,
           reason, created_at
    FROM receipt_events;
DROP TABLE receipt_events;
ALTER TABLE new_receipt_events RENAME TO receipt_events;
CREATE INDEX receipt_events_stringer_year_idx ON receipt_events (stringer_id, year);

CREATE TRIGGER receipt_events_append_only_on_update
    BEFORE UPDATE ON receipt_events
BEGIN
    SELECT RAISE(ABORT, 'receipt_events is an append-only journal');
END;

CREATE TRIGGER receipt_events_append_only_on_delete
    BEFORE DELETE ON receipt_events
BEGIN
    SELECT RAISE(ABORT, 'receipt_events is an append-only journal');
END;

COMMIT;
PRAGMA foreign_keys = ON;
