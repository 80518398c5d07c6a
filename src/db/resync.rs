//! Repairing counters after a restore: each (stringer, year) counter is set to the highest
//! number in use, compared as integers (`2026-10000` is above `2026-9999`).
//!
//! Policy: a counter is never lowered unless asked (a counter ahead of the orders means
//! numbers were handed out whose orders were lost; handing them out again would give a
//! customer's number to someone else). The whole repair is one transaction that keeps
//! mints out while it runs.

use super::counters;
use super::events::{self, Event};
use super::schema::{chain_heads, credit_notes, orders};
use super::{DbConn, Tenant};
use crate::domain::{local_year, now_utc, Series, StringerId};
use crate::error::Error;
use diesel::dsl::max;
use diesel::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// There was no counter row; one was made.
    Created,
    Raised,
    /// Lowered, with `--allow-lower`.
    Lowered,
    /// Ahead of the orders and left as it is (no `--allow-lower`).
    KeptAhead,
}

/// One (stringer, year) whose counter did not match the highest number in use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CounterChange {
    #[serde(skip)]
    pub stringer_id: StringerId,
    pub stringer: String,
    /// Receipts' counter, or credit notes'.
    pub series: Series,
    pub year: i32,
    pub old: Option<i64>,
    pub highest: i64,
    pub new: Option<i64>,
    pub action: Action,
}

#[derive(Debug, Clone, Default)]
pub struct Options {
    pub dry_run: bool,
    pub allow_lower: bool,
    /// `--last-closure N --stringer H`: the highest closure number of H known outside the
    /// database (an e-mailed digest); its closures go on above it.
    pub last_closure: Option<(String, i64)>,
}

/// Compares every counter with the orders and repairs it (unless `dry_run`), in a
/// transaction that keeps every mint out (`Lock::Recount`, which `ops::resync` takes).
pub fn resync_counters(conn: &mut DbConn, options: Options) -> Result<Vec<CounterChange>, Error> {
    let tenants: BTreeMap<StringerId, Tenant> = Tenant::all(conn)?.into_iter().map(|t| (t.id(), t)).collect();
    let changes = plan(conn, &tenants, options.allow_lower)?;
    if !options.dry_run {
        apply(conn, &tenants, &changes, options.allow_lower)?;
        declare_restore(conn, &tenants, &options)?;
    }
    Ok(changes)
}

/// Every stringer's counters against its orders: a view over all stringers at once (one
/// query each), exempt from tenancy as the repair of every counter.
fn plan(
    conn: &mut DbConn,
    tenants: &BTreeMap<StringerId, Tenant>,
    allow_lower: bool,
) -> QueryResult<Vec<CounterChange>> {
    let handles: BTreeMap<i64, String> =
        tenants.values().map(|t| (t.id().0, t.handle().to_string())).collect();
    let mut changes = Vec::new();
    for series in [Series::Receipts, Series::Credits] {
        let highest: Vec<(i64, Option<i32>, Option<i64>)> = match series {
            Series::Receipts => orders::table
                .filter(orders::receipt_number.is_not_null())
                .group_by((orders::stringer_id, orders::receipt_year))
                .select((orders::stringer_id, orders::receipt_year, max(orders::receipt_seq)))
                .load(conn)?,
            Series::Credits => credit_notes::table
                .group_by((credit_notes::stringer_id, credit_notes::credit_year))
                .select((
                    credit_notes::stringer_id,
                    credit_notes::credit_year.nullable(),
                    max(credit_notes::credit_seq),
                ))
                .load(conn)?,
        };
        let mut state: BTreeMap<(i64, i32), (Option<i64>, i64)> = BTreeMap::new();
        for (stringer, year, last_n) in counters::all(conn, series, None)? {
            state.entry((stringer, year)).or_default().0 = Some(last_n);
        }
        for (stringer, year, seq) in highest {
            if let (Some(year), Some(seq)) = (year, seq) {
                state.entry((stringer, year)).or_default().1 = seq;
            }
        }
        changes.extend(decide(state, &handles, series, allow_lower));
    }
    Ok(changes)
}

