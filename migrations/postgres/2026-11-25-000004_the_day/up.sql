-- The day at the counter (SPEC 19): promised times, who was told the racket is ready, items
-- beside the stringing, string stock.

-- How long the stringer promises from drop-off, and what a ready notice says of pickup.
ALTER TABLE stringers
    ADD COLUMN turnaround_hours INTEGER NOT NULL DEFAULT 24 CHECK (turnaround_hours BETWEEN 1 AND 8760),
    ADD COLUMN pickup_note TEXT;

-- `due_at`: when the racket was promised (UTC); `notified_at`: when the customer was last
-- told it is ready; `items_minor` and `item_count`: the sum and number of the order's items,
-- kept by order_items' triggers (the total is price_minor + items_minor); the string used: its length (NULL: the
-- sport's), whether the customer brought it, and a hybrid's cross string.
ALTER TABLE orders
    ADD COLUMN due_at TIMESTAMP,
    ADD COLUMN notified_at TIMESTAMP,
    ADD COLUMN items_minor BIGINT NOT NULL DEFAULT 0 CHECK (items_minor >= 0),
    ADD COLUMN item_count INTEGER NOT NULL DEFAULT 0 CHECK (item_count >= 0),
    ADD COLUMN string_length_cm INTEGER CHECK (string_length_cm BETWEEN 1 AND 100000),
    ADD COLUMN own_string BOOLEAN NOT NULL DEFAULT FALSE,
    ADD COLUMN cross_string TEXT;

-- The orders still on the bench were promised the default turnaround.
UPDATE orders SET due_at = ordered_at + interval '24 hours'
WHERE strung_at IS NULL AND voided_at IS NULL AND ordered_at IS NOT NULL;

-- The queue: open orders by promised time; strung rackets waiting for their owner; the
-- evening count of payments.
CREATE INDEX orders_open_idx ON orders (stringer_id, due_at) WHERE strung_at IS NULL AND voided_at IS NULL;
CREATE INDEX orders_waiting_idx ON orders (stringer_id, strung_at)
    WHERE strung_at IS NOT NULL AND returned_at IS NULL AND voided_at IS NULL;
CREATE INDEX orders_paid_idx ON orders (stringer_id, paid_at) WHERE paid_at IS NOT NULL;

-- A hybrid's cross string and the items are printed: frozen with the rest at numbering.
CREATE FUNCTION orders_keep_items() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.receipt_number IS NOT NULL AND (
        NEW.items_minor IS DISTINCT FROM OLD.items_minor
        OR NEW.item_count IS DISTINCT FROM OLD.item_count
        OR NEW.cross_string IS DISTINCT FROM OLD.cross_string) THEN
        RAISE EXCEPTION 'order % has receipt number %: what its document shows cannot change',
            OLD.id, OLD.receipt_number;
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER orders_keep_items
    BEFORE UPDATE ON orders
    FOR EACH ROW EXECUTE FUNCTION orders_keep_items();

-- Lines after the stringing line: a grip, an overgrip, a rush surcharge.
CREATE TABLE order_items (
    id BIGSERIAL PRIMARY KEY,
    order_id BIGINT NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    position INTEGER NOT NULL CHECK (position >= 1),
    text TEXT NOT NULL CHECK (trim(text) <> ''),
    price_minor BIGINT NOT NULL CHECK (price_minor >= 0),
    UNIQUE (order_id, position)
);

-- A numbered order's items never change; every change keeps the order's items_minor.
CREATE FUNCTION order_items_keep() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    number TEXT;
BEGIN
    SELECT receipt_number INTO number FROM orders WHERE id = coalesce(NEW.order_id, OLD.order_id);
    IF number IS NOT NULL THEN
        RAISE EXCEPTION 'order % has receipt number %: what its document shows cannot change',
            coalesce(NEW.order_id, OLD.order_id), number;
    END IF;
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER order_items_keep
    BEFORE INSERT OR UPDATE OR DELETE ON order_items
    FOR EACH ROW EXECUTE FUNCTION order_items_keep();
CREATE FUNCTION order_items_sum() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE orders SET (items_minor, item_count) =
        (SELECT coalesce(sum(price_minor), 0), count(*) FROM order_items WHERE order_id = orders.id)
    WHERE id IN (NEW.order_id, OLD.order_id);
    RETURN NULL;
END;
$$;
CREATE TRIGGER order_items_sum
    AFTER INSERT OR UPDATE OR DELETE ON order_items
    FOR EACH ROW EXECUTE FUNCTION order_items_sum();

