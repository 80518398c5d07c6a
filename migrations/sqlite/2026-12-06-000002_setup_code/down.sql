DROP TABLE setup_code;
