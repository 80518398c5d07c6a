//! Payments from the bank: a credit whose structured reference names one of this database's
//! receipts is applied to its order when it pays exactly what the invoice asks, and kept
//! (keyed by the bank's reference) so that it is never applied twice. Whatever cannot be
//! applied is reported with its reason, changes nothing, and is remembered with its outcome
//! (`listed_payments`), so that a later import says when it was listed instead of judging
//! it anew, until somebody settles it (`payments settle`).
//!
//! Transactions are looked up and written a chunk at a time: a statement of 100,000
//! transactions is a few hundred queries, not half a million.

use super::events::{self, Change, Event};
use super::schema::{listed_payments, orders as orders_table, payments, reminders};
use super::{DbConn, Tenant};
use crate::bank::Transaction;
use crate::domain::{
    count, format_utc, local_date, local_noon, now_utc, OrderId, PaymentMethod, Price, ReceiptNumber,
    StringerId,
};
use crate::error::Error;
use crate::payment::Reference;
use chrono::{NaiveDate, NaiveDateTime};
use diesel::prelude::*;
use std::collections::{BTreeMap, HashMap, HashSet};

/// What became of a credit that names one of this database's receipts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::VariantArray, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum Outcome {
    Applied,
    /// This bank transaction was applied by an earlier import.
    AlreadyApplied,
    /// No receipt holds the reference.
    UnknownReference,
    Void,
    /// The invoice is credited in full: nothing is owed.
    Credited,
    /// The order is paid already: a double payment, to be refunded.
    AlreadyPaid,
    Partial,
    Over,
    OtherCurrency,
    /// Booked before the receipt was issued: not the payment of this invoice.
    BeforeIssue,
    /// Under `--stringer`: a receipt of another stringer of this database.
    OtherStringer,
    /// Booked in a batch that gives only its total, not this payment's amount.
    BatchTotalOnly,
}

impl Outcome {
    /// Whether somebody has to look at it.
    pub fn needs_attention(self) -> bool {
        !matches!(self, Outcome::Applied | Outcome::AlreadyApplied)
    }

    /// Its name for scripts.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The outcome stored as `name`; one the program does not know fails the read.
    pub(super) fn stored(name: &str) -> Result<Outcome, Error> {
        crate::domain::named(name, "an outcome")
            .map_err(|problem| Error::Internal { what: "a listed bank transaction", detail: problem })
    }

    pub fn reason(self) -> &'static str {
        match self {
            Outcome::Applied => "applied: the invoice is paid",
            Outcome::AlreadyApplied => "applied by an earlier import",
            Outcome::UnknownReference => "no receipt holds this reference",
            Outcome::Void => "the order is void",
            Outcome::Credited => "the invoice is credited in full, so nothing is owed: refund the customer",
            Outcome::AlreadyPaid => "the order was paid already: a double payment, refund the customer",
            Outcome::Partial => "less than the invoice asks: a partial payment",
            Outcome::Over => "more than the invoice asks: an overpayment",
            Outcome::OtherCurrency => "another currency than the invoice's",
            Outcome::BeforeIssue => "booked before the invoice was issued: not its payment",
            Outcome::OtherStringer => {
                "names a receipt of another stringer: import the file as that stringer, or for every stringer"
            }
            Outcome::BatchTotalOnly => {
                "booked in a batch that gives only its total (the amount shown), not this payment's own: check it by hand"
            }
        }
    }
}

/// A credit listed by an earlier import, and whether it was settled since.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Earlier {
    /// When it was first listed (the stringer's local day).
    pub listed_on: NaiveDate,
    /// When and why it was settled by hand.
    pub settled: Option<(NaiveDate, String)>,
}

/// A credit with one of this database's references, and what became of it.
#[derive(Debug, Clone)]
pub struct Line {
    /// The stringer's handle; empty for another stringer's receipt under `--stringer`.
    pub stringer: String,
    /// The receipt the reference names (None for another stringer's, which is not shown).
    pub receipt: Option<ReceiptNumber>,
    pub order: Option<i64>,
    /// As the bank carries it.
    pub reference: String,
    pub amount: Price,
    pub currency: String,
    pub booked_on: NaiveDate,
    pub bank_reference: String,
    pub outcome: Outcome,
    /// Listed by an earlier import: its outcome then, not judged anew.
    pub earlier: Option<Earlier>,
}

