-- The journal proves itself (SPEC 23): every event carries, per stringer, a gapless `seq`,
-- the previous event's hash and its own: SHA-256 (hex) over the previous hash, a newline and
-- the event's canonical form (docs/JOURNAL.md). The chain's head is one row per stringer,
-- moved by the event's own transaction: concurrent writers wait for it as mints wait for
-- their counter. On PostgreSQL a trigger chains each event, so a mint stays one statement;
-- the program (`db::chain`) computes the same bytes on SQLite and when it verifies.
-- A restore declared by `resync-counters` is an event of its own.
CREATE OR REPLACE FUNCTION receipt_events_known_kinds() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.kind NOT IN ('mint', 'void', 'resync', 'v1_import', 'edit', 'send', 'payment', 'settle',
                        'customer_merge', 'customer_forget', 'notify', 'pickup', 'credit', 'restore') THEN
        RAISE EXCEPTION 'receipt_events has no kind %', NEW.kind USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;

CREATE TABLE chain_heads (
    stringer_id BIGINT PRIMARY KEY REFERENCES stringers (id),
    seq BIGINT NOT NULL CHECK (seq >= 0),
    hash TEXT NOT NULL,
    at TIMESTAMP NOT NULL,
    -- The first event chained as it was written: documents issued by it and later print a
    -- check value of their event's hash; those chained afterwards by the migration stay as
    -- they were.
    live_from BIGINT NOT NULL DEFAULT 1,
    updated_at TIMESTAMP NOT NULL DEFAULT (now() AT TIME ZONE 'UTC')
);
ALTER TABLE receipt_events
    ADD COLUMN seq BIGINT,
    ADD COLUMN prev_hash TEXT,
    ADD COLUMN hash TEXT;

-- A value of the canonical form: `name=` then `-` for nothing, else its length in bytes,
-- a colon and the value; one line each.
CREATE FUNCTION receipts_canonical_field(p_name TEXT, p_value TEXT) RETURNS TEXT
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT p_name || '=' || CASE WHEN p_value IS NULL THEN '-'
        ELSE octet_length(convert_to(p_value, 'UTF8'))::text || ':' || p_value END || E'\n'
$$;

-- The canonical form of an event: what its hash covers.
CREATE FUNCTION receipts_event_canonical(e receipt_events) RETURNS TEXT
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
$$;

CREATE FUNCTION receipts_sha256_hex(p_text TEXT) RETURNS TEXT
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT encode(sha256(convert_to(p_text, 'UTF8')), 'hex')
$$;

-- Where a stringer's chain begins: a hash of its id and handle.
CREATE FUNCTION receipts_chain_genesis(p_stringer BIGINT) RETURNS TEXT
LANGUAGE sql STABLE AS $$
    SELECT receipts_sha256_hex('receipts-chain-v1' || E'\n' || id::text || E'\n' || handle)
    FROM stringers WHERE id = p_stringer
$$;

-- Chains an event being written: the event numbered after the stringer's head and hashed.
-- The head is locked by the transaction's first event of the stringer (made at the genesis
-- for its first event ever); the transaction's later events follow the transaction-local
-- copy of it (`receipts.chain_<id>`, gone with the transaction: nothing of it outlives it,
-- as PgBouncer's transaction pooling wants), and the head's row is moved once, at commit
-- (`receipt_events_move_head`), so a payments import of 100,000 events does not rewrite one
-- row 100,000 times. An instant is never earlier than the previous event's.
CREATE FUNCTION receipt_events_chain() RETURNS trigger LANGUAGE plpgsql AS $$
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
    NEW.seq := head_seq + 1;
    NEW.prev_hash := head_hash;
    NEW.created_at := greatest(NEW.created_at, head_at);
    NEW.hash := receipts_sha256_hex(head_hash || E'\n' || receipts_event_canonical(NEW));
    PERFORM set_config(local, NEW.seq || '|' || NEW.hash || '|' || NEW.created_at::text, true);
    RETURN NEW;
END;
$$;

-- At commit: the head moved onto the transaction's last event of the stringer.
CREATE FUNCTION receipt_events_move_head() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF split_part(current_setting('receipts.chain_' || NEW.stringer_id, true), '|', 1) = NEW.seq::text THEN
        UPDATE chain_heads SET seq = NEW.seq, hash = NEW.hash, at = NEW.created_at,
            updated_at = (now() AT TIME ZONE 'UTC')
        WHERE stringer_id = NEW.stringer_id;
    END IF;
    RETURN NULL;
END;
$$;

-- The events written so far, chained in the order they were written.
ALTER TABLE receipt_events DISABLE TRIGGER receipt_events_append_only;
DO $$
DECLARE
    e receipt_events%ROWTYPE;
    last_stringer BIGINT := NULL;
    prev TEXT;
    n BIGINT;
    last_at TIMESTAMP;
BEGIN
    FOR e IN SELECT * FROM receipt_events ORDER BY stringer_id, id LOOP
        IF last_stringer IS DISTINCT FROM e.stringer_id THEN
            IF last_stringer IS NOT NULL THEN
                INSERT INTO chain_heads (stringer_id, seq, hash, at, live_from) VALUES (last_stringer, n, prev, last_at, n + 1);
            END IF;
            last_stringer := e.stringer_id;
            prev := receipts_chain_genesis(e.stringer_id);
            n := 0;
            last_at := e.created_at;
        END IF;
        n := n + 1;
        e.seq := n;
        e.prev_hash := prev;
        e.created_at := greatest(e.created_at, last_at);
        e.hash := receipts_sha256_hex(prev || E'\n' || receipts_event_canonical(e));
        UPDATE receipt_events SET seq = e.seq, prev_hash = e.prev_hash, hash = e.hash, created_at = e.created_at
        WHERE id = e.id;
        prev := e.hash;
        last_at := e.created_at;
    END LOOP;
    IF last_stringer IS NOT NULL THEN
        INSERT INTO chain_heads (stringer_id, seq, hash, at, live_from) VALUES (last_stringer, n, prev, last_at, n + 1);
    END IF;
END;
$$;
ALTER TABLE receipt_events ENABLE TRIGGER receipt_events_append_only;
CREATE UNIQUE INDEX receipt_events_chain_key ON receipt_events (stringer_id, seq);
CREATE TRIGGER receipt_events_chain
    BEFORE INSERT ON receipt_events
    FOR EACH ROW EXECUTE FUNCTION receipt_events_chain();
CREATE CONSTRAINT TRIGGER receipt_events_move_head
    AFTER INSERT ON receipt_events
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION receipt_events_move_head();
CREATE TRIGGER chain_heads_refuse_truncate
    BEFORE TRUNCATE ON chain_heads
    FOR EACH STATEMENT EXECUTE FUNCTION receipts_refuse_truncate();
