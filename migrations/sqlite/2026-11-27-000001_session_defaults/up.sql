-- Every created_at has a default (SPEC 9); sessions' was written by the program only.
-- SQLite changes a column's default only by building the table anew.
CREATE TABLE sessions_new (
    token_hash TEXT PRIMARY KEY,
    account_id BIGINT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    csrf TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now')),
    last_seen_at TIMESTAMP NOT NULL
);
INSERT INTO sessions_new SELECT token_hash, account_id, csrf, created_at, last_seen_at FROM sessions;
DROP TABLE sessions;
ALTER TABLE sessions_new RENAME TO sessions;
CREATE INDEX sessions_account_idx ON sessions (account_id);
