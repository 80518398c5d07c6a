//! The V1 -> V2 backfill (`receipts migrate-v1 FILE`).
//!
//! Policy: all or nothing. The first pass reads and checks the whole file, keeping only a
//! small key per row, and numbers the rows; any problem stops the import before anything
//! is written. The second pass reads the file again and loads it in one transaction. Memory
//! grows with the number of rows by a few dozen bytes each, never with their content.

mod file;
mod load;
mod plan;
mod problems;
mod row;
mod stringers;

use crate::db::{Db, Lock};
use crate::domain::{default_timezone, ReceiptNumber};
use crate::error::Error;
use chrono_tz::Tz;
use file::V1File;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use plan::{Key, Plan};
use problems::Problems;
use row::V1Row;
use serde::Serialize;
use std::path::Path;
use stringers::Registry;

#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The stringer of rows whose `stringer` is empty or missing.
    pub stringer: Option<String>,
    /// The zone of stringers the import creates [default: this machine's].
    pub timezone: Option<Tz>,
    pub dry_run: bool,
    /// Draw progress bars on stderr.
    pub progress: bool,
}

/// What an import did (or, for a dry run, would do).
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub groups: Vec<GroupReport>,
    /// Rows in the file.
    pub rows: u64,
    /// Rows that were not imported before.
    pub new_orders: u64,
    pub created_stringers: Vec<String>,
    /// The time zone the created stringers get.
    pub timezone_for_new: String,
    pub dry_run: bool,
    pub warnings: Vec<String>,
}

/// The file's orders of one (stringer, year); `year` is None for orders never strung.
#[derive(Debug, Clone, Serialize)]
pub struct GroupReport {
    pub stringer: String,
    pub year: Option<i32>,
    pub orders: u64,
    pub numbered: u64,
    pub first: Option<ReceiptNumber>,
    pub last: Option<ReceiptNumber>,
}

/// Imports a V1 export: checks all of it, numbers it, loads it in one transaction.
pub fn migrate_v1(db: &mut Db, path: &Path, options: &Options) -> Result<Report, Error> {
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let bar = |what: &str| progress_bar(options.progress, size, what);
    let zone_for_new = match options.timezone {
        Some(zone) => zone,
        None => default_timezone().map_err(Error::Usage)?,
    };
    let mut registry = db.read(|conn| Registry::load(conn, zone_for_new))?;

    let (mut file, warnings) = V1File::open(path, options.stringer.is_some(), bar("checking"))?;
    let columns = file.columns.clone();
    let mut problems = Problems::default();
    let mut keys = Vec::new();
    let mut row = 0u32;
    while let Some(next) = file.next_record() {
        let parsed = match next {
            Ok((line, record)) => {
                V1Row::parse(record, line, &columns, options.stringer.as_deref(), &mut problems)
            }
            Err(problem) => {
                problems.push(problem);
                None
            }
        };
        if let Some(parsed) = parsed {
            let stringer = registry.index(parsed.stringer);
            let zone = registry.get(stringer).zone;
            match parsed.instants(zone) {
                Ok(instants) => keys.push(Key {
                    row,
                    line: parsed.line,
                    stringer,
                    kind: parsed.kind,
                    v1_id: parsed.v1_id,
                    strung: instants.strung_at.map(|at| (crate::domain::local_year(at, zone), at)),
                }),
                Err(problem) => problems.push(problem),
            }
        }
        row += 1;
    }
    let digest = file.digest();
    drop(file);
    let plan = Plan::new(keys, &registry, &mut problems);
    problems.into_result()?;

    let source = load::Source { path, digest, bar: &bar };
    // One import at a time; what another import wrote before this one got its turn is
    // looked at again inside the lock.
    let mut report = db.transaction(Lock::Import, |conn| {
        registry.refresh(conn)?;
        let report = load::load(conn, &source, &plan, &mut registry, options)?;
        // The orders it brought, linked to the register as the register's own migration
        // linked the orders there were.
        if !options.dry_run {
            crate::db::customers::link_orders(conn)?;
        }
        Ok(report)
    })?;
    report.warnings = warnings;
    if !report.dry_run && report.new_orders > 0 {
        db.refresh_statistics(crate::db::Loaded::Orders);
    }
    Ok(report)
}

fn progress_bar(visible: bool, bytes: u64, what: &str) -> ProgressBar {
    if !visible {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(bytes), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{msg:>9} [{bar:40}] {bytes}/{total_bytes} ({eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_message(what.to_string());
    bar
}
