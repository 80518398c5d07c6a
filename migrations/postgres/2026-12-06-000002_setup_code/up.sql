-- The one-time code of the first run in the browser (SPEC 25): at most one, kept as its
-- hash; used up by the setup.
CREATE TABLE setup_code (
    id BIGINT PRIMARY KEY CHECK (id = 1),
    code_hash TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL DEFAULT (now() AT TIME ZONE 'UTC')
);
