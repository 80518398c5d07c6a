//! The restore runbook, docs/RESTORE.md, carried out command by command on both backends.
//! Every runbook line used here must appear verbatim in the document.

use super::*;
use std::path::{Path, PathBuf};

const RUNBOOK: &str = include_str!("../../docs/RESTORE.md");

/// The database the runbook talks about, and the directory the operator works in (the
/// SQLite file's own directory, where it is `receipts.db`).
struct Shop {
    db: TestDb,
    dir: PathBuf,
    _scratch: Option<tempfile::TempDir>,
}

impl Shop {
    /// Runs one command line of the runbook in the shop's directory, as an operator would.
    fn runbook(&self, line: &str) -> Output {
        assert!(RUNBOOK.contains(line), "docs/RESTORE.md does not show: {line}");
        let receipts_dir = PathBuf::from(env!("CARGO_BIN_EXE_receipts")).parent().unwrap().to_path_buf();
        let mut path = vec![receipts_dir];
        if let Ok(bindir) = std::env::var("RECEIPTS_TEST_PG_BINDIR") {
            path.push(bindir.into());
        }
        path.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(line)
            .current_dir(&self.dir)
            .env("PATH", std::env::join_paths(path).unwrap())
            .env("DATABASE_URL", &self.db.url)
            .env("TZ", "UTC")
            .output()
            .unwrap();
        let output = Output {
            code: out.status.code().unwrap(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        };
        assert!(!output.stderr.contains("panicked"), "{}", output.stderr);
        output
    }

    fn runbook_ok(&self, line: &str) -> Output {
        let out = self.runbook(line);
        assert_eq!(out.code, 0, "{line}: {}{}", out.stdout, out.stderr);
        out
    }

    /// `receipts` with this shop's database (for the work the runbook does not cover).
    fn receipts(&self, args: &[&str]) -> Output {
        run(&self.db, args)
    }

    fn mint_new_order(&self) -> Output {
        let order = self.receipts(&["order", "add", "--stringer", "stefan", "--price", "35.00"]);
        assert_eq!(order.code, 0, "{}", order.stderr);
        self.receipts(&["mint", "--order", order.stdout.trim(), "--at", "2026-06-01 10:00", "--backdate"])
    }

    fn mints(&self, expected: &str) {
        let out = self.mint_new_order();
        assert_eq!((out.code, out.stdout.trim()), (0, expected), "{}", out.stderr);
    }

    fn counter(&self) -> Option<i64> {
        self.db.query_i64("SELECT last_n FROM receipt_counters WHERE year = 2026")
    }
}

fn open_shop(db: TestDb) -> Shop {
    let shop = match db.backend {
        Backend::Sqlite => {
            let file = Path::new(&db.url);
            assert_eq!(file.file_name().unwrap(), "receipts.db");
            Shop { dir: file.parent().unwrap().to_path_buf(), db, _scratch: None }
        }
        Backend::Postgres => {
            let scratch = tempfile::tempdir().unwrap();
            Shop { dir: scratch.path().to_path_buf(), db, _scratch: Some(scratch) }
        }
    };
    assert_eq!(shop.receipts(&["stringer", "add", "stefan", "--timezone", "UTC"]).code, 0);
    shop.mints("2026-0001");
    shop.mints("2026-0002");
    shop
}

/// Case 1: counters older than the orders. The audit flags it, the mint refuses, resync repairs.
fn counters_behind_are_found_refused_and_repaired(shop: &Shop, restore_counters: &str) {
    shop.mints("2026-0003");
    shop.mints("2026-0004");
    shop.runbook_ok(restore_counters);
    assert_eq!(shop.counter(), Some(2), "the restore brought back the stale counter");

    let audit = shop.runbook("receipts audit");
    assert_eq!(audit.code, 1);
    assert!(audit.stdout.contains("counter 2 is behind the highest number 2026-0004"), "{}", audit.stdout);

    let refused = shop.mint_new_order();
    assert_eq!(refused.code, 1);
    assert!(refused.stderr.contains("run `receipts resync-counters`"), "{}", refused.stderr);
    assert_eq!(shop.counter(), Some(2), "the refused mint wrote nothing");

    let dry = shop.runbook_ok("receipts resync-counters --dry-run");
    assert!(dry.stdout.contains("| 2   | 4   | raised"), "{}", dry.stdout);
    assert_eq!(shop.counter(), Some(2), "a dry run writes nothing");
    shop.runbook_ok("receipts resync-counters");
    assert_eq!(shop.counter(), Some(4));
    shop.runbook_ok("receipts audit");
    shop.mints("2026-0005");
}

/// Case 2: a whole restore loses numbers customers hold; they are recorded, then skipped.
fn numbers_issued_after_the_backup_are_recorded_and_never_reissued(shop: &Shop, restore_all: &str) {
    shop.runbook_ok(restore_all);
    assert_eq!(shop.counter(), Some(2), "back to the moment of the backup");
    // The database cannot see what it lost: the audit is clean.
    shop.runbook_ok("receipts audit");

    shop.runbook_ok("receipts void --number 2026-0003 --stringer stefan --reason \"issued after the backup, order lost in the restore; customer receipt seen\"");
    for lost in ["2026-0004", "2026-0005"] {
        let out = shop.receipts(&[
            "void",
            "--number",
            lost,
            "--stringer",
            "stefan",
            "--reason",
            "lost in the restore",
        ]);
        assert_eq!(out.code, 0, "{}", out.stderr);
    }
    shop.runbook_ok("receipts resync-counters");
    assert_eq!(shop.counter(), Some(5));
    let audit = shop.runbook_ok("receipts audit");
    assert!(audit.stdout.contains("void 2026-0003"), "{}", audit.stdout);
    shop.mints("2026-0006");

    // A counter ahead of the orders is kept unless lowering is asked for.
    shop.db.execute("UPDATE receipt_counters SET last_n = 9").unwrap();
    let kept = shop.runbook_ok("receipts resync-counters");
    assert!(kept.stdout.contains("kept (ahead)"), "{}", kept.stdout);
    assert_eq!(shop.counter(), Some(9));
    assert_eq!(shop.runbook("receipts audit").code, 1, "2026-0007..2026-0009 are unexplained");
    shop.runbook_ok("receipts resync-counters --allow-lower");
    assert_eq!(shop.counter(), Some(6));
    shop.runbook_ok("receipts audit");
}

#[test]
fn restore_runbook_on_postgres() {
    let shop = open_shop(TestDb::postgres());
    shop.runbook_ok("pg_dump --format=custom --file=receipts.dump \"$DATABASE_URL\"");
    counters_behind_are_found_refused_and_repaired(
        &shop,
        "pg_restore --data-only --table=receipt_counters --file=- receipts.dump | psql --single-transaction --set=ON_ERROR_STOP=1 --command=\"DELETE FROM receipt_counters\" --file=- \"$DATABASE_URL\"",
    );
    numbers_issued_after_the_backup_are_recorded_and_never_reissued(
        &shop,
        "pg_restore --clean --if-exists --single-transaction --dbname=\"$DATABASE_URL\" receipts.dump",
    );
}

#[test]
fn restore_runbook_on_sqlite() {
    let shop = open_shop(TestDb::sqlite());
    shop.runbook_ok("sqlite3 receipts.db \".backup receipts-backup.db\"");
    counters_behind_are_found_refused_and_repaired(
        &shop,
        "sqlite3 receipts.db \"ATTACH 'receipts-backup.db' AS backup; DELETE FROM receipt_counters; INSERT INTO receipt_counters SELECT * FROM backup.receipt_counters;\"",
    );
    numbers_issued_after_the_backup_are_recorded_and_never_reissued(
        &shop,
        "cp receipts-backup.db receipts.db && rm -f receipts.db-wal receipts.db-shm",
    );
}
