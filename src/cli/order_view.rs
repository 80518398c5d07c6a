//! An order as `order show` and `order list` give it: every field for scripts (JSON, with
//! instants in UTC and in the stringer's zone), one line of a table for people.

use super::output;
use crate::db::orders::Order;
use crate::db::receipts::Billing;
use crate::db::Tenant;
use crate::domain::{format_local, format_utc, OrderKind, OrderStatus, PaymentMethod};
use chrono::NaiveDateTime;
use serde::Serialize;
use tabled::Tabled;

/// Everything about an order, as scripts read it: instants in UTC (RFC 3339).
#[derive(Debug, Serialize)]
pub struct OrderView {
    id: i64,
    stringer: String,
    kind: OrderKind,
    status: OrderStatus,
    receipt_number: Option<String>,
    customer: Option<String>,
    racket: Option<String>,
    string: Option<String>,
    tension: Option<String>,
    price: Option<String>,
    price_minor: Option<i64>,
    currency: String,
    ordered_at: Option<String>,
    strung_at: Option<String>,
    returned_at: Option<String>,
    paid_at: Option<String>,
    voided_at: Option<String>,
    void_reason: Option<String>,
    restring_of: Option<i64>,
    v1_kind: Option<String>,
    v1_id: Option<i64>,
    customer_note: Option<String>,
    email: Option<String>,
    /// The lines printed under the customer's name.
    customer_address: Option<String>,
    /// The country of that address (ISO 3166 alpha-2, e.g. CH).
    customer_country: Option<String>,
    /// An invoice's last day to pay (the stringer's local date).
    due_on: Option<String>,
    /// The reference its invoice carries, as printed.
    payment_reference: Option<String>,
    payment_method: Option<PaymentMethod>,
    /// The stringing and the items.
    total: Option<String>,
    total_minor: Option<i64>,
    /// The lines after the stringing (`order show`; a listing leaves them out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<Vec<ItemView>>,
    /// When the racket is promised.
    due_at: Option<String>,
    /// When the customer was last told it is ready.
    notified_at: Option<String>,
    cross_string: Option<String>,
    /// Metres of string it takes, when the order says.
    string_length: Option<String>,
    own_string: bool,
    notes: Option<String>,
    /// What credit notes took back in all, and which: "C-2026-0001, C-2026-0002".
    credited: Option<String>,
    credited_minor: i64,
    credited_by: Option<String>,
    /// What the customer still owes: the total less what credit notes took back, 0 once paid;
    /// none for an order nobody is asked to pay (not numbered, void, the stringer's own).
    still_due: Option<String>,
    due_minor: Option<i64>,
    /// What part payments paid of it in all.
    part_paid: Option<String>,
    part_paid_minor: i64,
    /// Its part payments (`order show` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub part_payments: Option<Vec<PartView>>,
    #[serde(skip)]
    credit_notes: Vec<CreditView>,
    /// The reminder level its invoice reached, and when it was issued (UTC).
    reminder_level: Option<i32>,
    reminded_at: Option<String>,
    #[serde(skip)]
    reminders: Vec<ReminderView>,
    /// The e-invoices written of its documents (`order show` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub einvoices: Option<Vec<EinvoiceView>>,
    #[serde(skip)]
    local: LocalTimes,
}

/// A part payment of the order: when (UTC), how much, and how.
#[derive(Debug, Serialize)]
pub struct PartView {
    pub paid_at: String,
    pub amount: String,
    pub amount_minor: i64,
    pub method: PaymentMethod,
    #[serde(skip)]
    pub paid_local: String,
}

impl PartView {
    pub fn of(part: &crate::db::part_payments::Part, tenant: &Tenant) -> PartView {
        PartView {
            paid_at: format_utc(part.paid_at),
            amount: crate::domain::Price(part.amount_minor).to_string(),
            amount_minor: part.amount_minor,
            method: part.method,
            paid_local: format_local(part.paid_at, tenant.zone()),
        }
    }
}

/// An e-invoice written of one of the order's documents: when (UTC), which document, in
/// which form, as which file, and the file's SHA-256.
#[derive(Debug, Serialize)]
pub struct EinvoiceView {
    pub written_at: String,
    pub number: String,
    pub form: String,
    pub file: String,
    pub sha256: String,
    #[serde(skip)]
    pub written_local: String,
}

