-- Documents render from the profile again; the versions, the frozen fields and the new
-- journal columns go.
DROP FUNCTION receipts_mint(BIGINT, BIGINT, INTEGER, TIMESTAMP, TIMESTAMP, TEXT, BOOLEAN);
CREATE FUNCTION receipts_mint(
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

ALTER TABLE receipt_events DROP COLUMN field, DROP COLUMN old_value, DROP COLUMN new_value;
-- The journal is append-only: entries of the new kinds stay, so the old check is not back.
ALTER TABLE receipt_events DROP CONSTRAINT receipt_events_kind_check;

DROP TRIGGER orders_keep_issued_numbers ON orders;
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

CREATE TRIGGER orders_keep_issued_numbers
    BEFORE UPDATE OR DELETE ON orders
    FOR EACH ROW EXECUTE FUNCTION orders_keep_issued_numbers();

DROP TRIGGER stringers_keep_issuer_versions ON stringers;
DROP FUNCTION stringers_keep_issuer_versions();
DROP FUNCTION receipts_snapshot_issuer(BIGINT);
ALTER TABLE orders DROP COLUMN issuer_id, DROP COLUMN customer_note;
ALTER TABLE stringers DROP COLUMN issuer_id;
DROP TABLE issuers;
DROP FUNCTION issuers_append_only();
ALTER TABLE stringers
    DROP COLUMN tax_number,
    DROP COLUMN small_business,
    DROP COLUMN street,
    DROP COLUMN house_number,
    DROP COLUMN postcode,
    DROP COLUMN town,
    DROP COLUMN country,
    DROP COLUMN iban,
    DROP COLUMN bic,
    DROP COLUMN payment_days;
