-- Reminders (SPEC 22): an unpaid invoice chased in up to three levels, each a frozen
-- document of its own (never a change to the invoice), issued once per (invoice, level).
ALTER TABLE stringers ADD COLUMN remind_after_days INTEGER NOT NULL DEFAULT 7
    CHECK (remind_after_days BETWEEN 0 AND 365);
ALTER TABLE stringers ADD COLUMN remind_every_days INTEGER NOT NULL DEFAULT 14
    CHECK (remind_every_days BETWEEN 1 AND 365);
-- Invoices numbered before this day are never reminded (those the stringer chased by hand).
ALTER TABLE stringers ADD COLUMN remind_from DATE;
-- The fee of each level, none unless set (many countries allow none from consumers).
ALTER TABLE stringers ADD COLUMN reminder_fee_1_minor BIGINT CHECK (reminder_fee_1_minor >= 0);
ALTER TABLE stringers ADD COLUMN reminder_fee_2_minor BIGINT CHECK (reminder_fee_2_minor >= 0);
ALTER TABLE stringers ADD COLUMN reminder_fee_3_minor BIGINT CHECK (reminder_fee_3_minor >= 0);

-- Issued (with its journal event) in one transaction, then sent: `sent_at` (or, on paper,
-- `printed_at`) is set once, when the first delivery succeeded; nothing else ever changes.
CREATE TABLE reminders (
    id BIGSERIAL PRIMARY KEY,
    stringer_id BIGINT NOT NULL REFERENCES stringers (id),
    order_id BIGINT NOT NULL REFERENCES orders (id),
    level INTEGER NOT NULL CHECK (level BETWEEN 1 AND 3),
    issued_at TIMESTAMP NOT NULL,
    open_minor BIGINT NOT NULL CHECK (open_minor > 0),
    fee_minor BIGINT NOT NULL DEFAULT 0 CHECK (fee_minor >= 0),
    currency TEXT NOT NULL,
    due_on DATE NOT NULL,
    sent_at TIMESTAMP,
    printed_at TIMESTAMP,
    created_at TIMESTAMP NOT NULL DEFAULT (now() AT TIME ZONE 'UTC')
);
CREATE UNIQUE INDEX reminders_order_level_key ON reminders (order_id, level);
CREATE INDEX reminders_stringer_idx ON reminders (stringer_id, issued_at);
CREATE FUNCTION reminders_frozen() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE'
        OR (OLD.stringer_id, OLD.order_id, OLD.level, OLD.issued_at, OLD.open_minor, OLD.fee_minor,
            OLD.currency, OLD.due_on, OLD.created_at)
           IS DISTINCT FROM (NEW.stringer_id, NEW.order_id, NEW.level, NEW.issued_at, NEW.open_minor,
            NEW.fee_minor, NEW.currency, NEW.due_on, NEW.created_at)
        OR (OLD.sent_at IS NOT NULL AND NEW.sent_at IS DISTINCT FROM OLD.sent_at)
        OR (OLD.printed_at IS NOT NULL AND NEW.printed_at IS DISTINCT FROM OLD.printed_at) THEN
        RAISE EXCEPTION 'reminder % of order % is issued and cannot change', OLD.level, OLD.order_id;
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER reminders_frozen
    BEFORE UPDATE OR DELETE ON reminders
    FOR EACH ROW EXECUTE FUNCTION reminders_frozen();
CREATE TRIGGER reminders_refuse_truncate
    BEFORE TRUNCATE ON reminders
    FOR EACH STATEMENT EXECUTE FUNCTION receipts_refuse_truncate();

-- A payment of the open amount plus a reminder's fee records the fee.
ALTER TABLE payments ADD COLUMN fee_minor BIGINT NOT NULL DEFAULT 0 CHECK (fee_minor >= 0);

-- The unpaid invoices, found without reading the paid ones (a shop's orders are mostly paid).
CREATE INDEX orders_unpaid_idx ON orders (stringer_id, id)
    WHERE receipt_number IS NOT NULL AND paid_at IS NULL AND voided_at IS NULL;

CREATE OR REPLACE FUNCTION receipt_events_known_kinds() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.kind NOT IN ('mint', 'void', 'resync', 'v1_import', 'edit', 'send', 'payment', 'settle',
                        'customer_merge', 'customer_forget', 'notify', 'pickup', 'credit', 'restore',
                        'closure', 'key', 'seal', 'reminder') THEN
        RAISE EXCEPTION 'receipt_events has no kind %', NEW.kind USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;
