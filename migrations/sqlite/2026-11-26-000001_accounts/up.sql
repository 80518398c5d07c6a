-- The counter in the browser (SPEC 20): accounts of one stringer each, their sessions, and
-- failed logins (for throttling). Sessions live here, not in a process: several `serve`
-- processes on one database share them.

CREATE TABLE accounts (
    id INTEGER PRIMARY KEY,
    stringer_id BIGINT NOT NULL REFERENCES stringers (id),
    username TEXT NOT NULL UNIQUE CHECK (trim(username) <> ''),
    -- A PHC string, `$argon2id$...`: never the password.
    password_hash TEXT NOT NULL CHECK (password_hash LIKE '$argon2id$%'),
    role TEXT NOT NULL CHECK (role IN ('owner', 'staff')),
    language TEXT CHECK (language IN ('de', 'en', 'fr', 'it')),
    disabled_at TIMESTAMP,
    created_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now'))
);

-- A session is found by the BLAKE2b hash of its cookie: what the table holds opens no session.
CREATE TABLE sessions (
    token_hash TEXT PRIMARY KEY,
    account_id BIGINT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    csrf TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    last_seen_at TIMESTAMP NOT NULL
);
CREATE INDEX sessions_account_idx ON sessions (account_id);

CREATE TABLE login_failures (
    id INTEGER PRIMARY KEY,
    username TEXT NOT NULL,
    failed_at TIMESTAMP NOT NULL
);
CREATE INDEX login_failures_idx ON login_failures (username, failed_at);
