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
-- The journal's rare kinds (a key, a closure, a restore, a seal) are looked up by kind:
-- closing a day must not read a million mints to find the key.
CREATE INDEX receipt_events_kind_idx ON receipt_events (stringer_id, kind, seq);
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
                        'closure', 'key', 'seal') THEN
        RAISE EXCEPTION 'receipt_events has no kind %', NEW.kind USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;

-- Events of a document carry the SHA-256 of its frozen content, what the document prints
-- (docs/JOURNAL.md): a frozen field changed later no longer matches its event. The event's
-- canonical form gains a `document` line for it (events without one hash as before).
ALTER TABLE receipt_events ADD COLUMN document_hash TEXT;

-- The canonical forms' helpers call convert_to, which is STABLE: declared IMMUTABLE they
-- could not be inlined, and each call was a function call of its own (a document's form
-- makes forty). Declared as what they are, the planner inlines them.
ALTER FUNCTION receipts_canonical_field(TEXT, TEXT) STABLE;
ALTER FUNCTION receipts_sha256_hex(TEXT) STABLE;

-- (PL/pgSQL, so that its queries' plans are kept for the session: a trigger calls it for
-- every mint.)
CREATE FUNCTION receipts_document_canonical(p_kind TEXT, p_stringer BIGINT, p_order BIGINT, p_year INTEGER, p_seq BIGINT)
RETURNS TEXT LANGUAGE plpgsql STABLE AS $$
DECLARE
    canonical TEXT;
BEGIN
    IF p_kind = 'mint' THEN
        SELECT 'receipts-document-v1' || E'\n'
                || receipts_canonical_field('kind', 'receipt')
                || receipts_canonical_field('number', o.receipt_number)
                || receipts_canonical_field('order', o.id::text)
                || receipts_canonical_field('order_kind', o.kind)
                || receipts_canonical_field('strung_at', (extract(epoch FROM o.strung_at) * 1000000)::bigint::text)
                || receipts_canonical_field('customer', o.customer)
                || receipts_canonical_field('customer_address', o.customer_address)
                || receipts_canonical_field('customer_postal', o.customer_postal)
                || receipts_canonical_field('customer_note', o.customer_note)
                || receipts_canonical_field('racket', o.racket)
                || receipts_canonical_field('string', o.string)
                || receipts_canonical_field('cross_string', o.cross_string)
                || receipts_canonical_field('tension', o.tension)
                || receipts_canonical_field('own_string', o.own_string::text)
                || receipts_canonical_field('price_minor', o.price_minor::text)
                || receipts_canonical_field('items_minor', o.items_minor::text)
                || receipts_canonical_field('currency', o.currency)
                || receipts_canonical_field('vat_rate_bp', o.vat_rate_bp::text)
                || receipts_canonical_field('issuer', o.issuer_id::text)
                || coalesce((SELECT string_agg(receipts_canonical_field('item',
                       it.position::text || ' ' || it.price_minor::text || ' ' || it.text), '' ORDER BY it.position)
                   FROM order_items it WHERE it.order_id = o.id), '')
                || coalesce((SELECT ''
                    || receipts_canonical_field('issuer_name', i.name)
                    || receipts_canonical_field('issuer_address', i.address)
                    || receipts_canonical_field('issuer_email', i.email)
                    || receipts_canonical_field('issuer_phone', i.phone)
                    || receipts_canonical_field('issuer_vat_number', i.vat_number)
                    || receipts_canonical_field('issuer_tax_number', i.tax_number)
                    || receipts_canonical_field('issuer_small_business', i.small_business::text)
                    || receipts_canonical_field('issuer_language', i.language)
                    || receipts_canonical_field('issuer_street', i.street)
                    || receipts_canonical_field('issuer_house_number', i.house_number)
                    || receipts_canonical_field('issuer_postcode', i.postcode)
                    || receipts_canonical_field('issuer_town', i.town)
                    || receipts_canonical_field('issuer_country', i.country)
                    || receipts_canonical_field('issuer_iban', i.iban)
                    || receipts_canonical_field('issuer_bic', i.bic)
                    || receipts_canonical_field('issuer_payment_days', i.payment_days::text)
                    || receipts_canonical_field('issuer_siret', i.siret)
                    || receipts_canonical_field('issuer_account_holder', i.account_holder)
                   FROM issuers i WHERE i.id = o.issuer_id), '')
            FROM orders o WHERE o.id = p_order AND o.stringer_id = p_stringer
        INTO canonical;
    ELSIF p_kind = 'credit' THEN
        SELECT 'receipts-document-v1' || E'\n'
                || receipts_canonical_field('kind', 'credit_note')
                || receipts_canonical_field('number', c.credit_number)
                || receipts_canonical_field('order', c.order_id::text)
                || receipts_canonical_field('issued_at', (extract(epoch FROM c.issued_at) * 1000000)::bigint::text)
                || receipts_canonical_field('amount_minor', c.amount_minor::text)
                || receipts_canonical_field('currency', c.currency)
                || receipts_canonical_field('vat_rate_bp', c.vat_rate_bp::text)
                || receipts_canonical_field('vat_minor', c.vat_minor::text)
                || receipts_canonical_field('reason', c.reason)
                || receipts_canonical_field('refund_method', c.refund_method)
                || receipts_canonical_field('issuer', c.issuer_id::text)
                || receipts_canonical_field('credited_before_minor', c.credited_before_minor::text)
                || receipts_canonical_field('completes', c.completes::text)
            FROM credit_notes c WHERE c.stringer_id = p_stringer AND c.credit_year = p_year AND c.credit_seq = p_seq
        INTO canonical;
    END IF;
    RETURN canonical;