impl EinvoiceView {
    pub fn of(written: &crate::db::einvoices::Written, tenant: &Tenant) -> EinvoiceView {
        EinvoiceView {
            written_at: format_utc(written.at),
            number: written.number(),
            form: written.form.clone().unwrap_or_default(),
            file: written.file.clone().unwrap_or_default(),
            sha256: written.sha256.clone().unwrap_or_default(),
            written_local: format_local(written.at, tenant.zone()),
        }
    }
}

/// A credit note of the order: its number, what it took back, when it was e-mailed.
#[derive(Debug)]
struct CreditView {
    number: String,
    amount: String,
    sent_to: Option<String>,
    sent_local: Option<String>,
}

/// A reminder of the order's invoice: its level, what it asked, when and how it went.
#[derive(Debug)]
struct ReminderView {
    level: i32,
    asked: String,
    issued_local: String,
    delivered: String,
}

#[derive(Debug, Serialize)]
pub struct ItemView {
    pub text: String,
    pub price: String,
    pub price_minor: i64,
}

/// The same instants as people read them, in the stringer's zone.
#[derive(Debug, Default)]
struct LocalTimes {
    zone: String,
    ordered_at: Option<String>,
    strung_at: Option<String>,
    returned_at: Option<String>,
    paid_at: Option<String>,
    voided_at: Option<String>,
    due_at: Option<String>,
    notified_at: Option<String>,
}

impl OrderView {
    pub fn new(order: Order, stringer: &Tenant, billing: Billing) -> OrderView {
        let tz = stringer.zone();
        let utc = |at: Option<NaiveDateTime>| at.map(format_utc);
        let local = |at: Option<NaiveDateTime>| at.map(|at| format_local(at, tz));
        let status = order.status(billing.overdue);
        let total = order.total();
        let still_due = order.still_due();
        let customer_address = match (&order.customer_postal, &order.customer_address) {
            (Some(postal), _) => Some(postal.lines().join("\n")),
            (None, lines) => lines.clone(),
        };
        OrderView {
            id: order.id.0,
            stringer: stringer.handle().to_string(),
            kind: order.kind,
            status,
            receipt_number: order.number.map(|n| n.to_string()),
            customer: order.customer,
            racket: order.racket,
            string: order.string,
            tension: order.tension,
            price: order.price.map(|p| p.to_string()),
            price_minor: order.price.map(|p| p.0),
            currency: order.currency.to_string(),
            ordered_at: utc(order.ordered_at),
            strung_at: utc(order.strung_at),
            returned_at: utc(order.returned_at),
            paid_at: utc(order.paid_at),
            voided_at: utc(order.voided_at),
            void_reason: order.void_reason,
            restring_of: order.restring_of.map(|id| id.0),
            v1_kind: order.v1.map(|(kind, _)| kind.to_string()),
            v1_id: order.v1.map(|(_, id)| id),
            customer_note: order.customer_note,
            email: order.email,
            customer_address,
            customer_country: order.customer_postal.as_ref().map(|postal| postal.country.clone()),
            due_on: billing.due_on.map(|day| day.to_string()),
            payment_reference: billing.reference,
            payment_method: order.payment_method,
            total: total.map(|p| p.to_string()),
            total_minor: total.map(|p| p.0),
            items: None,
            einvoices: None,
            due_at: utc(order.due_at),
            notified_at: utc(order.notified_at),
            cross_string: order.cross_string,
            string_length: order.string_length.map(|length| length.to_string()),
            own_string: order.own_string,
            notes: order.notes,
            credited: (order.credited.0 > 0).then(|| order.credited.to_string()),
            credited_minor: order.credited.0,
            credited_by: (!billing.credit_notes.is_empty()).then(|| {
                billing.credit_notes.iter().map(|note| note.number.to_string()).collect::<Vec<_>>().join(", ")
            }),
            still_due: still_due.map(|due| due.to_string()),
            due_minor: still_due.map(|due| due.0),
            part_paid: (order.part_paid.0 > 0).then(|| order.part_paid.to_string()),
            part_paid_minor: order.part_paid.0,
            part_payments: None,
            credit_notes: billing
                .credit_notes
                .iter()
                .map(|note| CreditView {
                    number: note.number.to_string(),
                    amount: note.amount.to_string(),
                    sent_to: note.sent.as_ref().map(|(_, to)| to.clone()),
                    sent_local: note.sent.as_ref().map(|(at, _)| format_local(*at, tz)),
                })
                .collect(),
            reminder_level: billing.reminders.last().map(|r| r.level.get()),
            reminded_at: billing.reminders.last().map(|r| format_utc(r.issued_at)),
            reminders: billing
                .reminders
                .iter()
                .map(|r| ReminderView {
                    level: r.level.get(),
                    asked: match r.fee.0 {
                        0 => format!("{} {}, pay by {}", r.open, r.currency, r.due_on),
                        _ => format!("{} + fee {} {}, pay by {}", r.open, r.fee, r.currency, r.due_on),
                    },
                    issued_local: format_local(r.issued_at, tz),
                    delivered: match (r.sent_at, r.printed_at) {
                        (Some(at), _) => format!("sent {}", format_local(at, tz)),
                        (None, Some(at)) => format!("written for the post {}", format_local(at, tz)),
                        (None, None) => "not delivered yet".to_string(),
                    },
                })
                .collect(),
            local: LocalTimes {
                zone: tz.name().to_string(),
                ordered_at: local(order.ordered_at),
                strung_at: local(order.strung_at),
                returned_at: local(order.returned_at),
                paid_at: local(order.paid_at),
                voided_at: local(order.voided_at),
                due_at: local(order.due_at),
                notified_at: local(order.notified_at),
            },
        }
    }

