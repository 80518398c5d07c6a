//! The pages of the day: the queue, an order with its actions, its documents. Each calls
//! the library function its command calls; the tenant is the session's stringer, so an id
//! of another stringer's row is not found (404) like an id that does not exist.

use super::problem::{self, PageError, PageResult};
use super::session::{Nav, Owner, Posted, Staff, Visit};
use super::words::Words;
use super::Shared;
use crate::db::mint::Outcome;
use crate::db::orders::{Actions, Pickup};
use crate::db::part_payments::Payment;
use crate::db::queue::Queued;
use crate::db::receipts::Options;
use crate::db::Tenant;
use crate::domain::{
    format_local, now_utc, random_token, strings_line, CreditNumber, OrderId, PaymentMethod, Price, Refund,
};
use crate::error::Error;
use crate::mail::SmtpUrl;
use crate::ops::label::{self, Which};
use crate::ops::outbox::Asked;
use crate::ops::views;
use crate::ops::{self, credits as credit_ops, mint, Whose};
use crate::receipt::label::Size;
use askama::Template;
use axum::extract::{FromRequestParts, Path, State};
use axum::http::request::Parts;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use chrono_tz::Tz;
use strum::VariantArray;

pub async fn not_found(headers: axum::http::HeaderMap) -> Response {
    not_found_in_their_language(&headers)
}

/// The 404 page in the browser's language (no session tells another).
fn not_found_in_their_language(headers: &axum::http::HeaderMap) -> Response {
    problem::not_found_page(Words::of(super::words::language_of(None, headers, None)))
}

/// The id in a page's URL. What is not a number names nothing there: 404, as an id of no
/// order does, not a parser's message.
pub struct Id(pub i64);

impl<S: Send + Sync> FromRequestParts<S> for Id {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Id, Response> {
        match Path::<i64>::from_request_parts(parts, state).await {
            Ok(Path(id)) => Ok(Id(id)),
            Err(_) => Err(not_found_in_their_language(&parts.headers)),
        }
    }
}

pub async fn stylesheet() -> Response {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], include_str!("../../templates/app.css"))
        .into_response()
}

/// An order as a list shows it.
struct Line {
    id: i64,
    customer: String,
    racket: String,
    string: String,
    when: String,
    overdue: bool,
}

impl Line {
    fn of(order: &Queued, zone: Tz, when: Option<chrono::NaiveDateTime>, now: chrono::NaiveDateTime) -> Line {
        Line {
            id: order.id.0,
            customer: order.customer.clone().unwrap_or_default(),
            racket: order.racket.clone().unwrap_or_default(),
            string: string_and_tension(order.string.as_deref(), order.tension.as_deref()),
            when: when.map(|at| format_local(at, zone)).unwrap_or_default(),
            overdue: order.is_overdue(now),
        }
    }
}

#[derive(Template)]
#[template(path = "queue.html")]
struct QueuePage {
    w: &'static Words,
    nav: Nav,
    open: Vec<Line>,
    waiting: Vec<Line>,
}

/// `/`: the queue of SPEC 19, the overdue first.
pub async fn queue(State(counter): State<Shared>, visit: Visit) -> PageResult {
    let now = now_utc();
    let (staff, queue) =
        visit.read(&counter, move |conn, session| views::queue(conn, &session.tenant, now)).await?;
    let zone = staff.session.tenant.zone();
    let page = QueuePage {
        w: staff.words,
        nav: staff.nav(),
        open: queue.open.iter().map(|o| Line::of(o, zone, o.due(), now)).collect(),
        waiting: queue.waiting.iter().map(|o| Line::of(o, zone, o.strung_at, now)).collect(),
    };
    Ok(super::rendered(StatusCode::OK, &page))
}

#[derive(Template)]
#[template(path = "order.html")]
struct OrderPage {
    w: &'static Words,
    nav: Nav,
    id: i64,
    customer: String,
    racket: String,
    string: String,
    tension: String,
    price: String,
    number: Option<String>,
    strung: Option<String>,
    picked_up: Option<String>,
    paid: Option<String>,
    void: Option<String>,
    /// What the customer still owes, while something is.
    still_due: Option<String>,
    /// Its credit notes: number and amount.
    credit_notes: Vec<(String, String)>,
    /// Whether its document is an invoice that an e-invoice can be made of, and the
    /// e-invoices handed out: "2026-0001 facturx_pdf 30.11.2026 13:00".
    einvoice: bool,
    einvoices: Vec<String>,
    /// Its part payments: amount, method, when.
    parts: Vec<String>,
    /// The credit form's one-time token, and what is left to credit.
    token: String,
    left: String,
    /// The actions this order offers now.
    can: Actions,
    methods: Vec<(&'static str, &'static str)>,
}