END;
$$;

CREATE OR REPLACE FUNCTION receipts_event_canonical(e receipt_events) RETURNS TEXT
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT 'receipts-event-v1' || E'\n'
        || receipts_canonical_field('seq', e.seq::text)
        || receipts_canonical_field('stringer', e.stringer_id::text)
        || receipts_canonical_field('kind', e.kind)
        || receipts_canonical_field('year', e.year::text)
        || receipts_canonical_field('first_seq', e.first_seq::text)
        || receipts_canonical_field('last_seq', e.last_seq::text)
        || receipts_canonical_field('order', e.order_id::text)
        || receipts_canonical_field('counter_old', e.counter_old::text)
        || receipts_canonical_field('counter_new', e.counter_new::text)
        || receipts_canonical_field('reason', e.reason)
        || receipts_canonical_field('at', (extract(epoch FROM e.created_at) * 1000000)::bigint::text)
        || receipts_canonical_field('field', e.field)
        || receipts_canonical_field('old', e.old_value)
        || receipts_canonical_field('new', e.new_value)
        || CASE WHEN e.document_hash IS NULL THEN '' ELSE receipts_canonical_field('document', e.document_hash) END
$$;

CREATE OR REPLACE FUNCTION receipt_events_chain() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    local TEXT := 'receipts.chain_' || NEW.stringer_id;
    held TEXT := current_setting(local, true);
    head_seq BIGINT;
    head_hash TEXT;
    head_at TIMESTAMP;
BEGIN
    IF held IS NULL OR held = '' THEN
        INSERT INTO chain_heads (stringer_id, seq, hash, at)
        VALUES (NEW.stringer_id, 0, receipts_chain_genesis(NEW.stringer_id), NEW.created_at)
        ON CONFLICT (stringer_id) DO NOTHING;
        SELECT seq, hash, at INTO head_seq, head_hash, head_at
        FROM chain_heads WHERE stringer_id = NEW.stringer_id FOR UPDATE;
    ELSE
        head_seq := split_part(held, '|', 1)::bigint;
        head_hash := split_part(held, '|', 2);
        head_at := split_part(held, '|', 3)::timestamp;
    END IF;
    IF NEW.kind IN ('mint', 'credit') AND NEW.order_id IS NOT NULL THEN
        NEW.document_hash := receipts_sha256_hex(
            receipts_document_canonical(NEW.kind, NEW.stringer_id, NEW.order_id, NEW.year, NEW.first_seq));
    END IF;
    NEW.seq := head_seq + 1;
    NEW.prev_hash := head_hash;
    NEW.created_at := greatest(NEW.created_at, head_at);
    NEW.hash := receipts_sha256_hex(head_hash || E'\n' || receipts_event_canonical(NEW));
    PERFORM set_config(local, NEW.seq || '|' || NEW.hash || '|' || NEW.created_at::text, true);
    RETURN NEW;
END;
$$;

-- The documents issued before their events carried content hashes are sealed by one event
-- per stringer: SHA-256 over a line `SEQ HASH` per issuing event, in chain order, HASH the
-- document's content hash as it stands now (docs/JOURNAL.md). `audit --verify` recomputes it.
INSERT INTO receipt_events (kind, stringer_id, year, reason, created_at, field, old_value, new_value)
SELECT 'seal', e.stringer_id, extract(year FROM now() AT TIME ZONE 'UTC')::integer,
    'the documents issued before their events carried content hashes', now() AT TIME ZONE 'UTC',
    'documents', count(*)::text,
    receipts_sha256_hex(string_agg(e.seq::text || ' ' || coalesce(receipts_sha256_hex(
        receipts_document_canonical(e.kind, e.stringer_id, e.order_id, e.year, e.first_seq)), '-') || E'\n',
        '' ORDER BY e.seq))
FROM receipt_events e
WHERE e.kind IN ('mint', 'credit') AND e.order_id IS NOT NULL AND e.document_hash IS NULL
GROUP BY e.stringer_id;

-- Personal values of events (an e-mail address a document went to, internal notes, an
-- address changed) are kept here, beside their event; the event itself carries only a
-- salted digest of each, so `customer forget` can erase them and the chain still verifies.
CREATE TABLE event_values (
    event_id BIGINT PRIMARY KEY REFERENCES receipt_events (id),
    salt TEXT NOT NULL,
    old_value TEXT,
    new_value TEXT,
    created_at TIMESTAMP NOT NULL DEFAULT (now() AT TIME ZONE 'UTC')
);
