-- The rebuilt tables keep their timestamp defaults and lowercase handles (harmless, and the
-- case the handles had is not kept); only the lowercase rule goes.
PRAGMA foreign_keys = OFF;
BEGIN IMMEDIATE;
CREATE TABLE old_stringers (
    id INTEGER PRIMARY KEY,
    handle TEXT NOT NULL UNIQUE CHECK (handle <> ''),
    name TEXT NOT NULL,
    timezone TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
INSERT INTO old_stringers SELECT id, handle, name, timezone, created_at, updated_at FROM stringers;
DROP TABLE stringers;
ALTER TABLE old_stringers RENAME TO stringers;
COMMIT;
PRAGMA foreign_keys = ON;
