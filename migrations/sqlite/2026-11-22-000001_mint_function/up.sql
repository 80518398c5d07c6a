-- PostgreSQL only: there the mint is a server-side function. SQLite mints in the program
-- (src/db/mint.rs), inside one BEGIN IMMEDIATE transaction. Kept so both trees have the
-- same steps.
SELECT 1;
