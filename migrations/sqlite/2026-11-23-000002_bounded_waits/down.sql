-- PostgreSQL only (see up.sql).
SELECT 1;
