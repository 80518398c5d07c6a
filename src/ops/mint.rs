//! Minting, as both doors ask for it: the mint's rules (numbers follow time, a late entry
//! backdated on purpose, an invoice without the customer's address), its journal note, the
//! durability of a number read back, and the strings it took from stock that run low,
//! returned for the door to say.

use super::Whose;
use crate::db::failure::{classify, Failure, Rule, Unique};
use crate::db::mint::{
    already_numbered, last_strung, mint_now_statement, mint_statement, mint_step, out_of_order, receipt_year,
    Chronology, Minted, Outcome, Rules,
};
use crate::db::stock::{self, Stocked};
use crate::db::{counters, orders, Db, Tenant};
use crate::domain::{check_strung_at, local_date, now_utc, Dated, OrderId, ReceiptNumber, Series, Timestamp};
use crate::error::Error;
use chrono::NaiveDateTime;

/// A mint as a door asks for it.
#[derive(Debug, Clone)]
pub struct Request {
    pub order: OrderId,
    /// When it was strung, if not now.
    pub at: Option<Timestamp>,
    /// `--backdate`: an `at` before last year, or before the last number of its year.
    pub backdate: bool,
    /// `--without-address`: an invoice above the small-amount limit without the address.
    pub without_address: bool,
    /// Whether to say which strings the mint left low (a door that has nowhere to say it
    /// spares the read).
    pub low_stock: bool,
}

impl Request {
    /// The racket strung now, as the counter says it.
    pub fn now(order: OrderId) -> Request {
        Request { order, at: None, backdate: false, without_address: false, low_stock: false }
    }
}

/// What a mint did, and what the door should say beside it.
#[derive(Debug)]
pub struct Report {
    pub tenant: Tenant,
    pub minted: Minted,
    /// The strings a fresh mint took from stock that are now low (said, never refused), when
    /// asked.
    pub low: Vec<Stocked>,
}

/// Marks the order strung (now, or at the time given) and gives it its number; see
/// `Request` for what it lets through.
pub fn strung(db: &mut Db, whose: Whose, request: &Request) -> Result<Report, Error> {
    let (tenant, minted) = match request.at {
        // At the counter: now, in as few round trips as the database allows.
        None => mint_now(db, whose, request.order, request.without_address)?,
        Some(at) => {
            let tenant = whose.of_order(db, request.order)?;
            let at = at.resolve(tenant.zone()).map_err(Error::Usage)?;
            let dated = check_strung_at(at, now_utc(), tenant.zone(), request.backdate)?;
            let rules = Rules {
                chronology: if request.backdate { Chronology::Backdated } else { Chronology::Checked },
                without_address: request.without_address,
                note: match dated {
                    Dated::BeforeLastYear { year } => {
                        Some(format!("backdated: strung in {year}, before last year"))
                    }
                    Dated::Recent => None,
                },
            };
            let minted = mint_with(db, &tenant, request.order, at, &rules)?;
            (tenant, minted)
        }
    };
    // The stock does not stop a racket from being strung, nor does a failure to read it
    // undo a mint that is done.
    let low = match request.low_stock && minted.is_fresh() {
        true => db.read(|conn| stock::used_by(conn, &tenant, minted.order)).unwrap_or_default(),
        false => Vec::new(),
    };
    Ok(Report { low: low.into_iter().filter(Stocked::is_low).collect(), tenant, minted })
}

/// Marks `order` strung at `strung_at` and gives it the next number of its stringer's
/// year (the calendar year of `strung_at` in the stringer's zone). Idempotent: an order
/// that already has a number keeps it.
pub fn mint(db: &mut Db, tenant: &Tenant, order: OrderId, strung_at: NaiveDateTime) -> Result<Minted, Error> {
    mint_with(db, tenant, order, strung_at, &Rules::default())
}

