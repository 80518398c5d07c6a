-- The day at the counter (SPEC 19): promised times, who was told the racket is ready, items
-- beside the stringing, string stock.

-- How long the stringer promises from drop-off, and what a ready notice says of pickup.
ALTER TABLE stringers ADD COLUMN turnaround_hours INTEGER NOT NULL DEFAULT 24
    CHECK (turnaround_hours BETWEEN 1 AND 8760);
ALTER TABLE stringers ADD COLUMN pickup_note TEXT;

-- `due_at`: when the racket was promised (UTC); `notified_at`: when the customer was last
-- told it is ready; `items_minor` and `item_count`: the sum and number of the order's items,
-- kept by order_items' triggers (the total is price_minor + items_minor); the string used: its length (NULL: the
-- sport's), whether the customer brought it, and a hybrid's cross string.
ALTER TABLE orders ADD COLUMN due_at TIMESTAMP;
ALTER TABLE orders ADD COLUMN notified_at TIMESTAMP;
ALTER TABLE orders ADD COLUMN items_minor BIGINT NOT NULL DEFAULT 0 CHECK (items_minor >= 0);
ALTER TABLE orders ADD COLUMN item_count INTEGER NOT NULL DEFAULT 0 CHECK (item_count >= 0);
ALTER TABLE orders ADD COLUMN string_length_cm INTEGER CHECK (string_length_cm BETWEEN 1 AND 100000);
ALTER TABLE orders ADD COLUMN own_string BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE orders ADD COLUMN cross_string TEXT;

-- The orders still on the bench were promised the default turnaround.
UPDATE orders SET due_at = strftime('%Y-%m-%d %H:%M:%f', ordered_at, '+24 hours')
WHERE strung_at IS NULL AND voided_at IS NULL AND ordered_at IS NOT NULL;

-- The queue: open orders by promised time; strung rackets waiting for their owner; the
-- evening count of payments.
CREATE INDEX orders_open_idx ON orders (stringer_id, due_at) WHERE strung_at IS NULL AND voided_at IS NULL;
CREATE INDEX orders_waiting_idx ON orders (stringer_id, strung_at)
    WHERE strung_at IS NOT NULL AND returned_at IS NULL AND voided_at IS NULL;
CREATE INDEX orders_paid_idx ON orders (stringer_id, paid_at) WHERE paid_at IS NOT NULL;

-- A hybrid's cross string and the items are printed: frozen with the rest at numbering.
CREATE TRIGGER orders_keep_items
    BEFORE UPDATE OF items_minor, item_count, cross_string ON orders
    FOR EACH ROW WHEN OLD.receipt_seq IS NOT NULL AND (
        NEW.items_minor IS NOT OLD.items_minor OR NEW.item_count IS NOT OLD.item_count
        OR NEW.cross_string IS NOT OLD.cross_string)
BEGIN
    SELECT RAISE(ABORT, 'an issued receipt''s document cannot change: what it shows cannot change');
END;

-- Lines after the stringing line: a grip, an overgrip, a rush surcharge.
CREATE TABLE order_items (
    id INTEGER PRIMARY KEY,
    order_id BIGINT NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    position INTEGER NOT NULL CHECK (position >= 1),
    text TEXT NOT NULL CHECK (trim(text) <> ''),
    price_minor BIGINT NOT NULL CHECK (price_minor >= 0),
    UNIQUE (order_id, position)
);

-- A numbered order's items never change; every change keeps the order's items_minor.
CREATE TRIGGER order_items_keep_on_insert
    BEFORE INSERT ON order_items
    FOR EACH ROW WHEN (SELECT receipt_seq FROM orders WHERE id = NEW.order_id) IS NOT NULL
BEGIN
    SELECT RAISE(ABORT, 'an issued receipt''s document cannot change: what it shows cannot change');
END;
CREATE TRIGGER order_items_keep_on_update
    BEFORE UPDATE ON order_items
    FOR EACH ROW WHEN (SELECT receipt_seq FROM orders WHERE id IN (OLD.order_id, NEW.order_id)
                       AND receipt_seq IS NOT NULL) IS NOT NULL
BEGIN
    SELECT RAISE(ABORT, 'an issued receipt''s document cannot change: what it shows cannot change');
END;
CREATE TRIGGER order_items_keep_on_delete
    BEFORE DELETE ON order_items
    FOR EACH ROW WHEN (SELECT receipt_seq FROM orders WHERE id = OLD.order_id) IS NOT NULL
BEGIN
    SELECT RAISE(ABORT, 'an issued receipt''s document cannot change: what it shows cannot change');
END;
CREATE TRIGGER order_items_sum_on_insert
    AFTER INSERT ON order_items
BEGIN
    UPDATE orders SET (items_minor, item_count) = (SELECT coalesce(sum(price_minor), 0), count(*) FROM order_items WHERE order_id = NEW.order_id)
    WHERE id = NEW.order_id;
END;
CREATE TRIGGER order_items_sum_on_update
    AFTER UPDATE ON order_items
BEGIN
    UPDATE orders SET (items_minor, item_count) = (SELECT coalesce(sum(price_minor), 0), count(*) FROM order_items WHERE order_id = orders.id)
    WHERE id IN (NEW.order_id, OLD.order_id);
END;
CREATE TRIGGER order_items_sum_on_delete
    AFTER DELETE ON order_items
BEGIN
    UPDATE orders SET (items_minor, item_count) = (SELECT coalesce(sum(price_minor), 0), count(*) FROM order_items WHERE order_id = OLD.order_id)
    WHERE id = OLD.order_id;
END;

-- String stock: strings by name (folded as search folds), and the moves that make up what is
-- left: a reel bought (+), a racket strung (-). Append-only.
CREATE TABLE strings (
    id INTEGER PRIMARY KEY,
    stringer_id BIGINT NOT NULL REFERENCES stringers (id),
    name TEXT NOT NULL CHECK (trim(name) <> ''),
    search_name TEXT NOT NULL,
    low_cm INTEGER CHECK (low_cm >= 0),
    created_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now')),
    UNIQUE (stringer_id, search_name)
);
CREATE TABLE string_moves (
    id INTEGER PRIMARY KEY,
    stringer_id BIGINT NOT NULL REFERENCES stringers (id),
    string_id BIGINT NOT NULL REFERENCES strings (id),
    order_id BIGINT REFERENCES orders (id),
    length_cm INTEGER NOT NULL CHECK (length_cm <> 0),
    cost_minor BIGINT CHECK (cost_minor >= 0),
    currency TEXT,
    created_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now'))
);
CREATE INDEX string_moves_string_idx ON string_moves (string_id);
CREATE TRIGGER string_moves_append_only_on_update
    BEFORE UPDATE ON string_moves
BEGIN
    SELECT RAISE(ABORT, 'string_moves is an append-only record of the stock');
END;
CREATE TRIGGER string_moves_append_only_on_delete
    BEFORE DELETE ON string_moves
BEGIN
    SELECT RAISE(ABORT, 'string_moves is an append-only record of the stock');
END;

-- The journal says who was told the racket is ready, and when it was picked up.
DROP TRIGGER receipt_events_known_kinds;
CREATE TRIGGER receipt_events_known_kinds
    BEFORE INSERT ON receipt_events
    FOR EACH ROW WHEN NEW.kind NOT IN ('mint', 'void', 'resync', 'v1_import', 'edit', 'send', 'payment', 'settle',
                                       'customer_merge', 'customer_forget', 'notify', 'pickup')
BEGIN
    SELECT RAISE(ABORT, 'CHECK constraint failed: kind');
END;
