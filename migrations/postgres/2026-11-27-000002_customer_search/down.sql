DROP INDEX customers_phone_trgm_idx;
DROP INDEX customers_email_trgm_idx;
DROP INDEX customers_name_trgm_idx;
DROP EXTENSION IF EXISTS pg_trgm;
