//! Writing a planned V1 file: one transaction that creates the new stringers, compares rows
//! imported before, refuses to renumber, loads the new rows in bulk (binary COPY on
//! PostgreSQL, a cached single-row INSERT on SQLite), sets the counters and journals the
//! import.

use super::file::V1File;
use super::plan::{Group, Plan};
use super::problems::{Problem, Problems};
use super::row::{Instants, V1Row};
use super::stringers::Registry;
use super::{GroupReport, Options, Report};
use crate::db::events::{self, Event};
use crate::db::v1_import::{self, NewOrder};
use crate::db::{counters, stringers, vat, DbConn};
use crate::domain::{local_date, now_utc, Currency, OrderKind, ReceiptNumber, Series, StringerId};
use crate::error::Error;
use indicatif::ProgressBar;
use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};
use std::path::Path;

/// Rows held in memory between writes: one binary COPY on PostgreSQL; on SQLite the same
/// rows go through one cached single-row INSERT each.
const CHUNK: usize = 10_000;

/// A row imported before, as far as a re-import needs to know it.
struct Imported {
    fingerprint: u64,
    number: Option<ReceiptNumber>,
}

type Identity = (StringerId, OrderKind, i64);

/// A second (and third) pass over the file, checked to be the same file as the first.
pub struct Source<'a> {
    pub path: &'a Path,
    pub digest: u64,
    pub bar: &'a dyn Fn(&str) -> ProgressBar,
}

pub fn load(
    conn: &mut DbConn,
    source: &Source<'_>,
    plan: &Plan,
    registry: &mut Registry,
    options: &Options,
) -> Result<Report, Error> {
    if !options.dry_run {
        registry.create_new(conn)?;
    }
    crate::db::prepare_bulk(conn)?;
    let stringer_ids: Vec<StringerId> = registry.entries().iter().filter_map(|e| e.id()).collect();
    let imported = imported_rows(conn, &stringer_ids)?;
    refuse_renumbering(conn, plan, registry, &imported)?;

    if !imported.is_empty() {
        compare_with_imported(source, plan, registry, &imported, options)?;
    }
    let now = now_utc();
    // The VAT rates of the stringers that charge VAT: numbered rows freeze theirs.
    let mut rates: HashMap<StringerId, vat::History> = HashMap::new();
    for tenant in registry.entries().iter().filter_map(|e| e.tenant.as_ref()) {
        if stringers::profile(conn, tenant)?.business.charges_vat() {
            rates.insert(tenant.id(), vat::history(conn, tenant)?);
        }
    }
    let mut new_numbers: BTreeMap<(u32, i32), (i64, i64)> = BTreeMap::new();
    let mut new_orders = 0u64;
    let mut chunk: Vec<NewOrder> = Vec::with_capacity(CHUNK);
    each_row(source, "loading", registry, options, |row, instants, index| {
        // Stringers are only created for real; in a dry run every row of a new one is new.
        let stringer_id = registry.get(index.stringer).id();
        if let Some(id) = stringer_id {
            if imported.contains_key(&(id, row.kind, row.v1_id)) {
                return Ok(());
            }
        }
        new_orders += 1;
        let number = plan.number(index.row);
        if let Some(number) = number {
            let range = new_numbers.entry((index.stringer, number.year)).or_insert((number.seq, number.seq));
            range.0 = range.0.min(number.seq);
            range.1 = range.1.max(number.seq);
        }
        let Some(stringer_id) = stringer_id.filter(|_| !options.dry_run) else {
            return Ok(());
        };
        let vat_rate = match (number, rates.get(&stringer_id), instants.strung_at) {
            (Some(_), Some(history), Some(at)) => {
                let day = local_date(at, registry.get(index.stringer).zone);
                let rate = history.in_force(day).ok_or_else(|| Error::NoVatRate {
                    stringer: registry.handle(index.stringer).to_string(),
                    date: day,
                })?;
                Some(rate.0)
            }
            _ => None,
        };
        chunk.push(NewOrder {
            stringer_id: stringer_id.0,
            kind: row.kind.as_str(),
            customer: row.customer.map(str::to_string),
            racket: row.racket.map(str::to_string),
            string: row.string.map(str::to_string),
            tension: row.tension.map(str::to_string),
            price_minor: row.price_minor,
            currency: Currency::default().to_string(),
            ordered_at: instants.ordered_at,
            strung_at: instants.strung_at,
            paid_at: instants.paid_at,
            receipt_year: number.map(|n| n.year),
            receipt_seq: number.map(|n| n.seq),
            vat_rate_bp: vat_rate,
            v1_kind: Some(row.kind.as_str()),
            v1_id: Some(row.v1_id),
            notes: row.notes.map(str::to_string),
            email: row.email.map(str::to_string),
            created_at: now,
            updated_at: now,
        });
        if chunk.len() == CHUNK {
            v1_import::insert(conn, &chunk)?;
            chunk.clear();
        }
        Ok(())
    })?;
    if !chunk.is_empty() {
        v1_import::insert(conn, &chunk)?;
    }
    if !options.dry_run {
        set_counters(conn, plan, registry, &new_numbers, source.path)?;
    }
    Ok(report(plan, registry, new_orders, options.dry_run))
}

