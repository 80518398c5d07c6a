//! `receipts backup FILE` and `backup --out-dir DIR [--keep N]`: a checked copy of a live
//! SQLite database; in a directory, named by the time it was made, the oldest beyond N
//! removed.

use super::Context;
use crate::db::Access;
use crate::ops::backup::{backup, backup_into};
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("to").required(true).args(["file", "out_dir"]))]
pub struct Opts {
    /// The new file (it must not exist)
    file: Option<PathBuf>,
    /// Write receipts-YYYYMMDD-HHMMSS.sqlite3 (UTC) in this directory instead
    #[arg(long, value_name = "DIR", conflicts_with = "file")]
    out_dir: Option<PathBuf>,
    /// With --out-dir: keep this many such backups, removing the oldest (never a file of
    /// another name)
    #[arg(long, value_name = "N", requires = "out_dir", conflicts_with = "file", value_parser = clap::value_parser!(u32).range(1..))]
    keep: Option<u32>,
}

pub fn run(opts: Opts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Read)?;
    let (file, done, removed) = match (opts.file, opts.out_dir) {
        (Some(file), _) => {
            let done = backup(&mut db, &file)?;
            (file, done, Vec::new())
        }
        (None, Some(dir)) => backup_into(&mut db, &dir, opts.keep)?,
        (None, None) => unreachable!("clap requires a file or --out-dir"),
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
