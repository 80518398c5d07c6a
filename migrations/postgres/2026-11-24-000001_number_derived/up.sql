-- The receipt number's text is derived by the database from its integer parts, in one
-- place: `receipts_number_text`. Writers set `receipt_year` and `receipt_seq` only;
-- `receipt_number` is a generated column (at least four digits, no cap: 2026-9999,
-- 2026-10000).
CREATE FUNCTION receipts_number_text(p_year INTEGER, p_seq BIGINT) RETURNS TEXT
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT lpad(p_year::text, 4, '0') || '-'
        || CASE WHEN p_seq < 10000 THEN lpad(p_seq::text, 4, '0') ELSE p_seq::text END
$$;

-- Dropping the stored text drops the CHECK and the indexes that name it; they come back
-- below, on the generated column.
ALTER TABLE orders DROP COLUMN receipt_number;
ALTER TABLE orders
    ADD COLUMN receipt_number TEXT GENERATED ALWAYS AS (receipts_number_text(receipt_year, receipt_seq)) STORED,
    ADD CONSTRAINT orders_receipt_parts_together CHECK (
        (receipt_year IS NULL) = (receipt_seq IS NULL)
        AND (receipt_year IS NULL OR (receipt_year BETWEEN 1 AND 9999 AND receipt_seq >= 1))),
    ADD CONSTRAINT orders_void_needs_number_and_reason CHECK (
        voided_at IS NULL
        OR (receipt_seq IS NOT NULL AND COALESCE(trim(void_reason), '') <> ''));

CREATE UNIQUE INDEX orders_receipt_number_key
    ON orders (stringer_id, receipt_number) WHERE receipt_number IS NOT NULL;
CREATE INDEX orders_receipt_year_idx
    ON orders (stringer_id, receipt_year, receipt_seq) WHERE receipt_number IS NOT NULL;

-- A BEFORE trigger sees no generated values in NEW: the number's parts are compared.
CREATE OR REPLACE FUNCTION orders_keep_issued_numbers() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF OLD.receipt_number IS NOT NULL THEN
            RAISE EXCEPTION 'order % has receipt number % and cannot be deleted; void it instead',
                OLD.id, OLD.receipt_number;
        END IF;
        RETURN OLD;
    END IF;
    IF OLD.receipt_number IS NOT NULL AND (
        NEW.receipt_year IS DISTINCT FROM OLD.receipt_year
        OR NEW.receipt_seq IS DISTINCT FROM OLD.receipt_seq
        OR NEW.stringer_id IS DISTINCT FROM OLD.stringer_id) THEN
        RAISE EXCEPTION 'order % has receipt number % which cannot change',
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

-- The mint as before, setting the number's parts only.
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
    WHERE id = p_order AND stringer_id = p_stringer AND receipt_seq IS NULL
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
    SET strung_at = p_strung_at, receipt_year = p_year, receipt_seq = seq, updated_at = p_now
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
