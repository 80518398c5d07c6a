DROP FUNCTION receipts_fold(TEXT);
DROP FUNCTION receipts_mint_now(BIGINT, TEXT, TIMESTAMP, TEXT);
DROP FUNCTION receipts_mint(BIGINT, BIGINT, INTEGER, TIMESTAMP, TIMESTAMP, TEXT, BOOLEAN, DATE, BOOLEAN, TEXT);
CREATE FUNCTION receipts_mint(
    p_order BIGINT, p_stringer BIGINT, p_year INTEGER,
    p_strung_at TIMESTAMP, p_now TIMESTAMP, p_lock_timeout TEXT, p_backdate BOOLEAN,
    p_local_date DATE
) RETURNS BIGINT LANGUAGE plpgsql AS $$
DECLARE
    seq BIGINT;
    order_kind TEXT;
    price BIGINT;
    charges_vat BOOLEAN;
    rate INTEGER;
    before_seq BIGINT;
    before_at TIMESTAMP;
    backdated TEXT;
BEGIN
    IF p_lock_timeout IS NOT NULL THEN
        PERFORM set_config('lock_timeout', p_lock_timeout, true);
    END IF;
    SELECT kind, price_minor INTO order_kind, price FROM orders
    WHERE id = p_order AND stringer_id = p_stringer AND receipt_seq IS NULL
    FOR UPDATE;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    IF order_kind = 'client' AND price IS NULL THEN
        RAISE EXCEPTION 'receipts: no price';
    END IF;
    -- The VAT rate in force on the local strung date, frozen with the document.
    SELECT i.vat_number IS NOT NULL AND NOT i.small_business INTO charges_vat
    FROM stringers s JOIN issuers i ON i.id = s.issuer_id WHERE s.id = p_stringer;
    IF charges_vat THEN
        SELECT rate_bp INTO rate FROM vat_rates
        WHERE stringer_id = p_stringer AND valid_from <= p_local_date
        ORDER BY valid_from DESC LIMIT 1;
        IF rate IS NULL THEN
            RAISE EXCEPTION 'receipts: no vat rate';
        END IF;
    END IF;
    INSERT INTO receipt_counters AS c (stringer_id, year, last_n, created_at, updated_at)
    VALUES (p_stringer, p_year, 1, p_now, p_now)
    ON CONFLICT (stringer_id, year)
    DO UPDATE SET last_n = c.last_n + 1, updated_at = EXCLUDED.updated_at
    RETURNING last_n INTO seq;
    IF p_backdate IS NOT NULL THEN
        SELECT receipt_seq, strung_at INTO before_seq, before_at FROM orders
        WHERE stringer_id = p_stringer AND receipt_year = p_year AND receipt_seq < seq
          AND strung_at IS NOT NULL AND receipt_number IS NOT NULL
        ORDER BY receipt_seq DESC LIMIT 1;
        IF before_at > p_strung_at THEN
            IF NOT p_backdate THEN
                RAISE EXCEPTION 'receipts: out of order';
            END IF;
            backdated := 'backdated: strung before ' || receipts_number_text(p_year, before_seq);
        END IF;
    END IF;
    UPDATE orders
    SET strung_at = p_strung_at, receipt_year = p_year, receipt_seq = seq, vat_rate_bp = rate,
        updated_at = p_now
    WHERE id = p_order;
    INSERT INTO receipt_events
        (kind, stringer_id, year, first_seq, last_seq, order_id, counter_old, counter_new, reason, created_at)
    VALUES ('mint', p_stringer, p_year, seq, seq, p_order, seq - 1, seq, backdated, p_now);
    RETURN seq;
EXCEPTION
    WHEN lock_not_available THEN
        RAISE EXCEPTION 'receipts: lock timeout' USING ERRCODE = 'serialization_failure';
    WHEN deadlock_detected THEN
        RAISE EXCEPTION 'receipts: deadlock' USING ERRCODE = 'serialization_failure';
END;
$$;