impl Line {
    /// Whether somebody has to look at it: a new problem, or one listed before and still open.
    pub fn needs_attention(&self) -> bool {
        self.outcome.needs_attention() && self.earlier.as_ref().is_none_or(|e| e.settled.is_none())
    }

    /// Why, for people: the outcome, and when it was listed and settled before.
    pub fn reason(&self) -> String {
        match &self.earlier {
            None => self.outcome.reason().to_string(),
            Some(Earlier { listed_on, settled: None }) => {
                format!("listed before on {listed_on}, still open: {}", self.outcome.reason())
            }
            Some(Earlier { listed_on, settled: Some((on, why)) }) => {
                format!("listed before on {listed_on} ({}), settled on {on}: {why}", self.outcome.reason())
            }
        }
    }
}

/// What a file held and what became of it.
#[derive(Debug, Default)]
pub struct Report {
    pub transactions: usize,
    pub debits: usize,
    /// Pending, for information only, or dated neither by booking nor value: not booked.
    pub not_booked: usize,
    /// Money in without a structured reference.
    pub not_ours: usize,
    /// Money in with another creditor's structured reference: an ISR reference, a QRR or RF
    /// reference that names no stringer of this database.
    pub other_creditors: usize,
    /// Every credit with one of our references, in the file's order.
    pub lines: Vec<Line>,
}

impl Report {
    pub fn count(&self, outcome: Outcome) -> usize {
        self.lines.iter().filter(|line| line.outcome == outcome && line.earlier.is_none()).count()
    }

    pub fn needing_attention(&self) -> usize {
        self.lines.iter().filter(|line| line.needs_attention()).count()
    }

    /// Lines listed by an earlier import.
    pub fn listed_before(&self) -> usize {
        self.lines.iter().filter(|line| line.earlier.is_some()).count()
    }
}

/// A credit naming one of our receipts, waiting for its chunk's lookups.
struct Credit {
    stringer: StringerId,
    number: ReceiptNumber,
    bank_reference: String,
    booked_on: NaiveDate,
    /// Another stringer's, under `--stringer`.
    foreign: bool,
    tx: Transaction,
}

/// What a payment is checked against: the order holding a receipt.
struct Invoice {
    id: i64,
    price: i64,
    currency: String,
    paid: bool,
    void: bool,
    /// The stringer's local day the receipt was issued (strung).
    issued_on: Option<NaiveDate>,
    /// The fees its reminders asked: a payment of the open amount and one of them pays it.
    fees: Vec<i64>,
}

impl Invoice {
    /// The reminder fee a payment of `amount` includes, when it pays the open amount and
    /// the fee of one of the invoice's reminders.
    fn fee_in(&self, amount: i64) -> Option<i64> {
        self.fees.iter().copied().find(|fee| self.price + fee == amount)
    }
}

/// Credits looked up together.
const CHUNK: usize = 500;

/// What the database knew of a chunk's credits before it was judged.
#[derive(Default)]
struct Known {
    /// Bank transactions applied before, with their orders.
    applied: HashMap<(StringerId, String), i64>,
    /// Bank transactions listed before, with their outcome.
    listed: HashMap<(StringerId, String), (Outcome, Earlier)>,
    /// The orders holding the receipts the credits name.
    invoices: HashMap<(StringerId, ReceiptNumber), Invoice>,
}

