-- The mint at the counter (`receipts mint --order ID`, at the clock's time) in one round
-- trip: the stringer is looked up here (the order's owner, or the one named, who must own
-- it), the year and the local date are the stringer's calendar at p_strung_at, and the
-- mint is receipts_mint's. Returns the stringer and the new sequence number; o_seq is
-- NULL when the order has its number already; no row when the order is not there (or not
-- the named stringer's) or the server does not know the stringer's zone: the program then
-- takes the long way, which says why.
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
    o_seq := receipts_mint(p_order, o_stringer, o_year, p_strung_at, p_strung_at, NULL, NULL, local_at::date);
    RETURN NEXT;
EXCEPTION
    WHEN lock_not_available THEN
        RAISE EXCEPTION 'receipts: lock timeout' USING ERRCODE = 'serialization_failure';
    WHEN deadlock_detected THEN
        RAISE EXCEPTION 'receipts: deadlock' USING ERRCODE = 'serialization_failure';
END;
$$;