/// What to do with each (stringer, year): its counter (None: no row) against the highest
/// number in use. Counters that match are left out.
fn decide(
    state: BTreeMap<(i64, i32), (Option<i64>, i64)>,
    handles: &BTreeMap<i64, String>,
    series: Series,
    allow_lower: bool,
) -> Vec<CounterChange> {
    let mut changes: Vec<CounterChange> = state
        .into_iter()
        .filter_map(|((id, year), (old, highest))| {
            let (new, action) = match old {
                None => (Some(highest), Action::Created),
                Some(old) if old < highest => (Some(highest), Action::Raised),
                Some(old) if old > highest && allow_lower => (Some(highest), Action::Lowered),
                Some(old) if old > highest => (Some(old), Action::KeptAhead),
                Some(_) => return None,
            };
            let stringer = handles.get(&id).cloned().unwrap_or_else(|| id.to_string());
            Some(CounterChange {
                stringer_id: StringerId(id),
                stringer,
                series,
                year,
                old,
                highest,
                new,
                action,
            })
        })
        .collect();
    changes.sort_by(|a, b| (&a.stringer, a.year).cmp(&(&b.stringer, b.year)));
    changes
}

fn apply(
    conn: &mut DbConn,
    tenants: &BTreeMap<StringerId, Tenant>,
    changes: &[CounterChange],
    allow_lower: bool,
) -> QueryResult<()> {
    let now = now_utc();
    let reason = if allow_lower { "resync-counters --allow-lower" } else { "resync-counters" };
    for change in changes.iter().filter(|c| c.action != Action::KeptAhead) {
        let Some(new) = change.new else {
            continue;
        };
        // Counters reference their stringer (a foreign key): it is among all of them.
        let Some(tenant) = tenants.get(&change.stringer_id) else { continue };
        counters::set(conn, tenant, change.series, change.year, change.old, new, now)?;
        let event = Event::resync(change.stringer_id, change.year, change.old.unwrap_or(0), new, reason);
        events::record(conn, &event.in_series(change.series))?;
    }
    Ok(())
}

/// Each stringer's journal says a restore was declared, with the chain's head as found.
fn declare_restore(
    conn: &mut DbConn,
    tenants: &BTreeMap<StringerId, Tenant>,
    options: &Options,
) -> Result<(), Error> {
    let reason = if options.allow_lower { "resync-counters --allow-lower" } else { "resync-counters" };
    if let Some((handle, _)) = &options.last_closure {
        if !tenants.values().any(|t| t.handle() == handle) {
            return Err(Error::NoSuchStringer(handle.clone()));
        }
    }
    for tenant in tenants.values() {
        let head: Option<(i64, String)> = chain_heads::table
            .find(tenant.id().0)
            .select((chain_heads::seq, chain_heads::hash))
            .first(conn)
            .optional()?;
        let found = match head {
            Some((seq, hash)) => format!("{seq} {hash}"),
            None => format!("0 {}", crate::domain::journal::genesis(tenant.id(), tenant.handle())),
        };
        let year = local_year(now_utc(), tenant.zone());
        events::record(conn, &Event::restore(tenant.id(), year, &found, reason))?;
        if let Some((_, outside)) =
            options.last_closure.as_ref().filter(|(handle, _)| handle == tenant.handle())
        {
            let here = super::closures::last_number(conn, tenant)?;
            if *outside > here {
                let (here, outside) = (here.to_string(), outside.to_string());
                events::record(conn, &Event::lost_closures(tenant.id(), year, &here, &outside))?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_are_raised_created_and_never_lowered_unless_allowed() {
        let handles = BTreeMap::from([(1, "stefan".to_string()), (2, "anna".to_string())]);
        let state = BTreeMap::from([
            ((1, 2025), (Some(10), 10)),       // matches: left out
            ((1, 2026), (Some(9999), 10_000)), // compared as integers
            ((2, 2026), (None, 3)),
            ((2, 2025), (Some(7), 5)),
        ]);
        let summary = |allow_lower| {
            decide(state.clone(), &handles, Series::Receipts, allow_lower)
                .into_iter()
                .map(|c| (c.stringer, c.year, c.new, c.action))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            summary(false),
            [
                ("anna".to_string(), 2025, Some(7), Action::KeptAhead),
                ("anna".to_string(), 2026, Some(3), Action::Created),
                ("stefan".to_string(), 2026, Some(10_000), Action::Raised),
            ]
        );
        assert_eq!(summary(true)[0], ("anna".to_string(), 2025, Some(5), Action::Lowered));
    }
}
