//! Receipts from the database: an order and its stringer's profile turned into the
//! `Receipt` value the renderers draw. Reading only: a receipt never mints or changes a
//! number.

use super::issuers::{self, Issuer};
use super::items;
use super::orders::{self, Order};
use super::schema::orders as orders_table;
use super::{chain, credits, document_vat, vat, DbConn, Tenant};
use crate::domain::journal::check_value;
use crate::domain::{
    local_date, now_utc, CreditNumber, EventKind, Item, Language, NoReminder, OrderId, OrderKind, Price,
    ReceiptNumber, StringerId, VatRate,
};
use crate::error::{Error, Wanted};
use crate::payment::epc::Epc;
use crate::payment::qrbill::QrBill;
use crate::payment::{slip_kind, Address, Iban, Postal, Reference, Slip, SlipKind};
use crate::receipt::{Amount, Conventions, CreditOf, Receipt, ReminderOf};
use chrono::{NaiveDate, NaiveDateTime};
use diesel::prelude::*;
use std::collections::HashMap;

/// How a receipt is asked for.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// The language, over the stringer's own.
    pub language: Option<Language>,
    /// A re-issue the customer asked for.
    pub copy: bool,
}

/// The receipt of one of the tenant's orders; an order without a number has none.
pub fn receipt(
    conn: &mut DbConn,
    tenant: &Tenant,
    order: OrderId,
    options: Options,
) -> Result<Receipt, Error> {
    let order = orders::find(conn, tenant, order)?;
    document_of(conn, tenant, &order, options)
}

/// The invoice of one of the tenant's orders as it was before it was paid or voided, with
/// `part_paid` paid of it in part then (what a document handed out then showed).
pub fn invoice_before_payment(
    conn: &mut DbConn,
    tenant: &Tenant,
    order: OrderId,
    part_paid: Price,
    options: Options,
) -> Result<Receipt, Error> {
    let mut order = orders::find(conn, tenant, order)?;
    (order.paid_at, order.voided_at, order.void_reason, order.part_paid) = (None, None, None, part_paid);
    document_of(conn, tenant, &order, options)
}

fn document_of(
    conn: &mut DbConn,
    tenant: &Tenant,
    order: &Order,
    options: Options,
) -> Result<Receipt, Error> {
    let issuer = issuer_of(conn, tenant, order)?;
    let rates = vat::history(conn, tenant)?;
    let items = items_of(conn, order)?;
    let check = mint_check(conn, tenant, order)?;
    build(order, &items, &issuer, tenant, &rates, options, check)
}

/// The check value of the mint that numbered the order, when the chain recorded it live.
fn mint_check(conn: &mut DbConn, tenant: &Tenant, order: &Order) -> Result<Option<String>, Error> {
    let hash = chain::issuing_hash(conn, tenant, EventKind::Mint, Some(order.id.0), None)?;
    Ok(hash.as_deref().map(check_value))
}

/// The credit note `number` of the tenant as a document: the original as it froze it, taken
/// back as the credit note says (`receipt::CreditOf`).
pub fn credit_note(
    conn: &mut DbConn,
    tenant: &Tenant,
    number: CreditNumber,
    options: Options,
) -> Result<Receipt, Error> {
    let note = credits::find(conn, tenant, number)?;
    let order_id = note
        .order
        .ok_or_else(|| Error::NoSuchCreditNote { number, stringer: tenant.handle().to_string() })?;
    let order = orders::find(conn, tenant, order_id)?;
    let mut receipt = receipt(conn, tenant, order_id, Options { copy: false, ..options })?;
    let zone = tenant.zone();
    // The original as the customer held it when it was taken back: paid by then or not.
    let paid = order.paid_at.filter(|at| *at <= note.issued_at);
    let original_on = local_date(paid.or(order.strung_at).unwrap_or(order.created_at), zone);
    let words = receipt.words();
    let total = order.total().map_or(0, |t| t.0);
    let amount = |minor: i64| Amount { minor, currency: note.currency.to_string() };
    receipt.credit = Some(CreditOf {
        number,
        original: receipt.number,
        original_on,
        original_title: if paid.is_some() { words.receipt } else { words.invoice },
        amount: amount(note.amount.0),
        vat: note.vat_rate.map(|_| amount(note.vat.0)),
        left: amount(total - note.credited_before.0 - note.amount.0),
        completes: note.completes,
        whole: note.completes && note.credited_before.0 == 0,
        reason: note.reason.clone(),
        refund: note.refund,
        paid: paid.is_some(),
    });
    receipt.vat = note.vat_rate;
    receipt.issued_on = local_date(note.issued_at, zone);
    receipt.paid_on = None;
    receipt.due_on = None;
    receipt.slip = None;
    receipt.void_reason = None;
    receipt.notes = None;
    let issued_by = (number.0.year, number.0.seq);
    let hash = chain::issuing_hash(conn, tenant, EventKind::Credit, None, Some(issued_by))?;
    receipt.check = hash.as_deref().map(check_value);
    Ok(receipt)
}

