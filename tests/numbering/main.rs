//! The numbering contract on real databases: every test runs on SQLite and PostgreSQL.

#[path = "../support/mod.rs"]
mod support;

mod chain;
mod concurrency;
mod credits;
mod lifecycle;
mod mint;
mod parity;
mod restore;
mod schema;
mod tenancy;