/// One import: transactions pushed in the file's order, in the caller's transaction.
pub struct Import {
    /// The file, as messages name it.
    file: String,
    tenants: HashMap<StringerId, Tenant>,
    /// Only this stringer's references (`--stringer`).
    only: Option<StringerId>,
    dry_run: bool,
    waiting: Vec<Credit>,
    /// Bank transactions judged by this import, and orders it paid (a dry run writes none
    /// of them down, so it remembers them here).
    seen_now: HashMap<(StringerId, String), Outcome>,
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
            seen_now: HashMap::new(),
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
        let Some(booked_on) = tx.booked_on else {
            report.not_booked += 1;
            return Ok(());
        };
        let Some(reference) = tx.reference.as_deref() else {
            report.not_ours += 1;
            return Ok(());
        };
        // A structured reference that names no stringer of this database belongs to another
        // creditor (an ISR reference, another business's QRR or RF): not ours to judge.
        let Some((stringer, number)) =
            Reference::receipt_of(reference).filter(|(stringer, _)| self.tenants.contains_key(stringer))
        else {
            report.other_creditors += 1;
            return Ok(());
        };
        let Some(bank_reference) = tx.bank_reference.clone() else {
            return Err(Error::BadInput(format!(
                "{}: entry {}: a payment for receipt {number} carries no bank reference (AcctSvcrRef), \
                 which is needed to apply it exactly once",
                self.file, tx.entry
            )));
        };
        // Under `--stringer`, another stringer's receipt needs attention, and nothing of it
        // is looked up or shown.
        let foreign = self.only.is_some_and(|only| only != stringer);
        self.waiting.push(Credit { stringer, number, bank_reference, booked_on, foreign, tx });
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