-- String stock: strings by name (folded as search folds), and the moves that make up what is
-- left: a reel bought (+), a racket strung (-). Append-only.
CREATE TABLE strings (
    id BIGSERIAL PRIMARY KEY,
    stringer_id BIGINT NOT NULL REFERENCES stringers (id),
    name TEXT NOT NULL CHECK (trim(name) <> ''),
    search_name TEXT NOT NULL,
    low_cm INTEGER CHECK (low_cm >= 0),
    created_at TIMESTAMP NOT NULL DEFAULT (now() AT TIME ZONE 'UTC'),
    UNIQUE (stringer_id, search_name)
);
CREATE TABLE string_moves (
    id BIGSERIAL PRIMARY KEY,
    stringer_id BIGINT NOT NULL REFERENCES stringers (id),
    string_id BIGINT NOT NULL REFERENCES strings (id),
    order_id BIGINT REFERENCES orders (id),
    length_cm INTEGER NOT NULL CHECK (length_cm <> 0),
    cost_minor BIGINT CHECK (cost_minor >= 0),
    currency TEXT,
    created_at TIMESTAMP NOT NULL DEFAULT (now() AT TIME ZONE 'UTC')
);
CREATE INDEX string_moves_string_idx ON string_moves (string_id);
CREATE FUNCTION string_moves_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'string_moves is an append-only record of the stock';
END;
$$;
CREATE TRIGGER string_moves_append_only
    BEFORE UPDATE OR DELETE ON string_moves
    FOR EACH ROW EXECUTE FUNCTION string_moves_append_only();
CREATE TRIGGER string_moves_refuse_truncate
    BEFORE TRUNCATE ON string_moves
    FOR EACH STATEMENT EXECUTE FUNCTION receipts_refuse_truncate();

-- The journal says who was told the racket is ready, and when it was picked up.
CREATE OR REPLACE FUNCTION receipt_events_known_kinds() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.kind NOT IN ('mint', 'void', 'resync', 'v1_import', 'edit', 'send', 'payment', 'settle',
                        'customer_merge', 'customer_forget', 'notify', 'pickup') THEN
        RAISE EXCEPTION 'receipt_events has no kind %', NEW.kind USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;

-- The string a mint uses: the order's length (else 12 m for tennis, 10 m for badminton and
-- squash) of each stocked string it names, a hybrid's half each; none of the customer's own.
-- Called by the mint in its transaction; it never refuses.
CREATE FUNCTION receipts_use_string(p_order BIGINT, p_stringer BIGINT, p_now TIMESTAMP)
RETURNS VOID LANGUAGE sql AS $$
    WITH o AS (
        SELECT ord.string, ord.cross_string,
            coalesce(ord.string_length_cm,
                     CASE WHEN r.sport IN ('badminton', 'squash') THEN 1000 ELSE 1200 END) AS cm
        FROM orders ord LEFT JOIN rackets r ON r.id = ord.racket_id
        WHERE ord.id = p_order AND NOT ord.own_string
    ), used AS (
        SELECT string AS name, CASE WHEN cross_string IS NULL THEN cm ELSE cm - cm / 2 END AS cm FROM o
        UNION ALL
        SELECT cross_string, cm / 2 FROM o WHERE cross_string IS NOT NULL
    )
    INSERT INTO string_moves (stringer_id, string_id, order_id, length_cm, created_at)
    SELECT p_stringer, s.id, p_order, -used.cm, p_now
    FROM used JOIN strings s ON s.stringer_id = p_stringer AND s.search_name = receipts_fold(used.name)
    WHERE used.cm > 0;
$$;

-- The mint: the small-amount limit applies to the total (stringing and items), and the
-- stocked strings the order names are used.
CREATE OR REPLACE FUNCTION receipts_mint(
    p_order BIGINT, p_stringer BIGINT, p_year INTEGER,
    p_strung_at TIMESTAMP, p_now TIMESTAMP, p_lock_timeout TEXT, p_backdate BOOLEAN,
    p_local_date DATE, p_without_address BOOLEAN, p_note TEXT
) RETURNS BIGINT LANGUAGE plpgsql AS $$
DECLARE
    seq BIGINT;
    order_kind TEXT;
    price BIGINT;
    total BIGINT;
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
    SELECT kind, price_minor, price_minor + items_minor, currency,
        customer_address IS NOT NULL OR customer_postal IS NOT NULL
    INTO order_kind, price, total, order_currency, has_address FROM orders
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
           AND ((order_currency = 'CHF' AND total > 40000) OR (order_currency = 'EUR' AND total > 25000)) THEN
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
    PERFORM receipts_use_string(p_order, p_stringer, p_now);
    RETURN seq;
EXCEPTION
    WHEN lock_not_available THEN
        RAISE EXCEPTION 'receipts: lock timeout' USING ERRCODE = 'serialization_failure';
    WHEN deadlock_detected THEN
        RAISE EXCEPTION 'receipts: deadlock' USING ERRCODE = 'serialization_failure';
END;
$$;
