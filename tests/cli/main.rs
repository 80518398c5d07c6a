//! The real `receipts` binary, as people and scripts use it: what it prints where, its
//! error messages and exit codes. The user surface is snapshotted, so changes are deliberate.

#[path = "../support/mod.rs"]
mod support;

use std::process::Command;
use support::cli::*;
use support::shop::Shop;
use support::*;

/// A stringer in Zurich with one order; returns the order id.
fn shop(db: &TestDb) -> String {
    Shop::new(db).stringer("stefan", "Stefan Muster", &[]);
    Shop::new(db).order(
        "stefan",
        &[
            "--customer",
            "Roger",
            "--racket",
            "Pro Staff 97",
            "--string",
            "RPM Blast 1.25",
            "--tension",
            "24/23",
            "--price",
            "35.50",
            "--ordered-at",
            "2026-11-20 17:45",
        ],
    )
}

/// The PDF of an order, as bytes.
fn pdf(db: &TestDb, order: &str) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("receipt.pdf");
    ok(db, &["receipt", order, "-o", path.to_str().unwrap()]);
    std::fs::read(path).unwrap()
}

/// A V1 export of the fixtures.
fn fixture(name: &str) -> String {
    format!("{}/fixtures/v1/{name}", env!("CARGO_MANIFEST_DIR"))
}

mod availability;
mod bank;
mod closure;
mod counter;
mod credit;
mod deploy;
mod einvoice;
mod errors;
mod files;
mod frozen;
mod guard_rails;
mod help;
mod in_shop;
mod ledger;
mod lookups;
mod migrate_v1;
mod part_payment;
mod payment;
mod production;
mod receipt;
mod register;
mod remind;
mod restore;
mod send;
mod session;
mod till;
mod vat;