/// Reminder `level` of the tenant's order as a document: the invoice's seller and buyer as
/// it froze them, what the reminder froze (the open amount, the fee, the new due date), and
/// the invoice's payment part for what the reminder asks, with the invoice's own reference.
pub fn reminder(
    conn: &mut DbConn,
    tenant: &Tenant,
    order_id: OrderId,
    level: crate::domain::Level,
) -> Result<Receipt, Error> {
    let reminder = super::reminders::of_order(conn, tenant, order_id)?
        .into_iter()
        .find(|r| r.level == level)
        .ok_or_else(|| Error::NotRemindable {
            order: order_id,
            last: None,
            why: NoReminder::NoSuchLevel { level },
        })?;
    let order = orders::find(conn, tenant, order_id)?;
    let issuer = issuer_of(conn, tenant, &order)?;
    let mut receipt = reminder_document(conn, tenant, &reminder, &order, &issuer)?;
    receipt.check = super::reminders::issuing_hash(conn, tenant, order_id, level)?;
    Ok(receipt)
}

/// A reminder of `order` (issued under `issuer`) as a document, issued or drafted (then
/// without a check value).
pub fn reminder_document(
    conn: &mut DbConn,
    tenant: &Tenant,
    reminder: &super::reminders::Reminder,
    order: &Order,
    issuer: &Issuer,
) -> Result<Receipt, Error> {
    let level = reminder.level;
    // What a reminder prints of its invoice: the seller, the buyer, the number and dates;
    // not its lines nor its VAT (a reminder asks the open amount), so neither is read.
    let rates = match (order.vat_rate, issuer.business.charges_vat()) {
        (None, true) => vat::history(conn, tenant)?,
        _ => vat::History::default(),
    };
    let mut receipt = build(order, &[], issuer, tenant, &rates, Options::default(), None)?;
    let zone = issuer.zone;
    let amount = |minor: i64| Amount { minor, currency: reminder.currency.to_string() };
    let total = order.total().map_or(0, |t| t.0);
    // What part payments had paid when the reminder was issued; the rest of what is not
    // open any more was credited.
    let parts =
        super::part_payments::of(conn, tenant, &[order.id.0])?.remove(&order.id.0).unwrap_or_default();
    let paid: i64 =
        parts.iter().filter(|part| part.paid_at <= reminder.issued_at).map(|part| part.amount_minor).sum();
    let invoice = receipt.number;
    // The invoice as it stood unpaid, whatever happened since: the document never changes.
    let invoice_on = local_date(order.strung_at.unwrap_or(order.created_at), zone);
    let payment_days = chrono::Days::new(issuer.business.payment_days.max(0) as u64);
    receipt.reminder = Some(ReminderOf {
        level,
        invoice,
        invoice_on,
        invoice_due: invoice_on + payment_days,
        total: amount(total),
        credited: amount(total - reminder.open.0 - paid),
        paid: amount(paid),
        open: amount(reminder.open.0),
        fee: amount(reminder.fee.0),
    });
    let asked = reminder.asked();
    receipt.issued_on = local_date(reminder.issued_at, zone);
    receipt.due_on = Some(reminder.due_on);
    receipt.amount = Some(amount(asked.0));
    receipt.paid_on = None;
    receipt.void_reason = None;
    receipt.notes = None;
    receipt.vat = None;
    let message = format!("{} {}", receipt.title_text(), receipt.shown_number());
    receipt.slip = slip(order, issuer, tenant, invoice, message, Some(asked))?;
    receipt.check = None;
    Ok(receipt)
}