/// The mint at the counter: `order` strung now, for the stringer known or named, or else
/// the order's owner, who is looked up on the way. On PostgreSQL that is one statement (a
/// call of `receipts_mint_now`); anything unusual (an order already numbered, a refusal, an
/// order that is not there, a waiver to journal) takes the long way, which explains it.
pub fn mint_now(
    db: &mut Db,
    whose: Whose,
    order: OrderId,
    without_address: bool,
) -> Result<(Tenant, Minted), Error> {
    let strung_at = now_utc();
    let handle = whose.handle().map(str::to_ascii_lowercase);
    let lock_timeout = db.lock_timeout_setting();
    if let (Some(pg), false) = (db.postgres(), without_address) {
        match mint_now_statement(pg, order, handle.as_deref(), strung_at, &lock_timeout) {
            Ok(Some(called)) => {
                if let Some((tenant, number)) = called.fresh()? {
                    return Ok((tenant, Minted { order, number, outcome: Outcome::Fresh }));
                }
            }
            Ok(None) => {}
            Err(e) => match classify(&e) {
                // The statement commits itself: cut off while it ran, it may have.
                Failure::ConnectionLost(reason) => return Err(Error::InDoubt(reason)),
                Failure::Busy(_) => return Err(db.explain(e.into())),
                _ => {}
            },
        }
    }
    let tenant = whose.of_order(db, order)?;
    let rules = Rules { without_address, ..Rules::default() };
    let minted = mint_with(db, &tenant, order, strung_at, &rules)?;
    Ok((tenant, minted))
}

/// `mint`, with the strung time compared to the year's last issued number as asked, and
/// the waivers and notes of `rules`.
pub fn mint_with(
    db: &mut Db,
    tenant: &Tenant,
    order: OrderId,
    strung_at: NaiveDateTime,
    rules: &Rules,
) -> Result<Minted, Error> {
    let year = receipt_year(tenant, strung_at)?;
    let lock_timeout = db.lock_timeout_setting();
    let minted = match db.postgres() {
        // On PostgreSQL the whole mint is one statement (a call of `receipts_mint`), and a
        // statement on its own is a transaction: one round trip, all or nothing.
        Some(pg) => match mint_statement(pg, tenant, order, year, strung_at, Some(&lock_timeout), rules) {
            Ok(Some(seq)) => {
                Ok(Minted { order, number: ReceiptNumber::new(year, seq), outcome: Outcome::Fresh })
            }
            Ok(None) => db.write(|conn| already_numbered(conn, tenant, order, strung_at)),
            // The statement commits itself: cut off while it ran, it may have.
            Err(e) => match classify(&e) {
                Failure::ConnectionLost(reason) => Err(Error::InDoubt(reason)),
                _ => Err(db.explain(e.into())),
            },
        },
        None => db.write(|conn| mint_step(conn, tenant, order, strung_at, rules)),
    };
    let e = match minted {
        Ok(minted) => return confirmed(db, minted),
        Err(Error::Database(e)) => e,
        Err(other) => return Err(other),
    };
    match classify(&e) {
        Failure::UniqueViolation(Unique::ReceiptNumber) => {
            let last_n =
                db.read(|conn| Ok(counters::last_n(conn, tenant, Series::Receipts, year)?))?.unwrap_or(0);
            Err(Error::CounterBehind {
                stringer: tenant.handle().to_string(),
                number: ReceiptNumber::new(year, last_n + 1),
            })
        }
        Failure::Refused(Rule::NoPrice) => Err(Error::NoPrice { order }),
        Failure::Refused(Rule::NoAddress) => Err(address_missing(db, tenant, order)),
        Failure::Refused(Rule::NoVatRate) => Err(Error::NoVatRate {
            stringer: tenant.handle().to_string(),
            date: local_date(strung_at, tenant.zone()),
        }),
        Failure::Refused(Rule::OutOfOrder) => {
            let previous = db.read(|conn| last_strung(conn, tenant, year))?;
            Err(out_of_order(tenant, strung_at, previous))
        }
        _ => Err(Error::Database(e)),
    }
}

/// A number this call did not mint itself was read back, perhaps after doubt (an earlier
/// run cut off while it committed): it is reported only once it is durable where a failover
/// would take the database (`Db::confirm_durable`). A fresh mint waited for that in its own
/// commit.
fn confirmed(db: &mut Db, minted: Minted) -> Result<Minted, Error> {
    if !minted.is_fresh() {
        db.confirm_durable()?;
    }
    Ok(minted)
}

/// The refusal of an order above the small-amount limit without the customer's address.
fn address_missing(db: &mut Db, tenant: &Tenant, order: OrderId) -> Error {
    match db.read(|conn| orders::find(conn, tenant, order)) {
        Ok(found) => Error::AddressRequired {
            order,
            amount: format!(
                "{} {}",
                found.currency,
                found.total().map(|p| p.to_string()).unwrap_or_default()
            ),
        },
        Err(e) => e,
    }
}