    /// Decides every waiting credit, in the file's order, and records the payments applied
    /// and the credits listed.
    fn settle(&mut self, conn: &mut DbConn) -> Result<(), Error> {
        let credits = std::mem::take(&mut self.waiting);
        let known = self.look_up(conn, &credits)?;
        let mut applied = Vec::new();
        let mut listed = Vec::new();
        for credit in credits {
            if credit.foreign {
                self.report.lines.push(Line {
                    stringer: String::new(),
                    receipt: None,
                    order: None,
                    reference: credit.tx.reference.clone().unwrap_or_default(),
                    amount: Price(credit.tx.amount),
                    currency: credit.tx.currency.to_string(),
                    booked_on: credit.booked_on,
                    bank_reference: credit.bank_reference.clone(),
                    outcome: Outcome::OtherStringer,
                    earlier: None,
                });
                continue;
            }
            let key = (credit.stringer, credit.bank_reference.clone());
            let invoice = known.invoices.get(&(credit.stringer, credit.number));
            let mut order = invoice.map(|o| o.id);
            let mut earlier = None;
            let judged_now = self.seen_now.get(&key).copied();
            let outcome = if let Some(paid) = known.applied.get(&key) {
                order = Some(*paid);
                Outcome::AlreadyApplied
            } else if let Some((outcome, listed)) = known.listed.get(&key) {
                earlier = Some(listed.clone());
                *outcome
            } else if let Some(outcome) = judged_now {
                // The same bank transaction again in this file (overlapping statements).
                if outcome == Outcome::Applied {
                    Outcome::AlreadyApplied
                } else {
                    outcome
                }
            } else {
                match invoice {
                    None => Outcome::UnknownReference,
                    Some(invoice) => judge(invoice, &credit, self.paid_now.contains(&invoice.id)),
                }
            };
            let line = Line {
                stringer: self.tenants[&credit.stringer].handle().to_string(),
                receipt: Some(credit.number),
                order,
                reference: credit.tx.reference.clone().unwrap_or_default(),
                amount: Price(credit.tx.amount),
                currency: credit.tx.currency.to_string(),
                booked_on: credit.booked_on,
                bank_reference: credit.bank_reference.clone(),
                outcome,
                earlier,
            };
            let first_seen =
                line.earlier.is_none() && outcome != Outcome::AlreadyApplied && judged_now.is_none();
            if first_seen {
                self.seen_now.insert(key, outcome);
                if outcome == Outcome::Applied {
                    let invoice = invoice.expect("judged, so held");
                    let order = OrderId(invoice.id);
                    self.paid_now.insert(order.0);
                    let fee = invoice.fee_in(credit.tx.amount).filter(|_| credit.tx.amount != invoice.price);
                    applied.push((order, credit, fee.unwrap_or(0)));
                } else {
                    listed.push((line.clone(), credit));
                }
            }
            self.report.lines.push(line);
        }
        if self.dry_run {
            return Ok(());
        }
        record(conn, &self.tenants, &applied)?;
        remember(conn, &self.file, &listed)
    }
    /// For these credits: what the database knew of them before (applied, listed) and the
    /// orders holding the receipts they name; a query of each per stringer.
    fn look_up(&self, conn: &mut DbConn, credits: &[Credit]) -> Result<Known, Error> {
        let mut by_stringer: BTreeMap<StringerId, Vec<&Credit>> = BTreeMap::new();
        for credit in credits.iter().filter(|credit| !credit.foreign) {
            by_stringer.entry(credit.stringer).or_default().push(credit);
        }
        let mut known = Known::default();
        for (stringer, credits) in by_stringer {
            let tenant = &self.tenants[&stringer];
            let references: Vec<&str> = credits.iter().map(|c| c.bank_reference.as_str()).collect();
            let applied: Vec<(String, i64)> = tenant
                .payments()
                .filter(payments::bank_reference.eq_any(&references))
                .select((payments::bank_reference, payments::order_id))
                .load(conn)?;
            known
                .applied
                .extend(applied.into_iter().map(|(reference, order)| ((stringer, reference), order)));
            let listed: Vec<ListedRow> = tenant
                .listed_payments()
                .filter(listed_payments::bank_reference.eq_any(&references))
                .select(ListedRow::as_select())
                .load(conn)?;
            for row in listed {
                let outcome = Outcome::stored(&row.outcome)?;
                let earlier = row.earlier(tenant);
                known.listed.insert((stringer, row.bank_reference), (outcome, earlier));
            }
            let mut years: BTreeMap<i32, Vec<i64>> = BTreeMap::new();
            for credit in &credits {
                years.entry(credit.number.year).or_default().push(credit.number.seq);
            }
            // By year and sequence, every column of the numbered orders' index given, so
            // that it is used even before the statistics know a freshly loaded table.
            for (year, seqs) in years {
                let invoices: Vec<InvoiceRow> = tenant
                    .orders()
                    .filter(orders_table::receipt_number.is_not_null())
                    .filter(orders_table::receipt_year.eq(year))
                    .filter(orders_table::receipt_seq.eq_any(seqs))
                    .select((
                        orders_table::id,
                        orders_table::receipt_seq.assume_not_null(),
                        // What the invoice still asks: the stringing and the items, less what
                        // its credit notes took back and what was paid of it in part.
                        orders_table::price_minor.assume_not_null() + orders_table::items_minor
                            - orders_table::credited_minor
                            - orders_table::part_paid_minor,
                        orders_table::currency,
                        orders_table::paid_at.is_not_null(),
                        orders_table::voided_at.is_not_null(),
                        orders_table::strung_at,
                    ))
                    .load(conn)?;
                let ids: Vec<i64> = invoices.iter().map(|row| row.id).collect();
                let mut fees: HashMap<i64, Vec<i64>> = HashMap::new();
                for (order, fee) in tenant
                    .reminders()
                    .filter(reminders::order_id.eq_any(&ids))
                    .filter(reminders::fee_minor.gt(0))
                    .select((reminders::order_id, reminders::fee_minor))
                    .load::<(i64, i64)>(conn)?
                {
                    fees.entry(order).or_default().push(fee);
                }
                for InvoiceRow { id, seq, price, currency, paid, void, strung_at } in invoices {
                    let issued_on = strung_at.map(|at| local_date(at, tenant.zone()));
                    let fees = fees.remove(&id).unwrap_or_default();
                    let invoice = Invoice { id, price, currency, paid, void, issued_on, fees };
                    known.invoices.insert((stringer, ReceiptNumber::new(year, seq)), invoice);
                }
            }
        }
        Ok(known)
    }
}