CREATE FUNCTION receipts_mint_now(p_order BIGINT, p_handle TEXT, p_strung_at TIMESTAMP, p_lock_timeout TEXT)
RETURNS TABLE (o_stringer BIGINT, o_handle TEXT, o_zone TEXT, o_year INTEGER, o_seq BIGINT)
LANGUAGE plpgsql AS $$
DECLARE
    local_at TIMESTAMP;
BEGIN
    PERFORM set_config('lock_timeout', p_lock_timeout, true);
    SELECT s.id, s.handle, s.timezone INTO o_stringer, o_handle, o_zone
    FROM orders o JOIN stringers s ON s.id = o.stringer_id
    WHERE o.id = p_order AND (p_handle IS NULL OR s.handle = p_handle);
    IF NOT FOUND THEN
        RETURN;
    END IF;
    BEGIN
        local_at := (p_strung_at AT TIME ZONE 'UTC') AT TIME ZONE o_zone;
    EXCEPTION WHEN invalid_parameter_value THEN
        RETURN;
    END;
    o_year := EXTRACT(YEAR FROM local_at);
    o_seq := receipts_mint(p_order, o_stringer, o_year, p_strung_at, p_strung_at, NULL, NULL, local_at::date);
    RETURN NEXT;
EXCEPTION
    WHEN lock_not_available THEN
        RAISE EXCEPTION 'receipts: lock timeout' USING ERRCODE = 'serialization_failure';
    WHEN deadlock_detected THEN
        RAISE EXCEPTION 'receipts: deadlock' USING ERRCODE = 'serialization_failure';
END;
$$;

CREATE OR REPLACE FUNCTION receipts_snapshot_issuer(p_stringer BIGINT) RETURNS BIGINT LANGUAGE plpgsql AS $$
DECLARE
    version BIGINT;
BEGIN
    INSERT INTO issuers (stringer_id, name, address, email, phone, vat_number, tax_number,
                         small_business, language, timezone, street, house_number, postcode, town,
                         country, iban, bic, payment_days)
    SELECT id, name, address, email, phone, vat_number, tax_number, small_business, language,
           timezone, street, house_number, postcode, town, country, iban, bic, payment_days
    FROM stringers WHERE id = p_stringer
    RETURNING id INTO version;
    UPDATE stringers SET issuer_id = version WHERE id = p_stringer;
    RETURN version;
END;
$$;

CREATE OR REPLACE FUNCTION stringers_keep_issuer_versions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' OR (OLD.name, OLD.address, OLD.email, OLD.phone, OLD.vat_number,
            OLD.tax_number, OLD.small_business, OLD.language, OLD.timezone, OLD.street,
            OLD.house_number, OLD.postcode, OLD.town, OLD.country, OLD.iban, OLD.bic,
            OLD.payment_days)
        IS DISTINCT FROM (NEW.name, NEW.address, NEW.email, NEW.phone, NEW.vat_number,
            NEW.tax_number, NEW.small_business, NEW.language, NEW.timezone, NEW.street,
            NEW.house_number, NEW.postcode, NEW.town, NEW.country, NEW.iban, NEW.bic,
            NEW.payment_days) THEN
        PERFORM receipts_snapshot_issuer(NEW.id);
    END IF;
    RETURN NULL;
END;
$$;

ALTER TABLE issuers DROP COLUMN siret, DROP COLUMN account_holder;
ALTER TABLE stringers DROP COLUMN siret, DROP COLUMN account_holder;
ALTER TABLE orders DROP COLUMN payment_method;
-- The journal is append-only: entries of the new kind stay, so the check names it.
DROP TRIGGER receipt_events_known_kinds ON receipt_events;
DROP FUNCTION receipt_events_known_kinds();
ALTER TABLE receipt_events ADD CONSTRAINT receipt_events_kind_check
    CHECK (kind IN ('mint', 'void', 'resync', 'v1_import', 'edit', 'send', 'payment', 'settle'));
DROP TABLE listed_payments;
