-- Customers and their rackets (SPEC 18): who the customers are, what each racket had last
-- time. Per stringer, as orders are. `search_name` is the name folded as search compares it
-- (receipts_fold: case, accents and repeated spaces ignored), `search_email` the e-mail
-- so folded; `phone_digits` the phone's digits; `postal` the structured address as orders keep theirs (street, house number,
-- postcode, town, country, one per line).
CREATE TABLE customers (
    id INTEGER PRIMARY KEY,
    stringer_id BIGINT NOT NULL REFERENCES stringers (id),
    name TEXT NOT NULL CHECK (trim(name) <> ''),
    search_name TEXT NOT NULL,
    email TEXT,
    search_email TEXT,
    phone TEXT,
    phone_digits TEXT,
    address TEXT,
    postal TEXT,
    notes TEXT,
    forgotten_at TIMESTAMP,
    created_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now')),
    updated_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now'))
);
CREATE INDEX customers_search_idx ON customers (stringer_id, search_name, id);

-- A racket of a customer; its tag (the shop's own mark on the frame) is unique per stringer.
CREATE TABLE rackets (
    id INTEGER PRIMARY KEY,
    stringer_id BIGINT NOT NULL REFERENCES stringers (id),
    customer_id BIGINT NOT NULL REFERENCES customers (id),
    model TEXT,
    search_model TEXT NOT NULL DEFAULT '',
    sport TEXT NOT NULL DEFAULT 'tennis' CHECK (sport IN ('tennis', 'badminton', 'squash')),
    pattern TEXT,
    tag TEXT CHECK (tag IS NULL OR trim(tag) <> ''),
    notes TEXT,
    created_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now')),
    updated_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now'))
);
CREATE UNIQUE INDEX rackets_tag_key ON rackets (stringer_id, tag) WHERE tag IS NOT NULL;
CREATE INDEX rackets_customer_idx ON rackets (customer_id);

ALTER TABLE orders ADD COLUMN customer_id BIGINT REFERENCES customers (id);
ALTER TABLE orders ADD COLUMN racket_id BIGINT REFERENCES rackets (id);
CREATE INDEX orders_customer_idx ON orders (customer_id) WHERE customer_id IS NOT NULL;
CREATE INDEX orders_racket_idx ON orders (racket_id) WHERE racket_id IS NOT NULL;

-- The orders there are, linked: one customer per stringer and name as search compares it,
-- named as on the latest order (by ordered_at), with the latest e-mail and addresses any of
-- them had; one racket per customer and racket text likewise. The stringer's own orders stay
-- unlinked. Documents print what their orders froze, which this does not touch.
INSERT INTO customers (stringer_id, name, search_name, email, search_email, address, postal, created_at, updated_at)
SELECT stringer_id, name, search_name, email, receipts_fold(email), address, postal, strftime('%Y-%m-%d %H:%M:%f', 'now'), strftime('%Y-%m-%d %H:%M:%f', 'now')
FROM (
    SELECT stringer_id, search_name,
        row_number() OVER latest AS rank,
        first_value(customer) OVER latest AS name,
        first_value(email) OVER (PARTITION BY stringer_id, search_name
            ORDER BY (email IS NULL), (ordered_at IS NULL), ordered_at DESC, id DESC) AS email,
        first_value(customer_address) OVER (PARTITION BY stringer_id, search_name
            ORDER BY (customer_address IS NULL), (ordered_at IS NULL), ordered_at DESC, id DESC) AS address,
        first_value(customer_postal) OVER (PARTITION BY stringer_id, search_name
            ORDER BY (customer_postal IS NULL), (ordered_at IS NULL), ordered_at DESC, id DESC) AS postal
    FROM (SELECT o.*, receipts_fold(o.customer) AS search_name FROM orders o WHERE o.kind = 'client') folded
    WHERE search_name <> ''
    WINDOW latest AS (PARTITION BY stringer_id, search_name ORDER BY (ordered_at IS NULL), ordered_at DESC, id DESC)
) grouped
WHERE rank = 1;

UPDATE orders SET customer_id = c.id
FROM customers c
WHERE orders.kind = 'client' AND c.stringer_id = orders.stringer_id AND c.search_name = receipts_fold(orders.customer);

INSERT INTO rackets (stringer_id, customer_id, model, search_model, created_at, updated_at)
SELECT stringer_id, customer_id, model, search_model, strftime('%Y-%m-%d %H:%M:%f', 'now'), strftime('%Y-%m-%d %H:%M:%f', 'now')
FROM (
    SELECT stringer_id, customer_id, search_model,
        row_number() OVER latest AS rank,
        first_value(racket) OVER latest AS model
    FROM (SELECT o.*, receipts_fold(o.racket) AS search_model FROM orders o WHERE o.customer_id IS NOT NULL) folded
    WHERE search_model <> ''
    WINDOW latest AS (PARTITION BY customer_id, search_model ORDER BY (ordered_at IS NULL), ordered_at DESC, id DESC)
) grouped
WHERE rank = 1;

UPDATE orders SET racket_id = r.id
FROM rackets r
WHERE orders.customer_id = r.customer_id AND r.search_model = receipts_fold(orders.racket);

-- The journal records merges and forgotten customers too.
DROP TRIGGER receipt_events_known_kinds;
CREATE TRIGGER receipt_events_known_kinds
    BEFORE INSERT ON receipt_events
    FOR EACH ROW WHEN NEW.kind NOT IN ('mint', 'void', 'resync', 'v1_import', 'edit', 'send', 'payment', 'settle', 'customer_merge', 'customer_forget')
BEGIN
    SELECT RAISE(ABORT, 'CHECK constraint failed: kind');
END;