/// An order holding a receipt a credit names, as read.
#[derive(Queryable)]
struct InvoiceRow {
    id: i64,
    seq: i64,
    price: i64,
    currency: String,
    paid: bool,
    void: bool,
    strung_at: Option<NaiveDateTime>,
}

/// Whether a credit pays its order exactly.
fn judge(invoice: &Invoice, credit: &Credit, paid_by_this_import: bool) -> Outcome {
    let asked = invoice.price;
    let tx = &credit.tx;
    if invoice.void {
        Outcome::Void
    } else if asked <= 0 {
        Outcome::Credited
    } else if invoice.paid || paid_by_this_import {
        Outcome::AlreadyPaid
    } else if invoice.issued_on.is_some_and(|issued| credit.booked_on < issued) {
        Outcome::BeforeIssue
    } else if invoice.currency != tx.currency.as_str() {
        Outcome::OtherCurrency
    } else if tx.batch_total_only {
        Outcome::BatchTotalOnly
    } else if tx.amount < asked {
        Outcome::Partial
    } else if tx.amount > asked && invoice.fee_in(tx.amount).is_none() {
        Outcome::Over
    } else {
        Outcome::Applied
    }
}

/// A credit listed by an import.
#[derive(Queryable, Selectable)]
#[diesel(table_name = listed_payments)]
struct ListedRow {
    bank_reference: String,
    outcome: String,
    listed_at: NaiveDateTime,
    settled_at: Option<NaiveDateTime>,
    settle_reason: Option<String>,
}

impl ListedRow {
    fn earlier(&self, tenant: &Tenant) -> Earlier {
        Earlier::of(self.listed_at, self.settled_at, self.settle_reason.clone(), tenant)
    }
}

impl Earlier {
    /// When it was listed and settled, as days of the stringer's calendar.
    pub(super) fn of(
        listed_at: NaiveDateTime,
        settled_at: Option<NaiveDateTime>,
        reason: Option<String>,
        tenant: &Tenant,
    ) -> Earlier {
        let day = |at: NaiveDateTime| local_date(at, tenant.zone());
        Earlier {
            listed_on: day(listed_at),
            settled: settled_at.map(|at| (day(at), reason.unwrap_or_default())),
        }
    }
}

#[derive(Insertable)]
#[diesel(table_name = listed_payments)]
#[diesel(treat_none_as_default_value = false)]
struct NewListed<'a> {
    stringer_id: i64,
    bank_reference: &'a str,
    reference: &'a str,
    receipt_year: i32,
    receipt_seq: i64,
    order_id: Option<i64>,
    amount_minor: i64,
    currency: &'a str,
    booked_on: NaiveDate,
    outcome: &'a str,
    file: &'a str,
    listed_at: NaiveDateTime,
    settled_at: Option<NaiveDateTime>,
    settle_reason: Option<&'a str>,
}

/// Credits that need attention, remembered with their outcome.
fn remember(conn: &mut DbConn, file: &str, listed: &[(Line, Credit)]) -> Result<(), Error> {
    if listed.is_empty() {
        return Ok(());
    }
    let now = now_utc();
    let rows: Vec<NewListed> = listed
        .iter()
        .map(|(line, credit)| NewListed {
            stringer_id: credit.stringer.0,
            bank_reference: &credit.bank_reference,
            reference: &line.reference,
            receipt_year: credit.number.year,
            receipt_seq: credit.number.seq,
            order_id: line.order,
            amount_minor: credit.tx.amount,
            currency: &line.currency,
            booked_on: credit.booked_on,
            outcome: line.outcome.as_str(),
            file,
            listed_at: now,
            settled_at: None,
            settle_reason: None,
        })
        .collect();
    super::insert_all!(conn, listed_payments::table, rows.as_slice())?;
    Ok(())
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
    /// The reminder fee the payment included.
    fee_minor: i64,
}