    /// `field  value` lines for `order show`.
    pub fn details(&self) -> String {
        let price = self.price.as_ref().map(|p| format!("{p} {}", self.currency));
        let v1 = self.v1_id.map(|id| format!("{} {id}", self.v1_kind.as_deref().unwrap_or("")));
        let zoned = |at: &Option<String>| at.as_ref().map(|t| format!("{t} {}", self.local.zone));
        let fields: [(&str, Option<String>); 17] = [
            ("order", Some(self.id.to_string())),
            ("stringer", Some(self.stringer.clone())),
            ("status", Some(self.status.to_string())),
            ("receipt", self.receipt_number.clone()),
            ("kind", Some(self.kind.to_string())),
            ("customer", self.customer.clone()),
            ("racket", self.racket.clone()),
            ("string", self.string.clone()),
            ("tension", self.tension.clone()),
            ("price", price),
            ("ordered", zoned(&self.local.ordered_at)),
            ("strung", zoned(&self.local.strung_at)),
            ("returned", zoned(&self.local.returned_at)),
            ("paid", zoned(&self.local.paid_at)),
            (
                "voided",
                zoned(&self.local.voided_at)
                    .map(|t| format!("{t}: {}", self.void_reason.as_deref().unwrap_or(""))),
            ),
            ("restring of", self.restring_of.map(|id| id.to_string())),
            ("v1", v1),
        ];
        let mut text: Vec<String> =
            fields.into_iter().filter_map(|(name, value)| value.map(|v| format!("{name:<12} {v}"))).collect();
        let items =
            self.items.iter().flatten().map(|item| format!("{} {} {}", item.text, item.price, self.currency));
        text.extend(items.map(|item| format!("{:<12} {item}", "item")));
        if self.items.as_ref().is_some_and(|items| !items.is_empty()) {
            let total = self.total.as_ref().map(|t| format!("{t} {}", self.currency)).unwrap_or_default();
            text.push(format!("{:<12} {total}", "total"));
        }
        let string = [
            self.cross_string.as_ref().map(|cross| format!("{:<12} {cross}", "crosses")),
            self.string_length.as_ref().map(|length| format!("{:<12} {length}", "length")),
            self.own_string.then(|| format!("{:<12} the customer's own", "string from")),
            zoned(&self.local.due_at).map(|due| format!("{:<12} {due}", "promised")),
            zoned(&self.local.notified_at).map(|at| format!("{:<12} {at}", "told ready")),
        ];
        text.extend(string.into_iter().flatten());
        let more: [(&str, Option<String>); 5] = [
            ("email", self.email.clone()),
            ("address", self.customer_address.as_ref().map(|a| a.replace('\n', ", "))),
            ("due", self.due_on.clone()),
            ("reference", self.payment_reference.clone()),
            ("paid by", self.payment_method.map(|m| m.to_string())),
        ];
        text.extend(more.into_iter().filter_map(|(name, value)| value.map(|v| format!("{name:<12} {v}"))));
        if let Some(credited) = &self.credited {
            text.push(format!(
                "{:<12} {credited} {} by {}",
                "credited",
                self.currency,
                self.credited_by.as_deref().unwrap_or_default()
            ));
        }
        for part in self.part_payments.iter().flatten() {
            text.push(format!(
                "{:<12} {} {} by {}, {} {}",
                "paid in part", part.amount, self.currency, part.method, part.paid_local, self.local.zone
            ));
        }
        if let Some(due) = self.still_due.as_ref().filter(|_| self.paid_at.is_none()) {
            text.push(format!("{:<12} {due} {}", "still due", self.currency));
        }
        for note in &self.credit_notes {
            let sent = match (&note.sent_local, &note.sent_to) {
                (Some(at), Some(to)) => format!("sent {at} {} to {to}", self.local.zone),
                _ => "not sent".to_string(),
            };
            text.push(format!(
                "{:<12} {} {} {}, {sent}",
                "credit note", note.number, note.amount, self.currency
            ));
        }
        for written in self.einvoices.iter().flatten() {
            text.push(format!(
                "{:<12} {} {} written {} {} to {}",
                "e-invoice",
                written.number,
                written.form,
                written.written_local,
                self.local.zone,
                written.file
            ));
        }
        for reminder in &self.reminders {
            text.push(format!(
                "{:<12} {} of {} {}: {}; {}",
                "reminder",
                reminder.level,
                reminder.issued_local,
                self.local.zone,
                reminder.asked,
                reminder.delivered
            ));
        }
        if let Some(note) = &self.customer_note {
            text.push(format!("{:<12} {note}", "note"));
        }
        if let Some(notes) = &self.notes {
            text.push(format!("{:<12} {notes}", "notes"));
        }
        text.join("\n")
    }
}

