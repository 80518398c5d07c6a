-- Searching the register (SPEC 18) from an index: names, e-mails and phone digits by their
-- trigrams (FTS5's trigram tokenizer over the customers table itself, kept by triggers), so
-- a search no longer reads every customer of the shop.
CREATE VIRTUAL TABLE customers_text USING fts5 (
    search_name, search_email, phone_digits,
    content = 'customers', content_rowid = 'id', tokenize = 'trigram'
);
INSERT INTO customers_text (customers_text) VALUES ('rebuild');

CREATE TRIGGER customers_text_added AFTER INSERT ON customers BEGIN
    INSERT INTO customers_text (rowid, search_name, search_email, phone_digits)
    VALUES (new.id, new.search_name, new.search_email, new.phone_digits);
END;

CREATE TRIGGER customers_text_removed AFTER DELETE ON customers BEGIN
    INSERT INTO customers_text (customers_text, rowid, search_name, search_email, phone_digits)
    VALUES ('delete', old.id, old.search_name, old.search_email, old.phone_digits);
END;

CREATE TRIGGER customers_text_changed AFTER UPDATE OF search_name, search_email, phone_digits ON customers
BEGIN
    INSERT INTO customers_text (customers_text, rowid, search_name, search_email, phone_digits)
    VALUES ('delete', old.id, old.search_name, old.search_email, old.phone_digits);
    INSERT INTO customers_text (rowid, search_name, search_email, phone_digits)
    VALUES (new.id, new.search_name, new.search_email, new.phone_digits);
END;
