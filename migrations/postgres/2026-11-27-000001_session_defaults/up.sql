-- Every created_at has a default (SPEC 9); sessions' was written by the program only.
ALTER TABLE sessions ALTER COLUMN created_at SET DEFAULT (now() AT TIME ZONE 'UTC');
