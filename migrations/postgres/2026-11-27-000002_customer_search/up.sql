-- Searching the register (SPEC 18) from an index: names, e-mails and phone digits by their
-- trigrams, so `LIKE '%text%'` no longer reads every customer of the shop. pg_trgm is a
-- trusted extension: the database's owner, who runs the migrations, may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX customers_name_trgm_idx ON customers USING gin (search_name gin_trgm_ops);
CREATE INDEX customers_email_trgm_idx ON customers USING gin (search_email gin_trgm_ops);
CREATE INDEX customers_phone_trgm_idx ON customers USING gin (phone_digits gin_trgm_ops);
