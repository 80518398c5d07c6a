//! The real `receipts` binary run as people and scripts run it, against a test database:
//! what it prints where, and its exit code.

use super::TestDb;
use diesel::connection::SimpleConnection;
use diesel::{Connection, PgConnection};
use std::path::Path;
use std::process::{Command, Stdio};

/// The `receipts` binary that cargo built for these tests, with nothing of the caller's
/// environment but the clock the tests run under.
pub fn binary() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_receipts"));
    cmd.env_clear().envs(faked_clock());
    cmd
}

/// The variables of the clock these tests run under when `scripts/test-at` moved it
/// (libfaketime), for a program that must see the same time: the program under test, never
/// a server or the browser, which keep the real clock (`real_clock`).
pub fn faked_clock() -> Vec<(&'static str, std::ffi::OsString)> {
    if std::env::var_os("FAKETIME").is_none() {
        return Vec::new();
    }
    ["LD_PRELOAD", "FAKETIME", "DONT_FAKE_MONOTONIC"]
        .into_iter()
        .filter_map(|name| Some((name, std::env::var_os(name)?)))
        .collect()
}

/// The real clock's now (UTC), also under scripts/test-at, which moves this process's.
pub fn real_now() -> chrono::NaiveDateTime {
    let moved = std::env::var("FAKETIME").ok().and_then(|offset| offset.parse::<i64>().ok()).unwrap_or(0);
    chrono::Utc::now().naive_utc() - chrono::Duration::seconds(moved)
}

/// Debian's libfaketime, which moves the clock of a program it is preloaded into.
fn libfaketime() -> &'static std::path::Path {
    static FOUND: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    FOUND.get_or_init(|| {
        std::fs::read_dir("/usr/lib")
            .into_iter()
            .flatten()
            .flatten()
            .map(|dir| dir.path().join("faketime/libfaketime.so.1"))
            .find(|library| library.exists())
            .expect("libfaketime is missing: install Debian's faketime (scripts/test does)")
    })
}

/// A server or browser started by a test keeps the real clock: libfaketime stalls
/// PostgreSQL's lock timeouts, and Chromium does not start under it.
pub fn real_clock(cmd: &mut Command) -> &mut Command {
    cmd.env_remove("LD_PRELOAD").env_remove("FAKETIME").env_remove("DONT_FAKE_MONOTONIC")
}

/// `receipts` against a test database, with nothing of the caller's environment leaking in.
pub fn receipts(db: &TestDb) -> Command {
    let mut cmd = binary();
    if let Some(offset) = db.clock {
        cmd.env("LD_PRELOAD", libfaketime())
            .env("FAKETIME", format!("{offset:+}"))
            .env("DONT_FAKE_MONOTONIC", "1");
    }
    cmd.env("DATABASE_URL", &db.url)
        .env("RUST_BACKTRACE", "1")
        .env("TZ", "UTC")
        .current_dir(std::env::temp_dir());
    cmd
}

pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
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

pub fn run(db: &TestDb, args: &[&str]) -> Output {
    receipts(db).args(args).output().unwrap().into()
}

/// Runs a command that must succeed; returns its stdout without the final newline.
pub fn ok(db: &TestDb, args: &[&str]) -> String {
    let out = run(db, args);
    assert_eq!(out.code, 0, "receipts {args:?} failed: {}", out.stderr);
    out.stdout.trim_end_matches('\n').to_string()
}

/// Runs a command that must fail with `code`; returns its one-line message.
pub fn fails(db: &TestDb, code: i32, args: &[&str]) -> String {
    let out = run(db, args);
    assert_eq!(out.code, code, "receipts {args:?}: {}", out.stderr);
    assert_eq!(out.stdout, "", "nothing on stdout when failing");
    out.stderr.trim_end().to_string()
}

/// The journal's entries of one kind (`what`: "mint", "send", "payment", ...), as JSON.
pub fn journaled(db: &TestDb, what: &str) -> Vec<serde_json::Value> {
    let json: serde_json::Value = serde_json::from_str(&ok(db, &["journal", "--format", "json"])).unwrap();
    json.as_array().unwrap().iter().filter(|e| e["what"] == what).cloned().collect()
}

/// `receipts ARGS` with its clock started at the instant `when` (UTC, `YYYY-MM-DD
/// HH:MM:SS`), with the keys in `keys`.
pub fn at(db: &TestDb, keys: &Path, when: &str, args: &[&str]) -> Output {
    clock_started_at(&mut receipts(db), when)
        .env("RECEIPTS_KEY_DIR", keys)
        .args(args)
        .output()
        .unwrap()
        .into()
}

/// `cmd` with its clock started at `when` (UTC, `YYYY-MM-DD HH:MM:SS`, then optionally
/// libfaketime's ` xN` for a clock N times as fast), ticking on from there.
pub fn clock_started_at<'a>(cmd: &'a mut Command, when: &str) -> &'a mut Command {
    cmd.env("LD_PRELOAD", libfaketime()).env("FAKETIME", format!("@{when}")).env("DONT_FAKE_MONOTONIC", "1")
}

/// `at`, which must succeed; its stdout without the final newline.
pub fn ok_at(db: &TestDb, keys: &Path, when: &str, args: &[&str]) -> String {
    let out = at(db, keys, when, args);
    assert_eq!(out.code, 0, "receipts {args:?} at {when}: {}", out.stderr);
    out.stdout.trim_end().to_string()
}

/// The password every test account has.
pub const PASSWORD: &str = "correct horse battery";

/// `account add ARGS --password-stdin`, `password` written to its stdin.
pub fn add_account(db: &TestDb, args: &[&str], password: &str) -> std::process::Output {
    receipts(db)
        .args(["account", "add"])
        .args(args)
        .arg("--password-stdin")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(format!("{password}\n").as_bytes())?;
            child.wait_with_output()
        })
        .unwrap()
}

/// A DBA's lock on the orders table, held until dropped (PostgreSQL).
pub struct TableLock(PgConnection);

impl TableLock {
    pub fn hold(url: &str) -> TableLock {
        let mut conn = PgConnection::establish(url).unwrap();
        conn.batch_execute("BEGIN; LOCK TABLE orders IN ACCESS EXCLUSIVE MODE").unwrap();
        TableLock(conn)
    }
}

impl Drop for TableLock {
    fn drop(&mut self) {
        let _ = self.0.batch_execute("ROLLBACK");
    }
}

/// The QR reference of a receipt, computed here the way the SIX guidelines say (mod 10
/// recursive), independently of the program's own.
pub fn qrr(stringer: i64, year: i32, seq: i64) -> String {
    let body = format!("{stringer:08}{year:04}{seq:014}");
    let table = [0u32, 9, 4, 6, 8, 2, 7, 1, 3, 5];
    let mut carry = 0u32;
    for digit in body.chars().map(|c| c.to_digit(10).unwrap()) {
        carry = table[((carry + digit) % 10) as usize];
    }
    format!("{body}{}", (10 - carry) % 10)
}

/// A stringer's database id.
pub fn stringer_id(db: &TestDb, handle: &str) -> i64 {
    db.query_i64(&format!("SELECT id FROM stringers WHERE handle = '{handle}'")).unwrap()
}

/// Runs a poppler or qpdf tool; they must be installed (scripts/test installs them).
pub fn tool(program: &str, args: &[&str]) -> String {
    let out = std::process::Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{program} is needed by the PDF tests (Debian poppler-utils, qpdf): {e}"));
    assert!(out.status.success(), "{program} {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}
