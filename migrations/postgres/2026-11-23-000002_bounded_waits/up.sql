-- Every wait bounded, and recognisable on a server in any language. A lock that is not had
-- within the lock timeout raises lock_not_available (55P03), whose message the server
-- translates and whose code the client library does not pass on. The program's
-- transactions therefore take their table locks through this function, which reports such
-- a wait as serialization_failure (40001, retryable) with a fixed English message.
--
-- p_mode: 'read' (ACCESS SHARE: waits only for a DBA's exclusive lock), 'write' (ROW
-- EXCLUSIVE), 'recount' (write, and EXCLUSIVE on the counters: no mint meanwhile), or
-- 'import' (write, one import at a time: a transaction-scoped advisory lock, which stays
-- correct behind PgBouncer in transaction-pooling mode).
CREATE FUNCTION receipts_begin(p_lock_timeout TEXT, p_mode TEXT) RETURNS BOOLEAN LANGUAGE plpgsql AS $$
BEGIN
    PERFORM set_config('lock_timeout', p_lock_timeout, true);
    IF p_mode = 'read' THEN
        LOCK TABLE stringers, orders, receipt_counters, receipt_events IN ACCESS SHARE MODE;
    ELSE
        LOCK TABLE stringers, orders, receipt_counters, receipt_events IN ROW EXCLUSIVE MODE;
        IF p_mode = 'recount' THEN
            LOCK TABLE receipt_counters IN EXCLUSIVE MODE;
        ELSIF p_mode = 'import' THEN
            PERFORM pg_advisory_xact_lock(hashtext('receipts migrate-v1'));
        ELSIF p_mode <> 'write' THEN
            RAISE EXCEPTION 'receipts_begin: unknown mode %', p_mode;
        END IF;
    END IF;
    RETURN TRUE;
EXCEPTION
    WHEN lock_not_available THEN
        RAISE EXCEPTION 'receipts: lock timeout' USING ERRCODE = 'serialization_failure';
    WHEN deadlock_detected THEN
        RAISE EXCEPTION 'receipts: deadlock' USING ERRCODE = 'serialization_failure';
END;
$$;

-- The mint as before, with its lock waits reported the same way.
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
EXCEPTION
    WHEN lock_not_available THEN
        RAISE EXCEPTION 'receipts: lock timeout' USING ERRCODE = 'serialization_failure';
    WHEN deadlock_detected THEN
        RAISE EXCEPTION 'receipts: deadlock' USING ERRCODE = 'serialization_failure';
END;
$$;
