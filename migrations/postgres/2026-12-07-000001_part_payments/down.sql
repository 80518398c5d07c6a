CREATE OR REPLACE FUNCTION receipts_credit_now(
    p_order BIGINT, p_handle TEXT, p_amount BIGINT, p_reason TEXT, p_refund TEXT,
    p_now TIMESTAMP, p_lock_timeout TEXT
) RETURNS TABLE (o_stringer BIGINT, o_handle TEXT, o_zone TEXT, o_year INTEGER, o_seq BIGINT, o_amount BIGINT, o_currency TEXT)
LANGUAGE plpgsql AS $$
DECLARE
    o orders%ROWTYPE;
    charges_vat BOOLEAN;
    total BIGINT;
    left_minor BIGINT;
    vat BIGINT := 0;
    vat_before BIGINT;
    refund TEXT := p_refund;
BEGIN
    PERFORM set_config('lock_timeout', p_lock_timeout, true);
    SELECT s.id, s.handle, s.timezone INTO o_stringer, o_handle, o_zone
    FROM orders ord JOIN stringers s ON s.id = ord.stringer_id
    WHERE ord.id = p_order AND (p_handle IS NULL OR s.handle = p_handle);
    IF NOT FOUND THEN
        RETURN;
    END IF;
    SELECT * INTO o FROM orders WHERE id = p_order FOR UPDATE;
    o_currency := o.currency;
    total := coalesce(o.price_minor, 0) + o.items_minor;
    left_minor := total - o.credited_minor;
    o_amount := coalesce(p_amount, left_minor);
    IF o.receipt_seq IS NULL OR o.voided_at IS NOT NULL OR o.kind <> 'client' OR o.issuer_id IS NULL
       OR o_amount <= 0 OR o_amount > left_minor THEN
        RETURN;
    END IF;
    IF refund IS NULL THEN
        IF o.paid_at IS NOT NULL THEN
            RETURN;
        END IF;
        refund := 'none';
    ELSIF o.paid_at IS NULL AND refund <> 'none' THEN
        RETURN;
    END IF;
    SELECT i.vat_number IS NOT NULL AND NOT i.small_business INTO charges_vat FROM issuers i WHERE i.id = o.issuer_id;
    IF charges_vat THEN
        IF o.vat_rate_bp IS NULL THEN
            RETURN;
        END IF;
        IF o_amount = left_minor THEN
            SELECT coalesce(sum(vat_minor), 0) INTO vat_before FROM credit_notes WHERE order_id = p_order;
            vat := receipts_vat_included(total, o.vat_rate_bp) - vat_before;
        ELSE
            vat := receipts_vat_included(o_amount, o.vat_rate_bp);
        END IF;
    END IF;
    o_year := EXTRACT(YEAR FROM (p_now AT TIME ZONE 'UTC') AT TIME ZONE o_zone);
    INSERT INTO credit_counters AS c (stringer_id, year, last_n, created_at, updated_at)
    VALUES (o_stringer, o_year, 1, p_now, p_now)
    ON CONFLICT (stringer_id, year)
    DO UPDATE SET last_n = c.last_n + 1, updated_at = EXCLUDED.updated_at
    RETURNING last_n INTO o_seq;
    INSERT INTO credit_notes (stringer_id, order_id, credit_year, credit_seq, issued_at, amount_minor, currency,
        vat_rate_bp, vat_minor, reason, refund_method, issuer_id, credited_before_minor, completes, created_at)
    VALUES (o_stringer, p_order, o_year, o_seq, p_now, o_amount, o.currency,
        CASE WHEN charges_vat THEN o.vat_rate_bp END, vat, p_reason, refund, o.issuer_id, o.credited_minor,
        o_amount = left_minor, p_now);
    UPDATE orders SET credited_minor = credited_minor + o_amount, updated_at = p_now WHERE id = p_order;
    INSERT INTO receipt_events
        (kind, stringer_id, year, first_seq, last_seq, order_id, counter_old, counter_new, reason, created_at,
         field, old_value, new_value)
    VALUES ('credit', o_stringer, o_year, o_seq, o_seq, p_order, o_seq - 1, o_seq, p_reason, p_now,
        'credits', receipts_number_text(o.receipt_year, o.receipt_seq),
        o.currency || ' ' || (o_amount / 100) || '.' || lpad((o_amount % 100)::text, 2, '0'));
    RETURN NEXT;
EXCEPTION
    WHEN lock_not_available THEN
        RAISE EXCEPTION 'receipts: lock timeout' USING ERRCODE = 'serialization_failure';
    WHEN deadlock_detected THEN
        RAISE EXCEPTION 'receipts: deadlock' USING ERRCODE = 'serialization_failure';
END;
$$;
DROP TABLE part_payments;
DROP FUNCTION part_payments_append_only();
ALTER TABLE orders DROP COLUMN part_paid_minor;
