-- What a week at the counter asked for.

-- A bank transaction that needed attention (a partial or double payment, an unknown
-- reference, ...) is remembered with its outcome, so that importing it again says when it was
-- listed instead of judging it anew; and settled by hand once handled (`payments settle`).
CREATE TABLE listed_payments (
    id BIGSERIAL PRIMARY KEY,
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
    listed_at TIMESTAMP NOT NULL DEFAULT (now() AT TIME ZONE 'UTC'),
    settled_at TIMESTAMP,
    settle_reason TEXT,
    CHECK ((settled_at IS NULL) = (settle_reason IS NULL))
);
CREATE UNIQUE INDEX listed_payments_bank_reference_key ON listed_payments (stringer_id, bank_reference);
CREATE TRIGGER listed_payments_refuse_truncate
    BEFORE TRUNCATE ON listed_payments
    FOR EACH STATEMENT EXECUTE FUNCTION receipts_refuse_truncate();

-- The journal's kinds are checked by a trigger from now on, on both backends (SQLite cannot
-- alter a CHECK): a new kind replaces the function.
ALTER TABLE receipt_events DROP CONSTRAINT receipt_events_kind_check;
CREATE FUNCTION receipt_events_known_kinds() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.kind NOT IN ('mint', 'void', 'resync', 'v1_import', 'edit', 'send', 'payment', 'settle') THEN
        RAISE EXCEPTION 'receipt_events has no kind %', NEW.kind USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER receipt_events_known_kinds
    BEFORE INSERT ON receipt_events
    FOR EACH ROW EXECUTE FUNCTION receipt_events_known_kinds();

-- How a payment came in: a bank file's is a transfer.
ALTER TABLE orders
    ADD COLUMN payment_method TEXT CHECK (payment_method IN ('cash', 'card', 'twint', 'transfer', 'other'));
UPDATE orders o SET payment_method = 'transfer' FROM payments p WHERE p.order_id = o.id;

-- France: the SIRET (not a tax number), and the name the bank holds the account in, which a
-- QR-bill's creditor and an EPC code's beneficiary carry (the business name when not given).
-- Both printed, so both frozen with each document's issuer version.
ALTER TABLE stringers ADD COLUMN siret TEXT, ADD COLUMN account_holder TEXT;
ALTER TABLE issuers ADD COLUMN siret TEXT, ADD COLUMN account_holder TEXT;

CREATE OR REPLACE FUNCTION receipts_snapshot_issuer(p_stringer BIGINT) RETURNS BIGINT LANGUAGE plpgsql AS $$
DECLARE
    version BIGINT;
BEGIN
    INSERT INTO issuers (stringer_id, name, address, email, phone, vat_number, tax_number,
                         small_business, language, timezone, street, house_number, postcode, town,
                         country, iban, bic, payment_days, siret, account_holder)
    SELECT id, name, address, email, phone, vat_number, tax_number, small_business, language,
           timezone, street, house_number, postcode, town, country, iban, bic, payment_days,
           siret, account_holder
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
            OLD.payment_days, OLD.siret, OLD.account_holder)
        IS DISTINCT FROM (NEW.name, NEW.address, NEW.email, NEW.phone, NEW.vat_number,
            NEW.tax_number, NEW.small_business, NEW.language, NEW.timezone, NEW.street,
            NEW.house_number, NEW.postcode, NEW.town, NEW.country, NEW.iban, NEW.bic,
            NEW.payment_days, NEW.siret, NEW.account_holder) THEN
        PERFORM receipts_snapshot_issuer(NEW.id);
    END IF;
    RETURN NULL;
END;
$$;

-- The mint refuses, besides what it refused before, a client order above the small-amount
-- limit (CHF 400, EUR 250) of a stringer who charges VAT when it has no customer address
-- ('receipts: no address'), unless p_without_address, which the journal then records. p_note
-- goes to the journal with the mint (a mint backdated before last year).
DROP FUNCTION receipts_mint_now(BIGINT, TEXT, TIMESTAMP, TEXT);
DROP FUNCTION receipts_mint(BIGINT, BIGINT, INTEGER, TIMESTAMP, TIMESTAMP, TEXT, BOOLEAN, DATE);
CREATE FUNCTION receipts_mint(
    p_order BIGINT, p_stringer BIGINT, p_year INTEGER,
    p_strung_at TIMESTAMP, p_now TIMESTAMP, p_lock_timeout TEXT, p_backdate BOOLEAN,
    p_local_date DATE, p_without_address BOOLEAN, p_note TEXT
) RETURNS BIGINT LANGUAGE plpgsql AS $$
DECLARE
    seq BIGINT;
    order_kind TEXT;
    price BIGINT;
    order_currency TEXT;
    has_address BOOLEAN;
    charges_vat BOOLEAN;
    rate INTEGER;
    before_seq BIGINT;
    before_at TIMESTAMP;
    reason TEXT := p_note;
