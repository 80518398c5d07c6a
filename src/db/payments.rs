//! Payments from the bank: a credit whose structured reference names one of this database's
//! receipts is applied to its order when it pays exactly what the invoice asks, and kept
//! (keyed by the bank's reference) so that it is never applied twice. Whatever cannot be
//! applied is reported with its reason and changes nothing.
//!
//! Transactions are looked up and written a chunk at a time: a statement of 100,000
//! transactions is a few hundred queries, not half a million.

use super::events::{self, Change, Event};
use super::schema::{orders as orders_table, payments};
use super::{DbConn, Tenant};
use crate::bank::Transaction;
use crate::domain::{format_utc, local_noon, now_utc, OrderId, Price, ReceiptNumber, StringerId};
use crate::error::Error;
use crate::payment::Reference;
use chrono::{NaiveDate, NaiveDateTime};
use diesel::prelude::*;
use std::collections::{BTreeMap, HashMap, HashSet};

/// What became of a credit that names one of this database's receipts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Applied,
    /// This bank transaction was applied by an earlier import.
    AlreadyApplied,
    /// No receipt holds the reference.
    UnknownReference,
    Void,
    /// The order is paid already: a double payment, to be refunded.
    AlreadyPaid,
    Partial,
    Over,
    OtherCurrency,
}

impl Outcome {
    /// Whether somebody has to look at it.
    pub fn needs_attention(self) -> bool {
        !matches!(self, Outcome::Applied | Outcome::AlreadyApplied)
    }

    /// Its name for scripts.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Applied => "applied",
            Outcome::AlreadyApplied => "already_applied",
            Outcome::UnknownReference => "unknown_reference",
            Outcome::Void => "void",
            Outcome::AlreadyPaid => "already_paid",
            Outcome::Partial => "partial",
            Outcome::Over => "over",
            Outcome::OtherCurrency => "other_currency",
        }
    }

    pub fn reason(self) -> &'static str {
        match self {
            Outcome::Applied => "applied: the invoice is paid",
            Outcome::AlreadyApplied => "applied by an earlier import",
            Outcome::UnknownReference => "no receipt holds this reference",
            Outcome::Void => "the order is void",
            Outcome::AlreadyPaid => "the order was paid already: a double payment, refund the customer",
            Outcome::Partial => "less than the invoice asks: a partial payment",
            Outcome::Over => "more than the invoice asks: an overpayment",
            Outcome::OtherCurrency => "another currency than the invoice's",
        }
    }
}

/// A credit with one of this database's references, and what became of it.
#[derive(Debug, Clone)]
pub struct Line {
    /// The stringer's handle; empty when the reference names none of this database.
    pub stringer: String,
    pub receipt: ReceiptNumber,
    pub order: Option<i64>,
    pub reference: String,
    pub amount: Price,
    pub currency: String,
    pub booked_on: NaiveDate,
    pub bank_reference: String,
    pub outcome: Outcome,
}

/// What a file held and what became of it.
#[derive(Debug, Default)]
pub struct Report {
    pub transactions: usize,
    pub debits: usize,
    /// Pending or for information only: not booked yet.
    pub not_booked: usize,
    /// Money in without a reference of this database.
    pub not_ours: usize,
    /// One of another stringer's references, under `--stringer`.
    pub other_stringers: usize,
    /// Every credit with one of our references, in the file's order.
    pub lines: Vec<Line>,
}

impl Report {
    pub fn count(&self, outcome: Outcome) -> usize {
        self.lines.iter().filter(|line| line.outcome == outcome).count()
    }

    pub fn needing_attention(&self) -> usize {
        self.lines.iter().filter(|line| line.outcome.needs_attention()).count()
    }
}

/// A credit naming one of our receipts, waiting for its chunk's lookups.
struct Credit {
    stringer: StringerId,
    number: ReceiptNumber,
    bank_reference: String,
    tx: Transaction,
}

/// What a payment is checked against: the order holding a receipt.
struct Invoice {
    id: i64,
    price: i64,
    currency: String,
    paid: bool,
    void: bool,
}

/// Credits looked up together.
const CHUNK: usize = 500;

/// One import: transactions pushed in the file's order, in the caller's transaction.
pub struct Import {
    /// The file, as messages name it.
    file: String,
    tenants: HashMap<StringerId, Tenant>,
    /// Only this stringer's references (`--stringer`).
    only: Option<StringerId>,
    dry_run: bool,
    waiting: Vec<Credit>,
    /// Bank transactions applied by this import, and orders it paid (a dry run writes
    /// neither down, so it remembers them here).
    applied_now: HashSet<(StringerId, String)>,
    paid_now: HashSet<i64>,
    report: Report,
}

