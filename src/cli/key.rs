//! `receipts key`: the stringer's signing key for the day's closures.

use super::{Context, StringerOpt};
use crate::db::Access;
use crate::ops::closures;
use crate::signing;
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Make the stringer's signing key (Ed25519), write it to its file (never into the
    /// database) and record its public key in the journal; prints the public key to keep
    Init(Opts),
    /// Replace the signing key: the old key signs the new, the journal records both, and the
    /// old key file is kept beside the new as FILE.retired-FINGERPRINT
    Rotate(Opts),
}

#[derive(Debug, Args)]
pub struct Opts {
    #[command(flatten)]
    stringer: StringerOpt,
    /// The key file [default: keys/HANDLE.ed25519 in the data directory, or in
    /// RECEIPTS_KEY_DIR]
    #[arg(long, value_name = "FILE")]
    key_file: Option<PathBuf>,
}

pub fn run(command: Command, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Write)?;
    let (tenant, key, path, verb) = match command {
        Command::Init(opts) => {
            let (tenant, key, path) =
                closures::key_init(&mut db, opts.stringer.whose(), opts.key_file.as_deref())?;
            (tenant, key, path, "made")
        }
        Command::Rotate(opts) => {
            let (tenant, key, path) =
                closures::key_rotate(&mut db, opts.stringer.whose(), opts.key_file.as_deref())?;
            (tenant, key, path, "rotated")
        }
    };
    let public = key.public_hex();
    println!("{public}");
    eprintln!(
        "signing key of {} {verb}: {} (fingerprint {}); keep the public key above outside the database, \
         `receipts audit --verify --public-key` checks the closures against it",
        tenant.handle(),
        path.display(),
        signing::fingerprint(&public)
    );
    Ok(())
}
