//! `receipts db`: the schema migrated, and where the database is.

use super::Context;
use crate::db::Access;
use anyhow::Context as _;
use clap::Subcommand;

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum Command {
    /// Apply the schema migrations this database lacks (SQLite files get them on first use)
    Migrate,
}

pub fn run(cmd: Command, ctx: &Context) -> anyhow::Result<()> {
    match cmd {
        Command::Migrate => {
            let mut db = ctx.open(Access::Migrate)?;
            let applied = db.migrate().context("cannot migrate the database")?;
            if applied.is_empty() {
                eprintln!("the schema is up to date");
            }
            for name in applied {
                eprintln!("applied migration {name}");
            }
            Ok(())
        }
    }
}
