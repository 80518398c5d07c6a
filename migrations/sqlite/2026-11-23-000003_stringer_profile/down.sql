ALTER TABLE stringers DROP COLUMN language;
ALTER TABLE stringers DROP COLUMN vat_number;
ALTER TABLE stringers DROP COLUMN phone;
ALTER TABLE stringers DROP COLUMN email;
ALTER TABLE stringers DROP COLUMN address;
