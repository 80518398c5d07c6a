//! The real `receipts` binary, as people and scripts use it: what it prints where, its
//! error messages and exit codes. The user surface is snapshotted, so changes are deliberate.

#[path = "../support/mod.rs"]
mod support;

use std::process::Command;
use support::*;

/// The `receipts` binary that cargo built for these tests.
fn binary() -> Command {
    Command::new(env!("CARGO_BIN_EXE_receipts"))
}

/// `receipts` against a test database, with nothing of the caller's environment leaking in.
fn receipts(db: &TestDb) -> Command {
    let mut cmd = binary();
    cmd.env_clear()
        .env("DATABASE_URL", &db.url)
        .env("RUST_BACKTRACE", "1")
        .env("TZ", "UTC")
        .current_dir(std::env::temp_dir());
    cmd
}

struct Output {
    code: i32,
    stdout: String,
    stderr: String,
}

impl From<std::process::Output> for Output {
    /// What a finished process left: never a panic.
    fn from(out: std::process::Output) -> Output {
        let output = Output {
            code: out.status.code().expect("exited, not killed"),
            stdout: String::from_utf8(out.stdout).unwrap(),
            stderr: String::from_utf8(out.stderr).unwrap(),
        };
        assert!(!output.stderr.contains("panicked"), "{}", output.stderr);
        output
    }
}

fn run(db: &TestDb, args: &[&str]) -> Output {
    receipts(db).args(args).output().unwrap().into()
}

/// Runs a command that must succeed; returns its stdout without the final newline.
fn ok(db: &TestDb, args: &[&str]) -> String {
    let out = run(db, args);
    assert_eq!(out.code, 0, "receipts {args:?} failed: {}", out.stderr);
    out.stdout.trim_end_matches('\n').to_string()
}

/// The journal's entries of one kind (`what`: "mint", "send", "payment", ...), as JSON.
fn journaled(db: &TestDb, what: &str) -> Vec<serde_json::Value> {
    let json: serde_json::Value = serde_json::from_str(&ok(db, &["journal", "--format", "json"])).unwrap();
    json.as_array().unwrap().iter().filter(|e| e["what"] == what).cloned().collect()
}

/// Runs a command that must fail with `code`; returns its one-line message.
fn fails(db: &TestDb, code: i32, args: &[&str]) -> String {
    let out = run(db, args);
    assert_eq!(out.code, code, "receipts {args:?}: {}", out.stderr);
    assert_eq!(out.stdout, "", "nothing on stdout when failing");
    out.stderr.trim_end().to_string()
}

/// A stringer in Zurich with one order; returns the order id.
fn shop(db: &TestDb) -> String {
    assert_eq!(
        ok(db, &["stringer", "add", "stefan", "--name", "Stefan Muster", "--timezone", "Europe/Zurich"]),
        "stefan"
    );
    ok(
        db,
        &[
            "order",
            "add",
            "--stringer",
            "stefan",
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

/// Runs a poppler or qpdf tool; they must be installed (scripts/test installs them).
fn tool(program: &str, args: &[&str]) -> String {
    let out = std::process::Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{program} is needed by the PDF tests (Debian poppler-utils, qpdf): {e}"));
    assert!(out.status.success(), "{program} {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

mod availability;
mod bank;
mod browser;
mod counter;
mod deploy;
mod errors;
mod files;
mod frozen;
mod guard_rails;
mod help;
mod ledger;
mod lookups;
mod migrate_v1;
mod payment;
mod production;
mod receipt;
mod register;
mod restore;
mod send;
mod session;
mod vat;
mod web;
