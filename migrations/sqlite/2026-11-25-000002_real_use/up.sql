-- What a week at the counter asked for.

-- A bank transaction that needed attention (a partial or double payment, an unknown
-- reference, ...) is remembered with its outcome, so that importing it again says when it was
-- listed instead of judging it anew; and settled by hand once handled (`payments settle`).
CREATE TABLE listed_payments (
    id INTEGER PRIMARY KEY,
    stringer_id BIGINT NOT NULL REFERENCES stringers (id),
    bank_reference TEXT NOT NULL,
    -- The reference as the bank carries it, and the receipt it names.
    reference TEXT NOT NULL,
    receipt_year INTEGER NOT NULL,
    receipt_seq BIGINT NOT NULL,
    order_id BIGINT REFERENCES orders (id),
    amount_minor BIGINT NOT NULL,
    currency TEXT NOT NULL,
    booked_on DATE NOT NULL,
    outcome TEXT NOT NULL,
    file TEXT NOT NULL,
    listed_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now')),
    settled_at TIMESTAMP,
    settle_reason TEXT,
    CHECK ((settled_at IS NULL) = (settle_reason IS NULL))
);
CREATE UNIQUE INDEX listed_payments_bank_reference_key ON listed_payments (stringer_id, bank_reference);

-- The journal's kinds were a CHECK, which SQLite cannot alter: the table is rebuilt once
-- (nothing references it), and a trigger checks the kinds from now on, on both backends,
-- replaced when one is added.
CREATE TABLE new_receipt_events (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
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
                                counter_old, counter_new, reason, created_at, field, old_value,
                                new_value)
    SELECT id, kind, stringer_id, year, first_seq, last_seq, order_id, counter_old, counter_new,
           reason, created_at, field, old_value, new_value
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

CREATE TRIGGER receipt_events_known_kinds
    BEFORE INSERT ON receipt_events
    FOR EACH ROW WHEN NEW.kind NOT IN ('mint', 'void', 'resync', 'v1_import', 'edit', 'send', 'payment', 'settle')
BEGIN
    SELECT RAISE(ABORT, 'CHECK constraint failed: kind');
END;

-- How a payment came in: a bank file's is a transfer.
ALTER TABLE orders ADD COLUMN payment_method TEXT
    CHECK (payment_method IN ('cash', 'card', 'twint', 'transfer', 'other'));
UPDATE orders SET payment_method = 'transfer' WHERE id IN (SELECT order_id FROM payments);

-- France: the SIRET (not a tax number), and the name the bank holds the account in, which a
-- QR-bill's creditor and an EPC code's beneficiary carry (the business name when not given).
-- Both printed, so both frozen with each document's issuer version.
ALTER TABLE stringers ADD COLUMN siret TEXT;
ALTER TABLE stringers ADD COLUMN account_holder TEXT;
ALTER TABLE issuers ADD COLUMN siret TEXT;
ALTER TABLE issuers ADD COLUMN account_holder TEXT;

DROP TRIGGER stringers_first_issuer_version;
CREATE TRIGGER stringers_first_issuer_version
    AFTER INSERT ON stringers
BEGIN
    INSERT INTO issuers (stringer_id, name, address, email, phone, vat_number, tax_number,
                         small_business, language, timezone, street, house_number, postcode, town,
                         country, iban, bic, payment_days, siret, account_holder)
        SELECT id, name, address, email, phone, vat_number, tax_number, small_business, language,
               timezone, street, house_number, postcode, town, country, iban, bic, payment_days,
               siret, account_holder
        FROM stringers WHERE id = NEW.id;
    UPDATE stringers SET issuer_id = (SELECT max(id) FROM issuers WHERE stringer_id = NEW.id)
    WHERE id = NEW.id;
END;

DROP TRIGGER stringers_new_issuer_version;
CREATE TRIGGER stringers_new_issuer_version
    AFTER UPDATE OF name, address, email, phone, vat_number, tax_number, small_business, language,
        timezone, street, house_number, postcode, town, country, iban, bic, payment_days, siret,
        account_holder ON stringers
    FOR EACH ROW WHEN NEW.name IS NOT OLD.name OR NEW.address IS NOT OLD.address
        OR NEW.email IS NOT OLD.email OR NEW.phone IS NOT OLD.phone
        OR NEW.vat_number IS NOT OLD.vat_number OR NEW.tax_number IS NOT OLD.tax_number
        OR NEW.small_business IS NOT OLD.small_business OR NEW.language IS NOT OLD.language
        OR NEW.timezone IS NOT OLD.timezone OR NEW.street IS NOT OLD.street
        OR NEW.house_number IS NOT OLD.house_number OR NEW.postcode IS NOT OLD.postcode
        OR NEW.town IS NOT OLD.town OR NEW.country IS NOT OLD.country OR NEW.iban IS NOT OLD.iban
        OR NEW.bic IS NOT OLD.bic OR NEW.payment_days IS NOT OLD.payment_days
        OR NEW.siret IS NOT OLD.siret OR NEW.account_holder IS NOT OLD.account_holder
BEGIN
    INSERT INTO issuers (stringer_id, name, address, email, phone, vat_number, tax_number,
                         small_business, language, timezone, street, house_number, postcode, town,
                         country, iban, bic, payment_days, siret, account_holder)
        SELECT id, name, address, email, phone, vat_number, tax_number, small_business, language,
               timezone, street, house_number, postcode, town, country, iban, bic, payment_days,
               siret, account_holder
        FROM stringers WHERE id = NEW.id;
    UPDATE stringers SET issuer_id = (SELECT max(id) FROM issuers WHERE stringer_id = NEW.id)
    WHERE id = NEW.id;
END;
