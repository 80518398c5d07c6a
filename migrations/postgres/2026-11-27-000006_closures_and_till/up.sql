-- The day's closure (SPEC 23): numbered gapless per stringer, signed with the stringer's
-- Ed25519 key (kept outside the database), and itself an event of the chain. Keys are
-- recorded as `key` events. And the till: `till` is a payment taken through the shop's own
-- certified till, where the law wants one at the counter.
ALTER TABLE orders DROP CONSTRAINT orders_payment_method_check,
    ADD CONSTRAINT orders_payment_method_check
        CHECK (payment_method IN ('cash', 'card', 'twint', 'transfer', 'other', 'till'));
ALTER TABLE credit_notes DROP CONSTRAINT credit_notes_refund_method_check,
    ADD CONSTRAINT credit_notes_refund_method_check
        CHECK (refund_method IN ('cash', 'card', 'twint', 'transfer', 'other', 'till', 'none'));

CREATE TABLE closures (
    id BIGSERIAL PRIMARY KEY,
    stringer_id BIGINT NOT NULL REFERENCES stringers (id),
    seq BIGINT NOT NULL CHECK (seq > 0),
    day DATE NOT NULL,
    -- The events covered: first_event_seq..=event_seq of the stringer's chain.
    first_event_seq BIGINT NOT NULL CHECK (first_event_seq > 0),
    event_seq BIGINT NOT NULL CHECK (event_seq >= first_event_seq),
    event_hash TEXT NOT NULL,
    -- Canonical JSON (docs/JOURNAL.md): counts and sums per series, currency and VAT rate,
    -- voids per series, payments per method and currency; the perpetual grand totals.
    totals TEXT NOT NULL,
    grand_totals TEXT NOT NULL,
    -- The previous closure's digest (of the first: the chain's genesis).
    previous TEXT NOT NULL,
    digest TEXT NOT NULL,
    public_key TEXT NOT NULL,
    signature TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL DEFAULT (now() AT TIME ZONE 'UTC')
);
CREATE UNIQUE INDEX closures_seq_key ON closures (stringer_id, seq);
CREATE FUNCTION closures_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'closure % is signed and cannot change', OLD.seq;
END;
$$;
CREATE TRIGGER closures_append_only
    BEFORE UPDATE OR DELETE ON closures
    FOR EACH ROW EXECUTE FUNCTION closures_append_only();
CREATE TRIGGER closures_refuse_truncate
    BEFORE TRUNCATE ON closures
    FOR EACH STATEMENT EXECUTE FUNCTION receipts_refuse_truncate();

CREATE OR REPLACE FUNCTION receipt_events_known_kinds() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.kind NOT IN ('mint', 'void', 'resync', 'v1_import', 'edit', 'send', 'payment', 'settle',
                        'customer_merge', 'customer_forget', 'notify', 'pickup', 'credit', 'restore',
                        'closure', 'key') THEN
        RAISE EXCEPTION 'receipt_events has no kind %', NEW.kind USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;
