-- The mint as before: the limit on the stringing's price, no stock used.
CREATE OR REPLACE FUNCTION receipts_mint(
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

-- The journal is append-only: entries of the new kinds stay, and so do the kinds.
DROP FUNCTION receipts_use_string(BIGINT, BIGINT, TIMESTAMP);
DROP TABLE string_moves;
DROP FUNCTION string_moves_append_only();
DROP TABLE strings;
DROP TABLE order_items;
DROP FUNCTION order_items_sum();
DROP FUNCTION order_items_keep();
DROP TRIGGER orders_keep_items ON orders;
DROP FUNCTION orders_keep_items();
DROP INDEX orders_paid_idx;
DROP INDEX orders_waiting_idx;
DROP INDEX orders_open_idx;
ALTER TABLE orders
    DROP COLUMN cross_string,
    DROP COLUMN own_string,
    DROP COLUMN string_length_cm,
    DROP COLUMN item_count,
    DROP COLUMN items_minor,
    DROP COLUMN notified_at,
    DROP COLUMN due_at;
ALTER TABLE stringers DROP COLUMN pickup_note, DROP COLUMN turnaround_hours;
