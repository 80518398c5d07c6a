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
-- unlinked. Documents print what their orders froze, which this does not touch. Each spelling
-- is folded once (a million orders have some thousand names). Joins are written CROSS JOIN
-- ... WHERE so that SQLite keeps the order written (orders, spelling, customer).
CREATE TEMPORARY TABLE spellings AS
SELECT DISTINCT customer AS spelling, receipts_fold(customer) AS search_name FROM orders
WHERE kind = 'client' AND customer IS NOT NULL;
CREATE TEMPORARY TABLE models AS
SELECT DISTINCT racket AS spelling, receipts_fold(racket) AS search_model FROM orders
WHERE kind = 'client' AND racket IS NOT NULL;

INSERT INTO customers (stringer_id, name, search_name, email, search_email, address, postal, created_at, updated_at)
SELECT stringer_id, name, search_name, email, receipts_fold(email), address, postal, strftime('%Y-%m-%d %H:%M:%f', 'now'), strftime('%Y-%m-%d %H:%M:%f', 'now')
FROM (
    SELECT o.stringer_id, s.search_name,
        row_number() OVER latest AS rank,
        first_value(o.customer) OVER latest AS name,
        first_value(o.email) OVER (PARTITION BY o.stringer_id, s.search_name
            ORDER BY (o.email IS NULL), (o.ordered_at IS NULL), o.ordered_at DESC, o.id DESC) AS email,
        first_value(o.customer_address) OVER (PARTITION BY o.stringer_id, s.search_name
            ORDER BY (o.customer_address IS NULL), (o.ordered_at IS NULL), o.ordered_at DESC, o.id DESC) AS address,
        first_value(o.customer_postal) OVER (PARTITION BY o.stringer_id, s.search_name
            ORDER BY (o.customer_postal IS NULL), (o.ordered_at IS NULL), o.ordered_at DESC, o.id DESC) AS postal
    FROM orders o CROSS JOIN spellings s
    WHERE s.spelling = o.customer AND o.kind = 'client' AND s.search_name <> ''
    WINDOW latest AS (PARTITION BY o.stringer_id, s.search_name ORDER BY (o.ordered_at IS NULL), o.ordered_at DESC, o.id DESC)
) grouped
WHERE rank = 1;

INSERT INTO rackets (stringer_id, customer_id, model, search_model, created_at, updated_at)
SELECT stringer_id, customer_id, model, search_model, strftime('%Y-%m-%d %H:%M:%f', 'now'), strftime('%Y-%m-%d %H:%M:%f', 'now')
FROM (
    SELECT o.stringer_id, c.id AS customer_id, m.search_model,
        row_number() OVER latest AS rank,
        first_value(o.racket) OVER latest AS model
    FROM orders o CROSS JOIN spellings s CROSS JOIN customers c CROSS JOIN models m
    WHERE s.spelling = o.customer AND c.stringer_id = o.stringer_id AND c.search_name = s.search_name
      AND m.spelling = o.racket AND o.kind = 'client' AND m.search_model <> ''
    WINDOW latest AS (PARTITION BY c.id, m.search_model ORDER BY (o.ordered_at IS NULL), o.ordered_at DESC, o.id DESC)
) grouped
WHERE rank = 1;

-- Customer and racket in one pass over the orders.
UPDATE orders SET customer_id = links.customer_id, racket_id = links.racket_id
FROM (
    SELECT o.id, c.id AS customer_id, r.id AS racket_id
    FROM orders o CROSS JOIN spellings s CROSS JOIN customers c
    LEFT JOIN models m ON m.spelling = o.racket
    LEFT JOIN rackets r ON r.customer_id = c.id AND r.search_model = m.search_model
    WHERE s.spelling = o.customer AND c.stringer_id = o.stringer_id AND c.search_name = s.search_name
      AND o.kind = 'client'
) links
WHERE orders.id = links.id;
DROP TABLE spellings;
DROP TABLE models;

-- The journal records merges and forgotten customers too.
DROP TRIGGER receipt_events_known_kinds;
CREATE TRIGGER receipt_events_known_kinds
    BEFORE INSERT ON receipt_events
    FOR EACH ROW WHEN NEW.kind NOT IN ('mint', 'void', 'resync', 'v1_import', 'edit', 'send', 'payment', 'settle', 'customer_merge', 'customer_forget')
BEGIN
    SELECT RAISE(ABORT, 'CHECK constraint failed: kind');
END;
