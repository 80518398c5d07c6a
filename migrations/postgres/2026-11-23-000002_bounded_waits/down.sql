DROP FUNCTION receipts_begin(TEXT, TEXT);
CREATE OR REPLACE FUNCTION receipts_mint(
    p_order BIGINT, p_stringer BIGINT, p_year INTEGER,
    p_strung_at TIMESTAMP, p_now TIMESTAMP, p_lock_timeout TEXT
) RETURNS BIGINT LANGUAGE plpgsql AS $$
DECLARE
    seq BIGINT;
BEGIN
    IF p_lock_timeout IS NOT NULL THEN
        PERFORM set_config('lock_timeout', p_lock_timeout, true);
    END IF;
    PERFORM 1 FROM orders
    WHERE id = p_order AND stringer_id = p_stringer AND receipt_number IS NULL
    FOR UPDATE;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    INSERT INTO receipt_counters AS c (stringer_id, year, last_n, created_at, updated_at)
    VALUES (p_stringer, p_year, 1, p_now, p_now)
    ON CONFLICT (stringer_id, year)
    DO UPDATE SET last_n = c.last_n + 1, updated_at = EXCLUDED.updated_at
    RETURNING last_n INTO seq;
    UPDATE orders
    SET strung_at = p_strung_at,
        receipt_year = p_year,
        receipt_seq = seq,
        receipt_number = lpad(p_year::text, 4, '0') || '-'
            || CASE WHEN seq < 10000 THEN lpad(seq::text, 4, '0') ELSE seq::text END,
        updated_at = p_now
    WHERE id = p_order;
    INSERT INTO receipt_events
        (kind, stringer_id, year, first_seq, last_seq, order_id, counter_old, counter_new, created_at)
    VALUES ('mint', p_stringer, p_year, seq, seq, p_order, seq - 1, seq, p_now);
    RETURN seq;
END;
$$;
