-- Getting paid and VAT: the rates a VAT-registered stringer charges, from a date on; the
-- rate in force frozen with each document when it is numbered; the customer's address
-- (lines for people, and structured for a QR-bill's debtor); the currency a
-- stringer's new orders take.
CREATE TABLE vat_rates (
    stringer_id BIGINT NOT NULL REFERENCES stringers (id),
    valid_from DATE NOT NULL,
    -- In hundredths of a percent: 8.1 % is 810.
    rate_bp INTEGER NOT NULL CHECK (rate_bp BETWEEN 0 AND 10000),
    created_at TIMESTAMP NOT NULL DEFAULT (now() AT TIME ZONE 'UTC'),
    PRIMARY KEY (stringer_id, valid_from)
);

ALTER TABLE stringers ADD COLUMN currency TEXT NOT NULL DEFAULT 'CHF' CHECK (currency ~ '^[A-Z]{3}$');

ALTER TABLE orders
    ADD COLUMN vat_rate_bp INTEGER CHECK (vat_rate_bp BETWEEN 0 AND 10000),
    ADD COLUMN customer_address TEXT,
    -- street, house number, postcode, town and country code, one per line
    ADD COLUMN customer_postal TEXT;

CREATE OR REPLACE FUNCTION orders_keep_issued_numbers() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF OLD.receipt_number IS NOT NULL THEN
            RAISE EXCEPTION 'order % has receipt number % and cannot be deleted; void it instead',
                OLD.id, OLD.receipt_number;
        END IF;
        RETURN OLD;
    END IF;
    IF NEW.receipt_seq IS NOT NULL AND NEW.issuer_id IS NULL THEN
        NEW.issuer_id := (SELECT issuer_id FROM stringers WHERE id = NEW.stringer_id);
    END IF;
    IF TG_OP = 'INSERT' THEN
        RETURN NEW;
    END IF;
    IF OLD.receipt_number IS NOT NULL AND (
        NEW.receipt_year IS DISTINCT FROM OLD.receipt_year
        OR NEW.receipt_seq IS DISTINCT FROM OLD.receipt_seq
        OR NEW.stringer_id IS DISTINCT FROM OLD.stringer_id) THEN
        RAISE EXCEPTION 'order % has receipt number % which cannot change',
            OLD.id, OLD.receipt_number;
    END IF;
    IF OLD.receipt_number IS NOT NULL AND (
        NEW.issuer_id IS DISTINCT FROM OLD.issuer_id
        OR NEW.kind IS DISTINCT FROM OLD.kind
        OR NEW.customer IS DISTINCT FROM OLD.customer
        OR NEW.racket IS DISTINCT FROM OLD.racket
        OR NEW.string IS DISTINCT FROM OLD.string
        OR NEW.tension IS DISTINCT FROM OLD.tension
        OR NEW.price_minor IS DISTINCT FROM OLD.price_minor
        OR NEW.currency IS DISTINCT FROM OLD.currency
        OR NEW.customer_note IS DISTINCT FROM OLD.customer_note
        OR NEW.customer_address IS DISTINCT FROM OLD.customer_address
        OR NEW.customer_postal IS DISTINCT FROM OLD.customer_postal
        OR NEW.vat_rate_bp IS DISTINCT FROM OLD.vat_rate_bp) THEN
        RAISE EXCEPTION 'order % has receipt number %: what its document shows cannot change',
            OLD.id, OLD.receipt_number;
    END IF;
    IF OLD.voided_at IS NOT NULL AND (
        NEW.voided_at IS DISTINCT FROM OLD.voided_at
        OR NEW.void_reason IS DISTINCT FROM OLD.void_reason) THEN
        RAISE EXCEPTION 'order % is void and cannot be un-voided', OLD.id;
    END IF;
    RETURN NEW;
END;
$$;

-- The mint freezes the VAT rate in force on the local strung date (p_local_date) when the
-- stringer charges VAT, and refuses when none is in force ('receipts: no vat rate'): a
-- document that says "incl. VAT" without the rate is not a valid document.
DROP FUNCTION receipts_mint(BIGINT, BIGINT, INTEGER, TIMESTAMP, TIMESTAMP, TEXT, BOOLEAN);
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
