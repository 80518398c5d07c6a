//! `receipts backup FILE` and `backup --out-dir DIR [--keep N]`: a checked copy of a live
//! SQLite database; in a directory, named by the time it was made, the oldest beyond N
//! removed.

use super::Context;
use crate::db::Access;
use crate::ops::backup::{backup, backup_into};
use crate::Error;
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct Opts {
    /// The new file (it must not exist)
    file: Option<PathBuf>,
    /// Write receipts-YYYYMMDD-HHMMSS.sqlite3 (UTC) in this directory instead [default,
    /// without FILE: RECEIPTS_BACKUP_DIR, as the shop's configuration sets it]
    #[arg(long, value_name = "DIR", conflicts_with = "file")]
    out_dir: Option<PathBuf>,
    /// With --out-dir: keep this many such backups, removing the oldest (never a file of
    /// another name) [default: RECEIPTS_BACKUP_KEEP, with the configured directory]
    #[arg(long, value_name = "N", requires = "out_dir", conflicts_with = "file", value_parser = clap::value_parser!(u32).range(1..))]
    keep: Option<u32>,
}

/// The variables of the shop's daily backup (its configuration sets them; the timer's
/// service runs `receipts backup` with neither a file nor a directory).
const BACKUP_DIR: &str = "RECEIPTS_BACKUP_DIR";
const BACKUP_KEEP: &str = "RECEIPTS_BACKUP_KEEP";

pub fn run(opts: Opts, ctx: &Context) -> anyhow::Result<()> {
    let (dir, keep) = match (&opts.file, opts.out_dir) {
        (None, None) => configured()?,
        (_, dir) => (dir, opts.keep),
    };
    let mut db = ctx.open(Access::Read)?;
    let (file, done, removed) = match (opts.file, dir) {
        (Some(file), _) => {
            let done = backup(&mut db, &file)?;
            (file, done, Vec::new())
        }
        (None, Some(dir)) => backup_into(&mut db, &dir, keep)?,
        (None, None) => unreachable!("configured() gives a directory"),
    };
    eprintln!(
        "backed up to {}: integrity ok, audit as the database's ({} sequences, {} numbers)",
        file.display(),
        done.sequences,
        done.numbers
    );
    for old in &removed {
        eprintln!("removed the older backup {}", old.display());
    }
    Ok(())
}

/// The configured backup directory and count, for `receipts backup` without FILE or --out-dir.
fn configured() -> Result<(Option<PathBuf>, Option<u32>), Error> {
    let dir = std::env::var_os(BACKUP_DIR).filter(|d| !d.is_empty()).ok_or_else(|| {
        Error::Usage(format!(
            "give the backup's FILE or --out-dir DIR (or set {BACKUP_DIR} in the configuration)"
        ))
    })?;
    let keep = match std::env::var(BACKUP_KEEP) {
        Err(_) => None,
        Ok(n) if n.is_empty() => None,
        Ok(n) => Some(n.parse::<u32>().ok().filter(|n| *n >= 1).ok_or_else(|| {
            Error::Usage(format!("{BACKUP_KEEP}={n:?} is not a count of backups to keep (1 or more)"))
        })?),
    };
    Ok((Some(PathBuf::from(dir)), keep))
}