/// Reads the file again, row by row, with each row's instants; fails if it changed.
fn each_row(
    source: &Source<'_>,
    what: &str,
    registry: &Registry,
    options: &Options,
    mut visit: impl FnMut(&V1Row<'_>, Instants, RowIndex) -> Result<(), Error>,
) -> Result<(), Error> {
    let (mut file, _) = V1File::open(source.path, options.stringer.is_some(), (source.bar)(what))?;
    let columns = file.columns.clone();
    let mut problems = Problems::default();
    let mut row = 0u32;
    while let Some(next) = file.next_record() {
        let parsed = next.ok().and_then(|(line, record)| {
            V1Row::parse(record, line, &columns, options.stringer.as_deref(), &mut problems)
        });
        let parsed = parsed.ok_or_else(changed)?;
        let stringer = registry.find(parsed.stringer).ok_or_else(changed)?;
        let instants = parsed.instants(registry.get(stringer).zone).map_err(|_| changed())?;
        visit(&parsed, instants, RowIndex { row, stringer })?;
        row += 1;
    }
    if file.digest() != source.digest {
        return Err(changed());
    }
    Ok(())
}

#[derive(Debug, Clone, Copy)]
struct RowIndex {
    row: u32,
    stringer: u32,
}

fn changed() -> Error {
    Error::InputFile("the file changed while it was being imported; nothing was written".into())
}

/// Every V1 row these stringers already have, by its identity.
fn imported_rows(conn: &mut DbConn, stringers: &[StringerId]) -> Result<HashMap<Identity, Imported>, Error> {
    let mut imported = HashMap::new();
    v1_import::for_each_imported(conn, stringers, |row| {
        let fingerprint = fingerprint(&Content {
            customer: row.customer.as_deref(),
            racket: row.racket.as_deref(),
            string: row.string.as_deref(),
            tension: row.tension.as_deref(),
            price_minor: row.price_minor,
            instants: Instants { ordered_at: row.ordered_at, strung_at: row.strung_at, paid_at: row.paid_at },
            notes: row.notes.as_deref(),
        });
        imported.insert((row.stringer, row.kind, row.v1_id), Imported { fingerprint, number: row.number });
    })?;
    Ok(imported)
}

/// What makes two imports of a row the same row.
#[derive(Hash)]
struct Content<'a> {
    customer: Option<&'a str>,
    racket: Option<&'a str>,
    string: Option<&'a str>,
    tension: Option<&'a str>,
    price_minor: Option<i64>,
    instants: Instants,
    notes: Option<&'a str>,
}

fn fingerprint(content: &Content<'_>) -> u64 {
    let mut hasher = DefaultHasher::new();
    content.hash(&mut hasher);
    hasher.finish()
}

/// Refuses new numbered rows for a (stringer, year) that holds numbers this file does not
/// account for: issued numbers are never renumbered.
fn refuse_renumbering(
    conn: &mut DbConn,
    plan: &Plan,
    registry: &Registry,
    imported: &HashMap<Identity, Imported>,
) -> Result<(), Error> {
    // Per (stringer, year): numbered file rows already imported with a number of that year.
    let mut accounted: HashMap<(u32, i32), i64> = HashMap::new();
    let mut fresh: HashMap<(u32, i32), i64> = HashMap::new();
    for (key, _) in &plan.rows {
        let Some((year, _)) = key.strung else {
            continue;
        };
        let Some(id) = registry.get(key.stringer).id() else {
            *fresh.entry((key.stringer, year)).or_default() += 1;
            continue;
        };
        match imported.get(&(id, key.kind, key.v1_id)) {
            Some(Imported { number: Some(n), .. }) if n.year == year => {
                *accounted.entry((key.stringer, year)).or_default() += 1
            }
            Some(_) => {}
            None => *fresh.entry((key.stringer, year)).or_default() += 1,
        }
    }
    let mut problems = Problems::default();
    for (&(stringer, year), _) in fresh.iter().filter(|(_, &n)| n > 0) {
        let Some(tenant) = &registry.get(stringer).tenant else {
            continue;
        };
        let (count, first, last) = v1_import::numbers_of_year(conn, tenant, year)?;
        let counter = counters::last_n(conn, tenant, Series::Receipts, year)?.unwrap_or(0);
        let own = accounted.get(&(stringer, year)).copied().unwrap_or(0);
        let highest = plan.groups.get(&(stringer, Some(year))).map_or(0, |g: &Group| g.highest);
        if count > own || counter > highest {
            let range = match (first, last) {
                (Some(first), Some(last)) => {
                    format!("{}..{}", ReceiptNumber::new(year, first), ReceiptNumber::new(year, last))
                }
                _ => format!("up to {}", ReceiptNumber::new(year, counter)),
            };
            problems.push(Problem::row(
                1,
                format!(
                    "stringer {}, {year} already has receipt numbers {range} that this file does not hold; \
                     its rows would be numbered into that year, and issued numbers are never renumbered",
                    registry.handle(stringer)
                ),
            ));
        }
    }
    problems.into_result()
}