/// The order of the tenant that holds `number`.
pub fn order_holding(conn: &mut DbConn, tenant: &Tenant, number: ReceiptNumber) -> Result<OrderId, Error> {
    tenant
        .orders()
        // Said, so that the partial index on numbered orders is used.
        .filter(orders_table::receipt_number.is_not_null())
        .filter(orders_table::receipt_year.eq(number.year))
        .filter(orders_table::receipt_seq.eq(number.seq))
        .select(orders_table::id)
        .first::<i64>(conn)
        .optional()?
        .map(OrderId)
        .ok_or_else(|| Error::NoSuchReceipt { number, stringer: tenant.handle().to_string() })
}

/// What the documents of some stringers were frozen with: their issuer versions and VAT
/// rates, read once (a stringer has a handful), so that any number of orders can stream past.
pub struct Frozen {
    versions: HashMap<i64, Issuer>,
    rates: HashMap<StringerId, vat::History>,
}

impl Frozen {
    /// For one stringer, or for all.
    pub fn load(conn: &mut DbConn, tenant: Option<&Tenant>) -> Result<Frozen, Error> {
        let tenants = match tenant {
            Some(tenant) => vec![tenant.clone()],
            None => Tenant::all(conn)?,
        };
        let mut frozen = Frozen { versions: HashMap::new(), rates: HashMap::new() };
        for tenant in &tenants {
            frozen.versions.extend(issuers::of_tenant(conn, tenant)?.into_iter().map(|i| (i.id, i)));
            frozen.rates.insert(tenant.id(), vat::history(conn, tenant)?);
        }
        Ok(frozen)
    }

    fn issuer(&self, order: &Order) -> Result<&Issuer, Error> {
        order
            .issuer
            .and_then(|id| self.versions.get(&id))
            .ok_or(Error::Unnumbered { order: order.id, wanted: Wanted::Receipt })
    }

    fn rates(&self, tenant: &Tenant) -> vat::History {
        self.rates.get(&tenant.id()).cloned().unwrap_or_default()
    }

    /// The receipt of a numbered order of `tenant`.
    pub fn receipt(
        &self,
        conn: &mut DbConn,
        order: &Order,
        tenant: &Tenant,
        options: Options,
    ) -> Result<Receipt, Error> {
        let items = items_of(conn, order)?;
        let check = mint_check(conn, tenant, order)?;
        build(order, &items, self.issuer(order)?, tenant, &self.rates(tenant), options, check)
    }

    /// What a numbered order asks of its customer, by the profile it was issued under.
    pub fn billing(&self, order: &Order, tenant: &Tenant) -> Billing {
        let Ok(issuer) = self.issuer(order) else { return Billing::default() };
        // An invoice credited in full is owed no more (its document still says when it was due).
        let due_on = order.due_on(issuer).filter(|_| !order.fully_credited());
        Billing {
            due_on,
            overdue: due_on.is_some_and(|due| due < local_date(now_utc(), issuer.zone)),
            reference: order.number.and_then(|number| reference(order, issuer, tenant, number)),
            credit_notes: Vec::new(),
            reminders: Vec::new(),
        }
    }

    /// The VAT rate a numbered order's document shows, if it shows VAT.
    pub fn vat_rate(&self, order: &Order, tenant: &Tenant) -> Result<Option<VatRate>, Error> {
        document_vat::document_vat(order, self.issuer(order)?, tenant, &self.rates(tenant))
    }
}

/// Calls `visit` with every receipt of `year`, of one stringer or all, by stringer and
/// number, read page by page.
pub fn for_each_of_year(
    conn: &mut DbConn,
    tenant: Option<&Tenant>,
    year: i32,
    options: Options,
    mut visit: impl FnMut(&str, Receipt) -> Result<(), Error>,
) -> Result<(), Error> {
    let frozen = Frozen::load(conn, tenant)?;
    let filter = super::listings::Filter { year: Some(year), ..Default::default() };
    super::listings::for_each(conn, tenant, &filter, None, |conn, listed| {
        visit(listed.stringer.handle(), frozen.receipt(conn, &listed.order, listed.stringer, options)?)
    })
}

