-- What the journal says of one order (its sends and notices: the order page asks whether
-- its document went out) is found by the order, not by reading the stringer's whole journal.
CREATE INDEX receipt_events_order_idx ON receipt_events (order_id, kind) WHERE order_id IS NOT NULL;
