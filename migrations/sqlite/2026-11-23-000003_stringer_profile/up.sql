-- The stringer's business profile, printed on every receipt: address (lines separated by
-- newlines), contact, the VAT number of a VAT-registered business (only then does a
-- receipt show VAT), and the language receipts are written in (NULL: English).
ALTER TABLE stringers ADD COLUMN address TEXT;
ALTER TABLE stringers ADD COLUMN email TEXT;
ALTER TABLE stringers ADD COLUMN phone TEXT;
ALTER TABLE stringers ADD COLUMN vat_number TEXT;
ALTER TABLE stringers ADD COLUMN language TEXT CHECK (language IN ('en', 'de', 'fr', 'it'));
