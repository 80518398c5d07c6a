DROP TRIGGER stringers_first_issuer_version;
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

DROP TRIGGER stringers_new_issuer_version;
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

ALTER TABLE issuers DROP COLUMN account_holder;
ALTER TABLE issuers DROP COLUMN siret;
ALTER TABLE stringers DROP COLUMN account_holder;
ALTER TABLE stringers DROP COLUMN siret;
ALTER TABLE orders DROP COLUMN payment_method;
-- The journal is append-only: entries of the new kind stay, and so does the trigger naming it.
DROP TABLE listed_payments;