/// `/orders/{id}`: the order, its number once strung, and the day's actions.
pub async fn order(State(counter): State<Shared>, visit: Visit, Id(id): Id) -> PageResult {
    let found = visit.read(&counter, move |conn, session| views::order(conn, &session.tenant, OrderId(id)));
    let (staff, views::OrderSeen { order, sent, credit_notes, methods, einvoices, parts, .. }) =
        found.await?;
    let zone = staff.session.tenant.zone();
    let at = |time: Option<chrono::NaiveDateTime>| time.map(|t| format_local(t, zone));
    let w = staff.words;
    let page = OrderPage {
        w,
        nav: staff.nav(),
        id: order.id.0,
        customer: order.customer.clone().unwrap_or_default(),
        racket: order.racket.clone().unwrap_or_default(),
        string: strings_line(order.string.as_deref(), order.cross_string.as_deref()).unwrap_or_default(),
        tension: order.tension.clone().unwrap_or_default(),
        price: order.total().map(|total| format!("{total} {}", order.currency)).unwrap_or_default(),
        number: order.number.map(|n| n.to_string()),
        strung: at(order.strung_at),
        picked_up: at(order.returned_at),
        paid: at(order.paid_at).map(|on| match order.payment_method {
            Some(method) => format!("{on} ({})", method_word(w, method)),
            None => on,
        }),
        void: order.voided_at.map(|_| order.void_reason.clone().unwrap_or_default()),
        still_due: order.still_due().filter(|due| due.0 > 0).map(|due| format!("{due} {}", order.currency)),
        credit_notes: credit_notes
            .iter()
            .map(|note| (note.number.to_string(), format!("{} {}", note.amount, note.currency)))
            .collect(),
        einvoice: order.number.is_some()
            && order.kind == crate::domain::OrderKind::Client
            && order.voided_at.is_none(),
        einvoices: einvoices
            .iter()
            .map(|written| {
                format!(
                    "{} {} {}",
                    written.number(),
                    written.form.as_deref().unwrap_or_default(),
                    format_local(written.at, zone)
                )
            })
            .collect(),
        parts: parts
            .iter()
            .map(|part| {
                let method = method_word(w, part.method);
                format!(
                    "{} {} ({method}) {}",
                    Price(part.amount_minor),
                    order.currency,
                    at(Some(part.paid_at)).unwrap_or_default()
                )
            })
            .collect(),
        token: random_token().map_err(|e| PageError::Failed(e.into(), w))?,
        // An open invoice paid in part is credited at most what is left to pay.
        left: match (order.paid_at, order.part_paid.0) {
            (None, 1..) => order.still_due(),
            _ => order.owed(),
        }
        .map(|left| format!("{left} {}", order.currency))
        .unwrap_or_default(),
        can: order.actions(sent, counter.smtp.is_some(), staff.is_owner()),
        methods: methods.iter().map(|&m| (m.as_str(), method_word(w, m))).collect(),
    };
    Ok(super::rendered(StatusCode::OK, &page))
}

