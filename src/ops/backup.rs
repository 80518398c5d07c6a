//! A consistent copy of a live SQLite database (`VACUUM INTO`: one read transaction, so
//! commands may go on writing meanwhile), checked before it is called a backup.

use crate::db::audit::{audit, Problem, YearAudit};
use crate::db::{sqlite_file, Access, DatabaseUrl, Db, DEFAULT_LOCK_TIMEOUT};
use crate::error::{first_line, Error};
use crate::files::NewFile;
use std::path::Path;

/// What the copy holds, as its audit sees it.
#[derive(Debug)]
pub struct Backup {
    pub sequences: usize,
    pub numbers: i64,
}

/// Copies the open SQLite database to `target`, a file that must not exist yet, and
/// verifies the copy: SQLite's integrity check, and an audit that finds the same problems
/// (none, for a sound database) as the source's.
pub fn backup(db: &mut Db, target: &Path) -> Result<Backup, Error> {
    if !db.is_sqlite() {
        return Err(Error::NotSqlite);
    }
    let exists = || Error::OutputExists { path: target.display().to_string(), what: "a backup" };
    if target.exists() {
        return Err(exists());
    }
    let cannot = |e: &dyn std::fmt::Display| {
        Error::InputFile(format!(
            "cannot write the backup {}: {}",
            target.display(),
            first_line(&e.to_string())
        ))
    };
    let before = problems(&db.read(|conn| audit(conn, None, None))?);
    // Written beside the target, verified there, and only then put in place.
    let copy = NewFile::create(target).map_err(|e| cannot(&e))?;
    // VACUUM cannot run inside a transaction; on its own it is one read transaction. It
    // writes into the empty temporary file.
    db.without_transaction(|conn| sqlite_file::copy_into(conn, copy.temp_path())).map_err(|e| cannot(&e))?;
    let verified = verify(copy.temp_path(), target, &before)?;
    copy.commit().map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => exists(),
        _ => cannot(&e),
    })?;
    Ok(verified)
}

/// Checks the copy written at `written`, to be called `target`.
fn verify(
    written: &Path,
    target: &Path,
    expected_problems: &[(String, i32, Problem)],
) -> Result<Backup, Error> {
    let mut copy = Db::open(&DatabaseUrl::Sqlite(written.to_path_buf()), Access::Read, DEFAULT_LOCK_TIMEOUT)?;
    let checks = copy.read(|conn| Ok(sqlite_file::integrity_check(conn)?))?;
    if checks != ["ok"] {
        return Err(Error::BackupUnsound {
            path: target.display().to_string(),
            why: format!(
                "failed SQLite's integrity check ({})",
                checks.first().map_or("no answer", String::as_str)
            ),
        });
    }
    let report = copy.read(|conn| audit(conn, None, None))?;
    if problems(&report) != expected_problems {
        return Err(Error::BackupUnsound {
            path: target.display().to_string(),
            why: "does not audit like the database it copies".into(),
        });
    }
    Ok(Backup { sequences: report.len(), numbers: report.iter().map(|y| y.numbers).sum() })
}

/// Every problem of the report, with its (stringer, year).
fn problems(report: &[YearAudit]) -> Vec<(String, i32, Problem)> {
    report
        .iter()
        .flat_map(|y| y.problems.iter().map(move |p| (y.stringer.clone(), y.year, p.clone())))
        .collect()
}