/// An order's items: read only when it has some.
fn items_of(conn: &mut DbConn, order: &Order) -> Result<Vec<Item>, Error> {
    match order.item_count {
        0 => Ok(Vec::new()),
        _ => items::of(conn, order.id),
    }
}

/// The issuer version a numbered order's document shows.
fn issuer_of(conn: &mut DbConn, tenant: &Tenant, order: &Order) -> Result<Issuer, Error> {
    match order.issuer {
        Some(id) => issuers::find(conn, tenant, id),
        None => Err(Error::Unnumbered { order: order.id, wanted: Wanted::Receipt }),
    }
}

/// The receipt of a numbered order, from what was frozen when it was numbered: dates are
/// local dates of the issuer's zone; the issue date is the paid date of a receipt, else the
/// strung date; an invoice is due the issuer's payment days later and carries its slip.
fn build(
    order: &Order,
    items: &[Item],
    issuer: &Issuer,
    tenant: &Tenant,
    rates: &vat::History,
    options: Options,
    check: Option<String>,
) -> Result<Receipt, Error> {
    let Some(number) = order.number else {
        return Err(Error::Unnumbered { order: order.id, wanted: Wanted::Receipt });
    };
    let zone = issuer.zone;
    let local = |at: Option<NaiveDateTime>| at.map(|at| local_date(at, zone));
    let language = options.language.or(issuer.language).unwrap_or_default();
    let service_date = local(order.strung_at);
    let paid_on = local(order.paid_at);
    let issued_on = order.issued_on(zone);
    let due_on = order.due_on(issuer);
    let vat = document_vat::document_vat(order, issuer, tenant, rates)?;
    let mut receipt = Receipt {
        order: order.id,
        number,
        own: order.kind == OrderKind::Own,
        language,
        copy: options.copy,
        void_reason: order.void_reason.clone(),
        business: issuer.business.clone(),
        conventions: Conventions { country: issuer.business.country.clone() },
        issued_on,
        service_date,
        paid_on,
        part_paid: (paid_on.is_none() && order.part_paid.0 > 0)
            .then(|| Amount { minor: order.part_paid.0, currency: order.currency.to_string() }),
        due_on,
        customer: order.customer.clone(),
        customer_address: match (&order.customer_postal, &order.customer_address) {
            (Some(postal), _) => postal.lines(),
            (None, Some(lines)) => lines.lines().map(str::to_string).collect(),
            (None, None) => Vec::new(),
        },
        customer_postal: order.customer_postal.clone(),
        buyer: order.buyer.clone(),
        racket: order.racket.clone(),
        string: order.string.clone(),
        tension: order.tension.clone(),
        cross_string: order.cross_string.clone(),
        stringing: order.price.map(|price| Amount { minor: price.0, currency: order.currency.to_string() }),
        items: items
            .iter()
            .map(|item| {
                (item.text.clone(), Amount { minor: item.price.0, currency: order.currency.to_string() })
            })
            .collect(),
        amount: order.total().map(|total| Amount { minor: total.0, currency: order.currency.to_string() }),
        vat,
        notes: order.customer_note.clone(),
        slip: None,
        credit: None,
        reminder: None,
        check,
    };
    if due_on.is_some() {
        let message = format!("{} {number}", receipt.title_text());
        // What is left to pay, once parts were paid.
        let asked = order.total().map(|total| Price(total.0 - order.part_paid.0));
        receipt.slip = slip(order, issuer, tenant, number, message, asked)?;
    }
    Ok(receipt)
}

/// What a numbered order asks of its customer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Billing {
    /// An invoice's last day to pay.
    pub due_on: Option<NaiveDate>,
    pub overdue: bool,
    /// The payment reference its invoice carries (printed in groups), for a client order
    /// whose stringer has an account its currency is paid into.
    pub reference: Option<String>,
    /// The credit notes that took it back, in part or in full (read for an order credited).
    pub credit_notes: Vec<CreditShown>,
    /// The reminders of its invoice, by level (read for an unpaid invoice, or asked).
    pub reminders: Vec<super::reminders::Reminder>,
}

/// A credit note of an order as its listings show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreditShown {
    pub number: CreditNumber,
    pub amount: crate::domain::Price,
    /// When it was e-mailed, and to whom.
    pub sent: Option<(NaiveDateTime, String)>,
}

