//! `receipts`: orders of racket stringers and their receipt numbers `YYYY-NNNN`, counted per
//! stringer per calendar year, never reused, never changed, never skipped without a reason.
//!
//! The library holds everything (`main` only parses and reports) so that tests and
//! benchmarks call the same code the command line runs.

pub mod bank;
pub mod cli;
pub mod config;
pub mod db;
pub mod domain;
pub mod einvoice;
pub mod error;
pub mod files;
pub mod interrupt;
pub mod mail;
pub mod ops;
pub mod payment;
pub mod receipt;
pub mod signing;
pub mod v1;
pub mod web;

pub use error::Error;
