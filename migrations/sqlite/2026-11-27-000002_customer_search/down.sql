DROP TRIGGER customers_text_changed;
DROP TRIGGER customers_text_removed;
DROP TRIGGER customers_text_added;
DROP TABLE customers_text;
