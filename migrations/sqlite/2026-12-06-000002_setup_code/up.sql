-- The one-time code of the first run in the browser (SPEC 25): at most one, kept as its
-- hash; used up by the setup.
CREATE TABLE setup_code (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    code_hash TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now'))
);
