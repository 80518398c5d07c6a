-- Credit notes: a document the customer holds is taken back by another that names it, in
-- its own gapless series per (stringer, year of issue), printed C-YYYY-NNNN.
CREATE TABLE credit_counters (
    stringer_id BIGINT NOT NULL REFERENCES stringers (id),
    year INTEGER NOT NULL CHECK (year BETWEEN 1900 AND 9999),
    last_n BIGINT NOT NULL CHECK (last_n >= 0),
    created_at TIMESTAMP NOT NULL DEFAULT (now() AT TIME ZONE 'UTC'),
    updated_at TIMESTAMP NOT NULL DEFAULT (now() AT TIME ZONE 'UTC'),
    PRIMARY KEY (stringer_id, year)
);
CREATE TRIGGER credit_counters_refuse_truncate
    BEFORE TRUNCATE ON credit_counters
    FOR EACH STATEMENT EXECUTE FUNCTION receipts_refuse_truncate();

-- A row without an order holds a credit number that was issued and lost (`void --number
-- C-...`): no amount, the reason says why.
CREATE TABLE credit_notes (
    id BIGSERIAL PRIMARY KEY,
    stringer_id BIGINT NOT NULL REFERENCES stringers (id),
    order_id BIGINT REFERENCES orders (id),
    credit_year INTEGER NOT NULL CHECK (credit_year BETWEEN 1900 AND 9999),
    credit_seq BIGINT NOT NULL CHECK (credit_seq > 0),
    credit_number TEXT GENERATED ALWAYS AS ('C-' || receipts_number_text(credit_year, credit_seq)) STORED,
    issued_at TIMESTAMP NOT NULL,
    amount_minor BIGINT NOT NULL CHECK (amount_minor >= 0),
    currency TEXT NOT NULL,
    vat_rate_bp INTEGER CHECK (vat_rate_bp BETWEEN 0 AND 10000),
    vat_minor BIGINT NOT NULL DEFAULT 0,
    reason TEXT NOT NULL CHECK (reason <> ''),
    refund_method TEXT NOT NULL CHECK (refund_method IN ('cash', 'card', 'twint', 'transfer', 'other', 'none')),
    -- Frozen with the document: the original's issuer version, what earlier credit notes
    -- had taken back, and whether this one completed the total.
    issuer_id BIGINT REFERENCES issuers (id),
    credited_before_minor BIGINT NOT NULL DEFAULT 0 CHECK (credited_before_minor >= 0),
    completes BOOLEAN NOT NULL DEFAULT FALSE,
    -- The counter's form's one-time token: the same form posted twice issues one credit note.
    request_token TEXT,
    created_at TIMESTAMP NOT NULL DEFAULT (now() AT TIME ZONE 'UTC'),
    CHECK ((order_id IS NULL) = (amount_minor = 0))
);
CREATE UNIQUE INDEX credit_notes_number_key ON credit_notes (stringer_id, credit_year, credit_seq);
CREATE INDEX credit_notes_order_idx ON credit_notes (order_id) WHERE order_id IS NOT NULL;
CREATE UNIQUE INDEX credit_notes_request_key ON credit_notes (stringer_id, request_token)
    WHERE request_token IS NOT NULL;
CREATE FUNCTION credit_notes_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'credit note % is issued and cannot change', OLD.credit_number;
END;
$$;
CREATE TRIGGER credit_notes_append_only
    BEFORE UPDATE OR DELETE ON credit_notes
    FOR EACH ROW EXECUTE FUNCTION credit_notes_append_only();
CREATE TRIGGER credit_notes_refuse_truncate
    BEFORE TRUNCATE ON credit_notes
    FOR EACH STATEMENT EXECUTE FUNCTION receipts_refuse_truncate();

-- What the order's credit notes took back in all, kept with the order so the lists of what
-- is owed need no join; it only ever grows.
ALTER TABLE orders ADD COLUMN credited_minor BIGINT NOT NULL DEFAULT 0 CHECK (credited_minor >= 0);
CREATE FUNCTION orders_credit_only_grows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.credited_minor < OLD.credited_minor THEN
        RAISE EXCEPTION 'order % was credited % and cannot be credited less', OLD.id, OLD.credited_minor;
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER orders_credit_only_grows
    BEFORE UPDATE OF credited_minor ON orders
    FOR EACH ROW EXECUTE FUNCTION orders_credit_only_grows();

CREATE OR REPLACE FUNCTION receipt_events_known_kinds() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.kind NOT IN ('mint', 'void', 'resync', 'v1_import', 'edit', 'send', 'payment', 'settle',
                        'customer_merge', 'customer_forget', 'notify', 'pickup', 'credit') THEN
        RAISE EXCEPTION 'receipt_events has no kind %', NEW.kind USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;

-- A credit note issued now, in one statement: the stringer looked up (the order's owner, or
-- the one named, who must own it), the order locked, the rest to credit, the VAT at the
-- original's rate (the credit note that completes the total takes the VAT still
-- uncredited), the number from the same upsert as a receipt's, the note, the order's
-- credited sum and the journal. Returns no row when the case is unusual (a refusal to
-- explain, a full credit done already, an old receipt without a frozen rate): the program
-- then takes the long way, which explains it or does it.
CREATE FUNCTION receipts_credit_now(
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

-- The VAT a gross amount includes, rounded half away from zero (as the documents compute it).
CREATE FUNCTION receipts_vat_included(p_gross BIGINT, p_rate_bp INTEGER) RETURNS BIGINT
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT (sign(p_gross) * div(2 * abs(p_gross::numeric) * p_rate_bp + 10000 + p_rate_bp,
                                2 * (10000 + p_rate_bp)))::bigint
$$;