/// A payment method in the page's language.
pub fn method_word(w: &'static Words, method: PaymentMethod) -> &'static str {
    let index = PaymentMethod::VARIANTS.iter().position(|m| *m == method).unwrap_or_default();
    w.methods[index]
}

/// "RPM Blast 1.25 24/23 kg": what an order was strung with, as lists show it.
pub fn string_and_tension(string: Option<&str>, tension: Option<&str>) -> String {
    [string, tension].into_iter().flatten().collect::<Vec<_>>().join(" ")
}

/// 303 back to the order's page once an action is done.
fn back_to(id: i64) -> PageResult {
    Ok(Redirect::to(&format!("/orders/{id}")).into_response())
}

/// `POST /orders/{id}/strung`: mints, and answers 303 to the order's page, which shows the
/// number. Posted again for a numbered order (a double click), it mints nothing.
pub async fn strung(State(counter): State<Shared>, Id(id): Id, posted: Posted<Staff>) -> PageResult {
    let tenant = posted.by.session.tenant.clone();
    posted
        .by
        .db(&counter, move |db| {
            let minted = mint::strung(db, Whose::Known(&tenant), &mint::Request::now(OrderId(id)))?.minted;
            if minted.outcome == Outcome::Fresh {
                eprintln!("order {id} strung: receipt {} for {}", minted.number, tenant.handle());
            }
            Ok(())
        })
        .await?;
    back_to(id)
}

/// `POST /orders/{id}/pickup`: the racket taken, and paid there when `paid` names a method.
pub async fn pickup(State(counter): State<Shared>, Id(id): Id, posted: Posted<Staff>) -> PageResult {
    let Posted { by: staff, form } = posted;
    let paid = form.parsed::<PaymentMethod>("paid").map_err(|e| PageError::Failed(e, staff.words))?;
    let tenant = staff.session.tenant.clone();
    let pickup = Pickup { at: now_utc(), paid };
    staff.db(&counter, move |db| ops::orders::pickup(db, &tenant, OrderId(id), pickup)).await?;
    back_to(id)
}

/// `POST /orders/{id}/pay`: a payment taken at the counter, by the method `paid`, of
/// `amount` (a part) or, left empty, of all that is left.
pub async fn pay(State(counter): State<Shared>, Id(id): Id, posted: Posted<Staff>) -> PageResult {
    let Posted { by: staff, form } = posted;
    let failed = |e| PageError::Failed(e, staff.words);
    let method = form.parsed::<PaymentMethod>("paid").map_err(failed)?.ok_or_else(|| {
        failed(Error::Invalid { field: "paid", problem: "is needed: say how it was paid".into() })
    })?;
    let amount = form.parsed::<Price>("amount").map_err(failed)?;
    let tenant = staff.session.tenant.clone();
    let payment = Payment { amount, method, at: now_utc() };
    staff.db(&counter, move |db| ops::orders::pay(db, &tenant, OrderId(id), payment).map(drop)).await?;
    back_to(id)
}

/// An action that e-mails over the counter's mail server (`serve --smtp-url`).
async fn mail(
    counter: &Shared,
    staff: &Staff,
    work: impl FnOnce(&mut crate::db::Db, &SmtpUrl, &Tenant) -> Result<(), Error> + Send + 'static,
) -> Result<(), PageError> {
    let server = counter.smtp.clone();
    let tenant = staff.session.tenant.clone();
    staff.db(counter, move |db| work(db, &server.ok_or(Error::NoMailServer)?, &tenant)).await
}

/// `POST /orders/{id}/notify`: tells the customer the racket is ready, as `receipts notify`
/// does (once; journaled once the mail server took it).
pub async fn notify(State(counter): State<Shared>, Id(id): Id, posted: Posted<Staff>) -> PageResult {
    mail(&counter, &posted.by, move |db, server, tenant| {
        crate::ops::outbox::notify(db, server, tenant, OrderId(id), false).map(drop)
    })
    .await?;
    back_to(id)
}

/// `POST /orders/{id}/send`: e-mails the document, as `receipts send` does (once; the
/// number made durable first; journaled once the mail server took it).
pub async fn send(State(counter): State<Shared>, Id(id): Id, posted: Posted<Staff>) -> PageResult {
    mail(&counter, &posted.by, move |db, server, tenant| {
        crate::ops::outbox::send(db, server, tenant, OrderId(id), &Asked::default()).map(drop)
    })
    .await?;
    back_to(id)
}

/// `POST /orders/{id}/void` (the owner's): the number stays taken, with the reason on record,
/// as `receipts void --order`.
pub async fn void(State(counter): State<Shared>, Id(id): Id, posted: Posted<Owner>) -> PageResult {
    let Posted { by: Owner(owner), form } = posted;
    let reason = form.get("reason").unwrap_or_default().to_string();
    let tenant = owner.session.tenant.clone();
    owner.db(&counter, move |db| crate::ops::void::order(db, &tenant, OrderId(id), &reason)).await?;
    back_to(id)
}

/// `POST /orders/{id}/credit` (the owner's): a credit note takes the document back, in full
/// or the amount given, as `receipts credit`. The form's one-time token makes a second post
/// of the same form (a double click, a reload) name the credit note the first issued.
pub async fn credit(State(counter): State<Shared>, Id(id): Id, posted: Posted<Owner>) -> PageResult {
    let Posted { by: Owner(owner), form } = posted;
    let words = owner.words;
    let invalid = |e| PageError::Failed(e, words);
    let request = credit_ops::Request {
        order: OrderId(id),
        amount: form.parsed::<Price>("amount").map_err(invalid)?,
        refund: form.parsed::<Refund>("refund").map_err(invalid)?,
        reason: form.get("reason").unwrap_or_default().to_string(),
        at: None,
        backdate: false,
        token: form.filled("token").map(str::to_string),
    };
    let tenant = owner.session.tenant.clone();
    owner.db(&counter, move |db| ops::credits::credit(db, Whose::Known(&tenant), &request).map(drop)).await?;
    back_to(id)
}

/// `/credit-notes/{number}`: a credit note's PDF, as `receipts receipt C-... -o FILE.pdf`.
pub async fn credit_note_pdf(
    State(counter): State<Shared>,
    staff: Staff,
    Path(number): Path<String>,
) -> PageResult {
    let number: CreditNumber =
        number.parse().map_err(|_| PageError::Answer(Box::new(problem::not_found_page(staff.words))))?;
    let tenant = staff.session.tenant.clone();
    let (name, bytes) = staff
        .db(&counter, move |db| {
            let note = ops::documents::credit_note(db, &tenant, number, Options::default())?;
            let name = crate::receipt::file_name(tenant.handle(), &number);
            let pdf = ops::einvoices::handed_out(db, &tenant, &note, &name)?;
            Ok((name, pdf))
        })
        .await?;
    Ok(pdf_response(bytes, &name))
}

/// `/orders/{id}/receipt.pdf`: the frozen document, as `receipts receipt N -o FILE.pdf`.
pub async fn receipt_pdf(State(counter): State<Shared>, staff: Staff, Id(id): Id) -> PageResult {
    let tenant = staff.session.tenant.clone();
    let (name, bytes) = staff
        .db(&counter, move |db| {
            let receipt = ops::documents::receipt(db, &tenant, OrderId(id), Options::default())?;
            let name = crate::receipt::file_name(tenant.handle(), &receipt.number);
            let pdf = ops::einvoices::handed_out(db, &tenant, &receipt, &name)?;
            Ok((name, pdf))
        })
        .await?;
    Ok(pdf_response(bytes, &name))
}

/// `/orders/{id}/einvoice`: the document as its country's e-invoice (the Factur-X hybrid
/// PDF, or an Italian shop's FatturaPA XML), as `receipt --einvoice` and `einvoice` write it.
pub async fn einvoice(State(counter): State<Shared>, staff: Staff, Id(id): Id) -> PageResult {
    let tenant = staff.session.tenant.clone();
    let (bytes, name, mime) = staff
        .db(&counter, move |db| {
            let receipt = ops::documents::receipt(db, &tenant, OrderId(id), Options::default())?;
            ops::einvoices::download(db, &tenant, &receipt)
        })
        .await?;
    Ok(download_response(bytes, &name, mime))
}

/// `/orders/{id}/label.pdf`: the racket's label, its QR code opening this order's page.
pub async fn label_pdf(State(counter): State<Shared>, staff: Staff, Id(id): Id) -> PageResult {
    let tenant = staff.session.tenant.clone();
    let base = counter.base_url.clone();
    let labels = staff
        .db(&counter, move |db| {
            label::labels(db, &tenant, Which::Order(OrderId(id)), Size::default(), base.as_deref())
        })
        .await?;
    Ok(pdf_response(labels.pdf.unwrap_or_default(), &labels.file_name))
}

pub(super) fn pdf_response(bytes: Vec<u8>, name: &str) -> Response {
    file_response(bytes, name, "application/pdf", "inline")
}

/// A file to save (an e-invoice's XML) or to show (its PDF).
fn download_response(bytes: Vec<u8>, name: &str, mime: &'static str) -> Response {
    let disposition = if mime == "application/pdf" { "inline" } else { "attachment" };
    file_response(bytes, name, mime, disposition)
}

fn file_response(bytes: Vec<u8>, name: &str, mime: &'static str, disposition: &str) -> Response {
    (
        [
            (header::CONTENT_TYPE, mime.to_string()),
            (header::CONTENT_DISPOSITION, format!("{disposition}; filename=\"{name}\"")),
        ],
        bytes,
    )
        .into_response()
}
