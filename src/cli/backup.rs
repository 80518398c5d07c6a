//! `receipts backup FILE`: a checked copy of a live SQLite database.

use super::Context;
use crate::db::Access;
use crate::ops::backup::backup;
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct Opts {
    /// The new file (it must not exist)
    file: PathBuf,
}

pub fn run(opts: Opts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Read)?;
    let done = backup(&mut db, &opts.file)?;
    eprintln!(
        "backed up to {}: integrity ok, audit as the database's ({} sequences, {} numbers)",
        opts.file.display(),
        done.sequences,
        done.numbers
    );
    Ok(())
}
