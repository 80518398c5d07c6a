-- E-invoices (SPEC 24). A customer as a business names it (VAT id, buyer reference, and for
-- Italy codice fiscale, SdI code, PEC), on lines of their own; each order keeps its copy,
-- frozen once it is numbered, and its document's content hash covers it when it has one
-- (documents without it hash as before).
ALTER TABLE customers ADD COLUMN business TEXT;
ALTER TABLE orders ADD COLUMN customer_business TEXT;

-- Which documents the stringer hands out as e-invoices by default: every one, none, or
-- those of buyers with a VAT id.
ALTER TABLE stringers ADD COLUMN einvoice TEXT NOT NULL DEFAULT 'business'
    CHECK (einvoice IN ('yes', 'no', 'business'));

-- The buyer's identifiers are part of what an issued document shows.
CREATE FUNCTION receipts_keep_buyer_ids() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'order % has receipt number %: what its document shows cannot change',
        OLD.id, OLD.receipt_number;
END;
$$;
CREATE TRIGGER orders_keep_buyer_ids
    BEFORE UPDATE OF customer_business ON orders
    FOR EACH ROW WHEN (OLD.receipt_seq IS NOT NULL
        AND NEW.customer_business IS DISTINCT FROM OLD.customer_business)
    EXECUTE FUNCTION receipts_keep_buyer_ids();

CREATE OR REPLACE FUNCTION receipts_document_canonical(p_kind TEXT, p_stringer BIGINT, p_order BIGINT, p_year INTEGER, p_seq BIGINT)
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
                || CASE WHEN o.customer_business IS NULL THEN ''
                   ELSE receipts_canonical_field('customer_business', o.customer_business) END
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


-- An e-invoice written is a journal event of its own: which file, and its SHA-256.
CREATE OR REPLACE FUNCTION receipt_events_known_kinds() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.kind NOT IN ('mint', 'void', 'resync', 'v1_import', 'edit', 'send', 'payment', 'settle',
                        'customer_merge', 'customer_forget', 'notify', 'pickup', 'credit', 'restore',
                        'closure', 'key', 'seal', 'reminder', 'profile', 'einvoice') THEN
        RAISE EXCEPTION 'receipt_events has no kind %', NEW.kind USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;
