-- Back to a stored text beside its parts, checked to agree with them.
ALTER TABLE orders RENAME COLUMN receipt_number TO receipt_number_derived;
ALTER TABLE orders ADD COLUMN receipt_number TEXT;
UPDATE orders SET receipt_number = receipt_number_derived WHERE receipt_number_derived IS NOT NULL;
ALTER TABLE orders DROP COLUMN receipt_number_derived;
ALTER TABLE orders DROP CONSTRAINT orders_receipt_parts_together;
ALTER TABLE orders DROP CONSTRAINT IF EXISTS orders_void_needs_number_and_reason;
ALTER TABLE orders
    ADD CONSTRAINT orders_receipt_number_matches_parts CHECK (
        CASE WHEN receipt_number IS NULL THEN receipt_year IS NULL AND receipt_seq IS NULL
        ELSE COALESCE(
            receipt_year BETWEEN 1 AND 9999 AND receipt_seq >= 1
            AND receipt_number = lpad(receipt_year::text, 4, '0') || '-'
                || CASE WHEN receipt_seq < 10000 THEN lpad(receipt_seq::text, 4, '0')
                        ELSE receipt_seq::text END,
            FALSE)
        END),
    ADD CONSTRAINT orders_void_needs_number_and_reason CHECK (
        voided_at IS NULL
        OR (receipt_number IS NOT NULL AND COALESCE(trim(void_reason), '') <> ''));
CREATE UNIQUE INDEX orders_receipt_number_key
    ON orders (stringer_id, receipt_number) WHERE receipt_number IS NOT NULL;
CREATE INDEX orders_receipt_year_idx
    ON orders (stringer_id, receipt_year, receipt_seq) WHERE receipt_number IS NOT NULL;
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
    SET strung_at = p_strung_at, receipt_year = p_year, receipt_seq = seq,
        receipt_number = lpad(p_year::text, 4, '0') || '-'
            || CASE WHEN seq < 10000 THEN lpad(seq::text, 4, '0') ELSE seq::text END,
        updated_at = p_now
    WHERE id = p_order;
    INSERT INTO receipt_events
        (kind, stringer_id, year, first_seq, last_seq, order_id, counter_old, counter_new, created_at)
    VALUES ('mint', p_stringer, p_year, seq, seq, p_order, seq - 1, seq, p_now);
    RETURN seq;
EXCEPTION
    WHEN lock_not_available THEN
        RAISE EXCEPTION 'receipts: lock timeout' USING ERRCODE = 'serialization_failure';
    WHEN deadlock_detected THEN
        RAISE EXCEPTION 'receipts: deadlock' USING ERRCODE = 'serialization_failure';
END;
$$;
DROP FUNCTION receipts_number_text(INTEGER, BIGINT);