impl Billing {
    /// With the reminders of `order`'s invoice: read for every client order when `always`,
    /// else only for an unpaid invoice (a listing reads no more than that).
    pub fn with_reminders(
        mut self,
        conn: &mut DbConn,
        tenant: &Tenant,
        order: &Order,
        always: bool,
    ) -> Result<Billing, Error> {
        let invoice = order.number.is_some() && order.kind == OrderKind::Client;
        if invoice && (always || (order.paid_at.is_none() && order.void_reason.is_none())) {
            self.reminders = super::reminders::of_order(conn, tenant, order.id)?;
        }
        Ok(self)
    }

    /// With the credit notes of `order` (none read for an order never credited); `sent` says
    /// whether to look up each one's delivery.
    pub fn with_credit_notes(
        mut self,
        conn: &mut DbConn,
        tenant: &Tenant,
        order: &Order,
        sent: bool,
    ) -> Result<Billing, Error> {
        if order.credited.0 == 0 {
            return Ok(self);
        }
        for note in credits::of_order(conn, tenant, order.id)? {
            let sent = match sent {
                true => super::sends::last_credit(conn, tenant, note.number)?,
                false => None,
            };
            self.credit_notes.push(CreditShown { number: note.number, amount: note.amount, sent });
        }
        Ok(self)
    }
}

/// The payment reference of a client order's invoice, as its slip prints it.
fn reference(order: &Order, issuer: &Issuer, tenant: &Tenant, number: ReceiptNumber) -> Option<String> {
    if order.kind != OrderKind::Client {
        return None;
    }
    let account = Iban::parse(issuer.business.iban.as_deref()?).ok()?;
    let reference = match slip_kind(&account, &order.currency)? {
        SlipKind::QrBill if account.is_qr_iban() => Reference::qrr(tenant.id(), number),
        SlipKind::QrBill | SlipKind::Epc => Reference::scor(tenant.id(), number),
    };
    reference.map(|r| r.printed())
}

/// The slip an invoice carries: a QR-bill for a Swiss account (CHF, or EUR on a normal
/// IBAN), an EPC QR code for another account in EUR, none otherwise (or with nothing to pay).
pub fn slip(
    order: &Order,
    issuer: &Issuer,
    tenant: &Tenant,
    number: ReceiptNumber,
    message: String,
    amount: Option<crate::domain::Price>,
) -> Result<Option<Slip>, Error> {
    let (Some(iban), Some(price)) = (issuer.business.iban.as_deref(), amount.filter(|p| p.0 > 0)) else {
        return Ok(None);
    };
    let account = Iban::parse(iban).map_err(Error::BadInput)?;
    let no_reference = || Error::NoReference { number, stringer: tenant.handle().to_string() };
    if price.0 > MAX_AMOUNT {
        return Err(Error::NotForQrBill {
            field: "price",
            problem: "is above 999,999,999.99, the most a payment code carries".into(),
        });
    }
    match slip_kind(&account, &order.currency) {
        None => Ok(None),
        Some(SlipKind::QrBill) => {
            let postal = Postal::of(&issuer.business)
                .ok_or_else(|| Error::NoStructuredAddress { stringer: tenant.handle().to_string() })?;
            let reference = if account.is_qr_iban() {
                Reference::qrr(tenant.id(), number)
            } else {
                Reference::scor(tenant.id(), number)
            }
            .ok_or_else(no_reference)?;
            let debtor = match (&order.customer, &order.customer_postal) {
                (Some(name), Some(postal)) => Some(Address { name: name.clone(), postal: postal.clone() }),
                _ => None,
            };
            Ok(Some(Slip::QrBill(QrBill {
                account,
                creditor: Address { name: issuer.business.payee().to_string(), postal },
                amount: Some(price.0),
                currency: order.currency.clone(),
                debtor,
                reference,
                message,
            })))
        }
        Some(SlipKind::Epc) => Ok(Some(Slip::Epc(Epc {
            bic: issuer.business.bic.clone(),
            name: issuer.business.payee().to_string(),
            account,
            amount: price.0,
            reference: Reference::scor(tenant.id(), number).ok_or_else(no_reference)?,
        }))),
    }
}

/// The largest amount a QR-bill or an EPC code carries: 999,999,999.99.
const MAX_AMOUNT: i64 = 99_999_999_999;
