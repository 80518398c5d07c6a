//! A consistent copy of a live SQLite database (`VACUUM INTO`: one read transaction, so
//! commands may go on writing meanwhile), checked before it is called a backup.

use crate::db::audit::{audit, Problem, YearAudit};
use crate::db::{sqlite_file, Access, DatabaseUrl, Db, DEFAULT_LOCK_TIMEOUT};
use crate::domain::now_utc;
use crate::error::{first_line, Error};
use crate::files::NewFile;
use std::path::{Path, PathBuf};

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

/// `backup --out-dir`: a backup named `receipts-YYYYMMDD-HHMMSS.sqlite3` (UTC) in `dir`
/// (made if missing), then, with `keep`, the oldest files named exactly so beyond `keep`
/// removed, never the one just written nor a file of another name (a `pre-upgrade-...`
/// backup, the owner's own). Returns the new file, what it holds, and what was removed.
pub fn backup_into(
    db: &mut Db,
    dir: &Path,
    keep: Option<u32>,
) -> Result<(PathBuf, Backup, Vec<PathBuf>), Error> {
    if !db.is_sqlite() {
        return Err(Error::NotSqlite);
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::InputFile(format!("cannot create {}: {e}", dir.display())))?;
    let name = format!("receipts-{}.sqlite3", now_utc().format("%Y%m%d-%H%M%S"));
    let target = dir.join(&name);
    let done = backup(db, &target)?;
    let Some(keep) = keep else { return Ok((target, done, Vec::new())) };
    let cannot = |e: std::io::Error| Error::InputFile(format!("cannot list {}: {e}", dir.display()));
    let mut older = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(cannot)? {
        let file = entry.map_err(cannot)?.file_name().to_string_lossy().into_owned();
        if is_timed_backup(&file) && file != name {
            older.push(file);
        }
    }
    // Newest first by name, which is by time; the one just written counts as one kept.
    older.sort_unstable_by(|a, b| b.cmp(a));
    let mut removed = Vec::new();
    for file in older.into_iter().skip(keep as usize - 1) {
        let path = dir.join(file);
        std::fs::remove_file(&path).map_err(|e| {
            Error::InputFile(format!("cannot remove the older backup {}: {e}", path.display()))
        })?;
        removed.push(path);
    }
    Ok((target, done, removed))
}

/// Whether `name` is exactly `receipts-YYYYMMDD-HHMMSS.sqlite3`.
fn is_timed_backup(name: &str) -> bool {
    let Some(stamp) = name.strip_prefix("receipts-").and_then(|rest| rest.strip_suffix(".sqlite3")) else {
        return false;
    };
    let digits = |part: &str, count: usize| part.len() == count && part.bytes().all(|b| b.is_ascii_digit());
    matches!(stamp.split_once('-'), Some((day, time)) if digits(day, 8) && digits(time, 6))
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

#[cfg(test)]
mod tests {
    #[test]
    fn only_backups_named_by_their_time_are_rotated() {
        for name in ["receipts-20261206-153000.sqlite3", "receipts-19990101-000000.sqlite3"] {
            assert!(super::is_timed_backup(name), "{name}");
        }
        for name in [
            "pre-upgrade-0.9.0-20261206-153000.sqlite3",
            "receipts-2026.sqlite3",
            "receipts-20261206-153000.sqlite3.bak",
            "receipts-2026120-1530000.sqlite3",
            "receipts-20261206-15300a.sqlite3",
            "my-receipts-20261206-153000.sqlite3",
        ] {
            assert!(!super::is_timed_backup(name), "{name}");
        }
    }
}
