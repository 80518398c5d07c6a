DROP TABLE login_failures;
DROP TABLE sessions;
DROP TABLE accounts;