impl Import {
    pub fn new(conn: &mut DbConn, file: &str, only: Option<&Tenant>, dry_run: bool) -> Result<Import, Error> {
        let tenants = Tenant::all(conn)?.into_iter().map(|t| (t.id(), t)).collect();
        Ok(Import {
            file: file.to_string(),
            tenants,
            only: only.map(Tenant::id),
            dry_run,
            waiting: Vec::new(),
            applied_now: HashSet::new(),
            paid_now: HashSet::new(),
            report: Report::default(),
        })
    }

    pub fn push(&mut self, conn: &mut DbConn, tx: Transaction) -> Result<(), Error> {
        let report = &mut self.report;
        report.transactions += 1;
        if !tx.credit {
            report.debits += 1;
            return Ok(());
        }
        if !tx.booked {
            report.not_booked += 1;
            return Ok(());
        }
        let Some((stringer, number)) = tx.reference.as_deref().and_then(Reference::receipt_of) else {
            report.not_ours += 1;
            return Ok(());
        };
        if self.only.is_some_and(|only| only != stringer) {
            report.other_stringers += 1;
            return Ok(());
        }
        let Some(bank_reference) = tx.bank_reference.clone() else {
            return Err(Error::BadInput(format!(
                "{}: entry {}: a payment for receipt {number} carries no bank reference (AcctSvcrRef), \
                 which is needed to apply it exactly once",
                self.file, tx.entry
            )));
        };
        self.waiting.push(Credit { stringer, number, bank_reference, tx });
        if self.waiting.len() == CHUNK {
            self.settle(conn)?;
        }
        Ok(())
    }

    /// Settles what is still waiting; what the file held and what became of it.
    pub fn finish(mut self, conn: &mut DbConn) -> Result<Report, Error> {
        self.settle(conn)?;
        Ok(self.report)
    }

    /// Decides every waiting credit, in the file's order, and records the payments applied.
    fn settle(&mut self, conn: &mut DbConn) -> Result<(), Error> {
        let credits = std::mem::take(&mut self.waiting);
        let (earlier, held) = self.look_up(conn, &credits)?;
        let mut applied = Vec::new();
        for credit in credits {
            let key = (credit.stringer, credit.bank_reference.clone());
            let tenant = self.tenants.get(&credit.stringer);
            let order = held.get(&(credit.stringer, credit.number));
            let outcome = match (tenant, order) {
                _ if earlier.contains_key(&key) || self.applied_now.contains(&key) => Outcome::AlreadyApplied,
                (None, _) | (_, None) => Outcome::UnknownReference,
                (Some(_), Some(order)) => judge(order, &credit.tx, self.paid_now.contains(&order.id)),
            };
            let order_id = order.map(|o| o.id).or_else(|| earlier.get(&key).copied());
            self.report.lines.push(Line {
                stringer: tenant.map(|t| t.handle().to_string()).unwrap_or_default(),
                receipt: credit.number,
                order: order_id,
                reference: credit.tx.reference.clone().unwrap_or_default(),
                amount: Price(credit.tx.amount),
                currency: credit.tx.currency.to_string(),
                booked_on: credit.tx.booked_on,
                bank_reference: credit.bank_reference.clone(),
                outcome,
            });
            if outcome == Outcome::Applied {
                let order = OrderId(order.expect("judged, so held").id);
                self.paid_now.insert(order.0);
                self.applied_now.insert(key);
                applied.push((order, credit));
            }
        }
        if self.dry_run {
            return Ok(());
        }
        record(conn, &self.tenants, &applied)
    }

