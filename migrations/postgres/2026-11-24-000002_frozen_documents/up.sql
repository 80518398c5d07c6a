-- An issued document never changes. What a receipt shows of its issuer is frozen when the
-- order is numbered: `issuers` keeps every version of a stringer's business profile (a new
-- row whenever a printed field changes, never updated or deleted), and a numbered order
-- points at the version in force when it was numbered. The order's own printed fields
-- (customer, work, price, the note for the customer) cannot change once it has a number.
-- Internal `notes` stay internal; `customer_note` is what the document prints.

-- The profile fields documents print, beside those of section 8: the structured address a
-- QR-bill needs, bank details, the national tax number and small-business status.
ALTER TABLE stringers
    ADD COLUMN tax_number TEXT,
    ADD COLUMN small_business BOOLEAN NOT NULL DEFAULT FALSE,
    ADD COLUMN street TEXT,
    ADD COLUMN house_number TEXT,
    ADD COLUMN postcode TEXT,
    ADD COLUMN town TEXT,
    ADD COLUMN country TEXT CHECK (country ~ '^[A-Z]{2}$'),
    ADD COLUMN iban TEXT,
    ADD COLUMN bic TEXT,
    ADD COLUMN payment_days INTEGER NOT NULL DEFAULT 30 CHECK (payment_days BETWEEN 0 AND 365);

CREATE TABLE issuers (
    id BIGSERIAL PRIMARY KEY,
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
    created_at TIMESTAMP NOT NULL DEFAULT (now() AT TIME ZONE 'UTC')
);
CREATE INDEX issuers_stringer_idx ON issuers (stringer_id);

ALTER TABLE stringers ADD COLUMN issuer_id BIGINT REFERENCES issuers (id);
ALTER TABLE orders
    ADD COLUMN issuer_id BIGINT REFERENCES issuers (id),
    ADD COLUMN customer_note TEXT;

-- The current profile of a stringer, as a new version, made current.
CREATE FUNCTION receipts_snapshot_issuer(p_stringer BIGINT) RETURNS BIGINT LANGUAGE plpgsql AS $$
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

-- Every stringer has a current version; a change of a printed field makes a new one.
CREATE FUNCTION stringers_keep_issuer_versions() RETURNS trigger LANGUAGE plpgsql AS $$
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

-- Today's profiles become the first versions, and today's numbered orders are frozen with
-- what they show now (their notes were printed: they become the note for the customer).
SELECT receipts_snapshot_issuer(id) FROM stringers;
UPDATE orders o SET issuer_id = s.issuer_id, customer_note = o.notes
FROM stringers s WHERE s.id = o.stringer_id AND o.receipt_seq IS NOT NULL;

CREATE TRIGGER stringers_keep_issuer_versions
    AFTER INSERT OR UPDATE ON stringers
    FOR EACH ROW EXECUTE FUNCTION stringers_keep_issuer_versions();

CREATE FUNCTION issuers_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'issuers keeps what issued documents show and is append-only';
END;
$$;
CREATE TRIGGER issuers_append_only
    BEFORE UPDATE OR DELETE ON issuers
    FOR EACH ROW EXECUTE FUNCTION issuers_append_only();
CREATE TRIGGER issuers_refuse_truncate
    BEFORE TRUNCATE ON issuers
    FOR EACH STATEMENT EXECUTE FUNCTION receipts_refuse_truncate();

-- Numbering freezes: whoever numbers an order (the mint, an import, a hand-written repair),
-- it takes its stringer's current issuer version. Once numbered, what the document shows
-- cannot change.
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
        OR NEW.customer_note IS DISTINCT FROM OLD.customer_note) THEN
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
DROP TRIGGER orders_keep_issued_numbers ON orders;
CREATE TRIGGER orders_keep_issued_numbers
    BEFORE INSERT OR UPDATE OR DELETE ON orders
    FOR EACH ROW EXECUTE FUNCTION orders_keep_issued_numbers();

-- The journal records every change of a numbered order, with its old and new value.
ALTER TABLE receipt_events
    DROP CONSTRAINT IF EXISTS receipt_events_kind_check,
    ADD CONSTRAINT receipt_events_kind_check
        CHECK (kind IN ('mint', 'void', 'resync', 'v1_import', 'edit', 'send', 'payment')),
    ADD COLUMN field TEXT,
    ADD COLUMN old_value TEXT,
    ADD COLUMN new_value TEXT;

-- The mint refuses an order that cannot make a complete, plausible document: a client order
-- without a price, and a strung time given by hand before the last issued number of the year
-- (p_backdate FALSE; TRUE lets it through and says so in the journal; NULL, a mint at the
-- clock's time, is not compared). Refusals are raised with fixed English texts the program
-- recognises ('receipts: ...'), in any server language.
DROP FUNCTION receipts_mint(BIGINT, BIGINT, INTEGER, TIMESTAMP, TIMESTAMP, TEXT);
CREATE FUNCTION receipts_mint(
    p_order BIGINT, p_stringer BIGINT, p_year INTEGER,
    p_strung_at TIMESTAMP, p_now TIMESTAMP, p_lock_timeout TEXT, p_backdate BOOLEAN
) RETURNS BIGINT LANGUAGE plpgsql AS $$
DECLARE
    seq BIGINT;
    order_kind TEXT;
    price BIGINT;
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
    SET strung_at = p_strung_at, receipt_year = p_year, receipt_seq = seq, updated_at = p_now
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