/// Each order is paid on its booking date (local noon of its stringer), the bank
/// transactions kept, the payments journaled.
fn record(
    conn: &mut DbConn,
    tenants: &HashMap<StringerId, Tenant>,
    applied: &[(OrderId, Credit, i64)],
) -> Result<(), Error> {
    if applied.is_empty() {
        return Ok(());
    }
    let now = now_utc();
    let paid_at = |credit: &Credit| local_noon(credit.booked_on, tenants[&credit.stringer].zone());
    // One update per stringer and booking day.
    let mut paid_on: BTreeMap<(StringerId, NaiveDateTime), Vec<i64>> = BTreeMap::new();
    for (order, credit, _) in applied {
        paid_on.entry((credit.stringer, paid_at(credit))).or_default().push(order.0);
    }
    for ((stringer, at), ids) in paid_on {
        diesel::update(tenants[&stringer].orders().filter(orders_table::id.eq_any(ids)))
            .set((
                orders_table::paid_at.eq(at),
                orders_table::payment_method.eq(PaymentMethod::Transfer.as_str()),
                orders_table::updated_at.eq(now),
            ))
            .execute(conn)?;
    }
    let rows: Vec<NewPayment> = applied
        .iter()
        .map(|(order, credit, fee)| NewPayment {
            stringer_id: credit.stringer.0,
            bank_reference: &credit.bank_reference,
            order_id: order.0,
            reference: credit.tx.reference.as_deref().unwrap_or_default(),
            amount_minor: credit.tx.amount,
            currency: credit.tx.currency.as_str(),
            booked_on: credit.booked_on,
            created_at: now,
            fee_minor: *fee,
        })
        .collect();
    super::insert_all!(conn, payments::table, rows.as_slice())?;
    let paid: Vec<String> = applied.iter().map(|(_, credit, _)| format_utc(paid_at(credit))).collect();
    let why: Vec<String> = applied
        .iter()
        .map(|(_, credit, fee)| {
            let tx = &credit.tx;
            let reference = tx.reference.as_deref().unwrap_or_default();
            let fee = match fee {
                0 => String::new(),
                fee => format!(" (with the reminder fee {})", Price(*fee)),
            };
            format!(
                "{} {} paid{fee}, reference {reference}, bank reference {}",
                tx.currency,
                Price(tx.amount),
                credit.bank_reference
            )
        })
        .collect();
    let journal: Vec<Event> = applied
        .iter()
        .zip(paid.iter().zip(&why))
        .map(|((order, credit, _), (paid, why))| {
            let change = Change { field: "paid_at", old: None, new: Some(paid) };
            Event::payment(credit.stringer, *order, credit.number, change, why)
        })
        .collect();
    events::record_all(conn, &journal)?;
    Ok(())
}

impl Report {
    /// "bank.xml (camt.054.001.08): 4 transactions, 2 applied, 1 debit ignored"
    pub fn summary(&self, name: &str, message: &str, dry_run: bool) -> String {
        let report = self;
        let applied = report.count(Outcome::Applied);
        let earlier = report.count(Outcome::AlreadyApplied);
        let listed = report.listed_before();
        let attention = report.needing_attention();
        let mut said = vec![format!("{name} ({message}): {}", count(report.transactions, "transaction"))];
        said.push(if dry_run { format!("{applied} would be applied") } else { format!("{applied} applied") });
        if earlier > 0 {
            said.push(format!("{earlier} applied by an earlier import"));
        }
        if listed > 0 {
            said.push(format!("{listed} listed by an earlier import"));
        }
        if attention > 0 {
            said.push(format!("{attention} need attention"));
        }
        if report.not_ours > 0 {
            said.push(format!("{} without a reference of ours ignored", count(report.not_ours, "credit")));
        }
        if report.other_creditors > 0 {
            said.push(format!(
                "{} with another creditor's reference left alone",
                count(report.other_creditors, "credit")
            ));
        }
        if report.not_booked > 0 {
            said.push(format!(
                "{} not booked (pending, or undated) ignored",
                count(report.not_booked, "credit")
            ));
        }
        if report.debits > 0 {
            said.push(format!("{} ignored", count(report.debits, "debit")));
        }
        said.join(", ")
    }
}