    /// For these credits: the bank references applied before (with their orders), and the
    /// orders holding the receipts they name; a query of each per stringer.
    #[allow(clippy::type_complexity)]
    fn look_up(
        &self,
        conn: &mut DbConn,
        credits: &[Credit],
    ) -> Result<(HashMap<(StringerId, String), i64>, HashMap<(StringerId, ReceiptNumber), Invoice>), Error>
    {
        let mut by_stringer: BTreeMap<StringerId, Vec<&Credit>> = BTreeMap::new();
        for credit in credits {
            by_stringer.entry(credit.stringer).or_default().push(credit);
        }
        let mut earlier = HashMap::new();
        let mut held = HashMap::new();
        for (stringer, credits) in by_stringer {
            let Some(tenant) = self.tenants.get(&stringer) else { continue };
            let references: Vec<&str> = credits.iter().map(|c| c.bank_reference.as_str()).collect();
            let found: Vec<(String, i64)> = payments::table
                .filter(payments::stringer_id.eq(stringer.0))
                .filter(payments::bank_reference.eq_any(references))
                .select((payments::bank_reference, payments::order_id))
                .load(conn)?;
            earlier.extend(found.into_iter().map(|(reference, order)| ((stringer, reference), order)));
            let mut years: BTreeMap<i32, Vec<i64>> = BTreeMap::new();
            for credit in &credits {
                years.entry(credit.number.year).or_default().push(credit.number.seq);
            }
            // By year and sequence, every column of the numbered orders' index given, so
            // that it is used even before the statistics know a freshly loaded table.
            for (year, seqs) in years {
                let invoices: Vec<(i64, i64, Option<i64>, String, bool, bool)> = tenant
                    .orders()
                    .filter(orders_table::receipt_number.is_not_null())
                    .filter(orders_table::receipt_year.eq(year))
                    .filter(orders_table::receipt_seq.eq_any(seqs))
                    .select((
                        orders_table::id,
                        orders_table::receipt_seq.assume_not_null(),
                        orders_table::price_minor,
                        orders_table::currency,
                        orders_table::paid_at.is_not_null(),
                        orders_table::voided_at.is_not_null(),
                    ))
                    .load(conn)?;
                for (id, seq, price, currency, paid, void) in invoices {
                    let invoice = Invoice { id, price: price.unwrap_or(0), currency, paid, void };
                    held.insert((stringer, ReceiptNumber::new(year, seq)), invoice);
                }
            }
        }
        Ok((earlier, held))
    }
}

/// Whether a credit pays its order exactly.
fn judge(invoice: &Invoice, tx: &Transaction, paid_by_this_import: bool) -> Outcome {
    let asked = invoice.price;
    if invoice.void {
        Outcome::Void
    } else if invoice.paid || paid_by_this_import {
        Outcome::AlreadyPaid
    } else if invoice.currency != tx.currency.as_str() {
        Outcome::OtherCurrency
    } else if tx.amount < asked {
        Outcome::Partial
    } else if tx.amount > asked {
        Outcome::Over
    } else {
        Outcome::Applied
    }
}

#[derive(Insertable)]
#[diesel(table_name = payments)]
#[diesel(treat_none_as_default_value = false)]
struct NewPayment<'a> {
    stringer_id: i64,
    bank_reference: &'a str,
    order_id: i64,
    reference: &'a str,
    amount_minor: i64,
    currency: &'a str,
    booked_on: NaiveDate,
    created_at: NaiveDateTime,
}

/// Each order is paid on its booking date (local noon of its stringer), the bank
/// transactions kept, the payments journaled.
fn record(
    conn: &mut DbConn,
    tenants: &HashMap<StringerId, Tenant>,
    applied: &[(OrderId, Credit)],
) -> Result<(), Error> {
    if applied.is_empty() {
        return Ok(());
    }
    let now = now_utc();
    let paid_at = |credit: &Credit| local_noon(credit.tx.booked_on, tenants[&credit.stringer].zone());
    // One update per stringer and booking day.
    let mut paid_on: BTreeMap<(StringerId, NaiveDateTime), Vec<i64>> = BTreeMap::new();
    for (order, credit) in applied {
        paid_on.entry((credit.stringer, paid_at(credit))).or_default().push(order.0);
    }
    for ((stringer, at), ids) in paid_on {
        diesel::update(tenants[&stringer].orders().filter(orders_table::id.eq_any(ids)))
            .set((orders_table::paid_at.eq(at), orders_table::updated_at.eq(now)))
            .execute(conn)?;
    }
    let rows: Vec<NewPayment> = applied
        .iter()
        .map(|(order, credit)| NewPayment {
            stringer_id: credit.stringer.0,
            bank_reference: &credit.bank_reference,
            order_id: order.0,
            reference: credit.tx.reference.as_deref().unwrap_or_default(),
            amount_minor: credit.tx.amount,
            currency: credit.tx.currency.as_str(),
            booked_on: credit.tx.booked_on,
            created_at: now,
        })
        .collect();
    super::insert_all!(conn, payments::table, rows.as_slice())?;
    let paid: Vec<String> = applied.iter().map(|(_, credit)| format_utc(paid_at(credit))).collect();
    let why: Vec<String> = applied
        .iter()
        .map(|(_, credit)| {
            let tx = &credit.tx;
            let reference = tx.reference.as_deref().unwrap_or_default();
            format!(
                "{} {} paid, reference {reference}, bank reference {}",
                tx.currency,
                Price(tx.amount),
                credit.bank_reference
            )
        })
        .collect();
    let journal: Vec<Event> = applied
        .iter()
        .zip(paid.iter().zip(&why))
        .map(|((order, credit), (paid, why))| {
            let change = Change { field: "paid_at", old: None, new: Some(paid) };
            Event::payment(credit.stringer, *order, credit.number, change, why)
        })
        .collect();
    events::record_all(conn, &journal)?;
    Ok(())
}