BEGIN
    IF p_lock_timeout IS NOT NULL THEN
        PERFORM set_config('lock_timeout', p_lock_timeout, true);
    END IF;
    SELECT kind, price_minor, currency, customer_address IS NOT NULL OR customer_postal IS NOT NULL
    INTO order_kind, price, order_currency, has_address FROM orders
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
        IF order_kind = 'client' AND NOT has_address
           AND ((order_currency = 'CHF' AND price > 40000) OR (order_currency = 'EUR' AND price > 25000)) THEN
            IF NOT coalesce(p_without_address, FALSE) THEN
                RAISE EXCEPTION 'receipts: no address';
            END IF;
            reason := concat_ws('; ', reason, 'issued without the customer''s address above the small-amount limit');
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
            reason := concat_ws('; ', 'backdated: strung before ' || receipts_number_text(p_year, before_seq), reason);
        END IF;
    END IF;
    UPDATE orders
    SET strung_at = p_strung_at, receipt_year = p_year, receipt_seq = seq, vat_rate_bp = rate,
        updated_at = p_now
    WHERE id = p_order;
    INSERT INTO receipt_events
        (kind, stringer_id, year, first_seq, last_seq, order_id, counter_old, counter_new, reason, created_at)
    VALUES ('mint', p_stringer, p_year, seq, seq, p_order, seq - 1, seq, reason, p_now);
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
    o_seq := receipts_mint(p_order, o_stringer, o_year, p_strung_at, p_strung_at, NULL, NULL, local_at::date, NULL, NULL);
    RETURN NEXT;
EXCEPTION
    WHEN lock_not_available THEN
        RAISE EXCEPTION 'receipts: lock timeout' USING ERRCODE = 'serialization_failure';
    WHEN deadlock_detected THEN
        RAISE EXCEPTION 'receipts: deadlock' USING ERRCODE = 'serialization_failure';
END;
$$;

-- Text compared as people mean it (`domain::text::fold`): case, accents and repeated spaces
-- ignored. SQLite's `receipts_fold` is the program's own; a test holds the two to the same
-- result for every letter they fold.
CREATE FUNCTION receipts_fold(p_text TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT btrim(regexp_replace(replace(replace(replace(replace(replace(translate(p_text, 'ABCDEFGHIJKLMNOPQRSTUVWXYZÀÁÂÃÄÅÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖØÙÚÛÜÝàáâãäåçèéêëìíîïðñòóôõöøùúûüýÿĀāĂăĄąĆćĈĉĊċČčĎďĐđĒēĔĕĖėĘęĚěĜĝĞğĠġĢģĤĥĦħĨĩĪīĬĭĮįİıĴĵĶķĸĹĺĻļĽľĿŀŁłŃńŅņŇňŉŊŋŌōŎŏŐőŔŕŖŗŘřŚśŜŝŞşŠšŢţŤťŦŧŨũŪūŬŭŮůŰűŲųŴŵŶŷŸŹźŻżŽžſȘșȚțÆÞĲŒ',
                'abcdefghijklmnopqrstuvwxyzaaaaaaceeeeiiiidnoooooouuuuyaaaaaaceeeeiiiidnoooooouuuuyyaaaaaaccccccccddddeeeeeeeeeegggggggghhhhiiiiiiiiiijjkkkllllllllllnnnnnnnnnoooooorrrrrrssssssssttttttuuuuuuuuuuuuwwyyyzzzzzzsssttæþĳœ'),
            'ß', 'ss'),
            'æ', 'ae'),
            'þ', 'th'),
            'ĳ', 'ij'),
            'œ', 'oe'),
        '[ \t\r\n\f\v]+', ' ', 'g'))
$$;
