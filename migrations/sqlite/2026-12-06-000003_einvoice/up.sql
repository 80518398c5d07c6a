-- E-invoices (SPEC 24). A customer as a business names it (VAT id, buyer reference, and for
-- Italy codice fiscale, SdI code, PEC), on lines of their own; each order keeps its copy,
-- frozen once it is numbered.
ALTER TABLE customers ADD COLUMN business TEXT;
ALTER TABLE orders ADD COLUMN customer_business TEXT;

-- Which documents the stringer hands out as e-invoices by default: every one, none, or
-- those of buyers with a VAT id.
ALTER TABLE stringers ADD COLUMN einvoice TEXT NOT NULL DEFAULT 'business'
    CHECK (einvoice IN ('yes', 'no', 'business'));

-- The buyer's identifiers are part of what an issued document shows.
CREATE TRIGGER orders_keep_buyer_ids
    BEFORE UPDATE OF customer_business ON orders
    FOR EACH ROW WHEN OLD.receipt_seq IS NOT NULL AND NEW.customer_business IS NOT OLD.customer_business
BEGIN
    SELECT RAISE(ABORT, 'an issued receipt''s document cannot change: what it shows cannot change');
END;

-- An e-invoice written is a journal event of its own: which file, and its SHA-256.
DROP TRIGGER receipt_events_known_kinds;
CREATE TRIGGER receipt_events_known_kinds
    BEFORE INSERT ON receipt_events
    FOR EACH ROW WHEN NEW.kind NOT IN ('mint', 'void', 'resync', 'v1_import', 'edit', 'send', 'payment', 'settle',
                                       'customer_merge', 'customer_forget', 'notify', 'pickup', 'credit', 'restore',
                                       'closure', 'key', 'seal', 'reminder', 'profile', 'einvoice')
BEGIN
    SELECT RAISE(ABORT, 'CHECK constraint failed: kind');
END;