/// One line of `order list`: what people look for, fitted to the terminal.
#[derive(Debug, Serialize, Tabled)]
struct OrderRow {
    id: i64,
    stringer: String,
    receipt: String,
    status: String,
    /// The credit notes that took it back.
    #[tabled(rename = "credit notes")]
    credit_notes: String,
    /// The reminder level an unpaid invoice reached.
    reminder: String,
    customer: String,
    racket: String,
    string: String,
    tension: String,
    /// The total (stringing and items), with its currency.
    price: String,
    /// An invoice's due date.
    due: String,
}

/// The table of `order list` shows the `OrderRow` of each order.
impl Tabled for OrderView {
    const LENGTH: usize = OrderRow::LENGTH;

    fn fields(&self) -> Vec<std::borrow::Cow<'_, str>> {
        OrderRow::from(self)
            .fields()
            .into_iter()
            .map(|cell| std::borrow::Cow::Owned(cell.into_owned()))
            .collect()
    }

    fn headers() -> Vec<std::borrow::Cow<'static, str>> {
        OrderRow::headers()
    }
}

impl From<&OrderView> for OrderRow {
    fn from(view: &OrderView) -> Self {
        OrderRow {
            id: view.id,
            stringer: view.stringer.clone(),
            receipt: output::cell(view.receipt_number.as_ref()),
            status: view.status.to_string(),
            credit_notes: output::cell(view.credited_by.as_ref()),
            reminder: match (view.reminders.last(), view.status) {
                (Some(last), OrderStatus::Overdue | OrderStatus::Unpaid) => last.level.to_string(),
                _ => String::new(),
            },
            customer: output::cell(view.customer.as_ref()),
            racket: output::cell(view.racket.as_ref()),
            string: output::cell(view.string.as_ref()),
            tension: output::cell(view.tension.as_ref()),
            price: output::cell(view.total.as_ref().map(|total| format!("{total} {}", view.currency))),
            due: output::cell(view.due_on.as_ref()),
        }
    }
}
