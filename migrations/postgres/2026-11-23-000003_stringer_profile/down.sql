ALTER TABLE stringers
    DROP COLUMN address,
    DROP COLUMN email,
    DROP COLUMN phone,
    DROP COLUMN vat_number,
    DROP COLUMN language;