/// A re-import: every row imported before must be the same now, with the same number.
fn compare_with_imported(
    source: &Source<'_>,
    plan: &Plan,
    registry: &Registry,
    imported: &HashMap<Identity, Imported>,
    options: &Options,
) -> Result<(), Error> {
    let mut problems = Problems::default();
    each_row(source, "comparing", registry, options, |row, instants, index| {
        let Some(id) = registry.get(index.stringer).id() else {
            return Ok(());
        };
        let Some(before) = imported.get(&(id, row.kind, row.v1_id)) else {
            return Ok(());
        };
        let now = fingerprint(&Content {
            customer: row.customer,
            racket: row.racket,
            string: row.string,
            tension: row.tension,
            price_minor: row.price_minor,
            instants,
            notes: row.notes,
        });
        let number = plan.number(index.row);
        if now != before.fingerprint {
            problems.push(Problem::row(
                row.line,
                format!(
                    "{} {} of {} was imported before with different content",
                    row.kind, row.v1_id, row.stringer
                ),
            ));
        } else if number != before.number {
            let show = |n: Option<ReceiptNumber>| n.map_or("no number".to_string(), |n| n.to_string());
            problems.push(Problem::row(
                row.line,
                format!(
                    "{} {} of {} was imported as {} but this file numbers it {}; issued numbers are never renumbered",
                    row.kind,
                    row.v1_id,
                    row.stringer,
                    show(before.number),
                    show(number)
                ),
            ));
        }
        Ok(())
    })?;
    problems.into_result()
}

/// Counters to the highest number of each (stringer, year), never lower; one journal row
/// per (stringer, year) that got new numbers.
fn set_counters(
    conn: &mut DbConn,
    plan: &Plan,
    registry: &Registry,
    new_numbers: &BTreeMap<(u32, i32), (i64, i64)>,
    path: &Path,
) -> Result<(), Error> {
    let now = now_utc();
    let reason = format!(
        "migrate-v1 {}",
        path.file_name().map_or(path.display().to_string(), |n| n.to_string_lossy().into_owned())
    );
    for (&(stringer, year), group) in &plan.groups {
        let (Some(year), Some(tenant)) = (year, &registry.get(stringer).tenant) else {
            continue;
        };
        let old = counters::last_n(conn, tenant, Series::Receipts, year)?;
        let new = old.unwrap_or(0).max(group.highest);
        counters::set(conn, tenant, Series::Receipts, year, old, new, now)?;
        if let Some(&seqs) = new_numbers.get(&(stringer, year)) {
            events::record(
                conn,
                &Event::v1_import(tenant.id(), year, seqs, (old.unwrap_or(0), new), &reason),
            )?;
        }
    }
    Ok(())
}

fn report(plan: &Plan, registry: &Registry, new_orders: u64, dry_run: bool) -> Report {
    let mut groups: Vec<GroupReport> = plan
        .groups
        .iter()
        .map(|(&(stringer, year), group)| GroupReport {
            stringer: registry.handle(stringer).to_string(),
            year,
            orders: group.orders,
            numbered: group.numbered,
            first: year.filter(|_| group.numbered > 0).map(|y| ReceiptNumber::new(y, 1)),
            last: year.filter(|_| group.numbered > 0).map(|y| ReceiptNumber::new(y, group.highest)),
        })
        .collect();
    groups.sort_by(|a, b| {
        (&a.stringer, a.year.is_none(), a.year).cmp(&(&b.stringer, b.year.is_none(), b.year))
    });
    let created = registry.entries().iter().filter(|e| e.is_new).map(|e| e.handle.clone()).collect();
    Report {
        groups,
        new_orders,
        rows: plan.rows.len() as u64,
        created_stringers: created,
        timezone_for_new: registry.zone_for_new().name().to_string(),
        dry_run,
        warnings: Vec::new(),
    }
}
