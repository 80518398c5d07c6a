-- PostgreSQL only: lock waits reported the same in every server language. SQLite's
-- messages are not translated, and its write lock is taken with BEGIN IMMEDIATE under the
-- busy timeout (src/db/mod.rs). Kept so both trees have the same steps.
SELECT 1;
