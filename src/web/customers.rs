//! `/customers` and `/customers/{id}`: the register, found by typing (`?q=`, as `customer
//! list --search`), and one customer with their rackets, each with what it had last time.

use super::pages::{string_and_tension, Id};
use super::problem::PageError;
use super::problem::PageResult;
use super::session::{Nav, Posted, Staff, Visit};
use super::words::Words;
use super::Shared;
use crate::db::customers::{CustomerChanges, Page, Start};
use crate::domain::{format_local, CustomerId};
use crate::error::Error;
use crate::ops;
use crate::ops::views;
use askama::Template;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect};
use serde::Deserialize;

const PAGE: i64 = 50;

#[derive(Template)]
#[template(path = "customers.html")]
struct CustomersPage {
    w: &'static Words,
    nav: Nav,
    q: String,
    /// (id, name, e-mail or phone)
    found: Vec<(i64, String, String)>,
    /// The link to the next page, when there is one.
    more: Option<String>,
}

#[derive(Deserialize)]
pub struct Search {
    q: Option<String>,
    /// The customer the page follows (the next page's link says it).
    after: Option<i64>,
    /// How many to skip instead.
    from: Option<i64>,
}

/// `GET /customers[?q=TEXT][&after=ID | &from=N]`: everyone, or who the text finds, a page
/// at a time; the next page follows the last one shown, however far into the register.
pub async fn list(State(counter): State<Shared>, visit: Visit, Query(search): Query<Search>) -> PageResult {
    let q = search.q.unwrap_or_default();
    let start = match (search.after, search.from) {
        (Some(id), _) => Start::After(CustomerId(id)),
        (None, from) => Start::Offset(from.unwrap_or(0).max(0)),
    };
    let text = q.clone();
    let found = visit.read(&counter, move |conn, session| {
        let text = Some(text.as_str()).filter(|t| !t.is_empty());
        views::customers(conn, &session.tenant, text, Some(Page { start, limit: PAGE + 1 }))
    });
    let (staff, mut found) = found.await?;
    let more = (found.len() as i64 > PAGE).then(|| {
        let last = &found[PAGE as usize - 1];
        let query: String = form_urlencoded::Serializer::new(String::new())
            .append_pair("q", &q)
            .append_pair("after", &last.id.0.to_string())
            .finish();
        format!("/customers?{query}")
    });
    found.truncate(PAGE as usize);
    let page = CustomersPage {
        w: staff.words,
        nav: staff.nav(),
        q,
        found: found.into_iter().map(|c| (c.id.0, c.name, c.email.or(c.phone).unwrap_or_default())).collect(),
        more,
    };
    Ok(super::rendered(StatusCode::OK, &page))
}

/// A racket on the customer's page: what it had last time.
struct RacketLine {
    id: i64,
    model: String,
    last: Option<String>,
}

/// An order in the customer's history.
struct PastOrder {
    id: i64,
    when: String,
    racket: String,
    string: String,
    number: String,
}

#[derive(Template)]
#[template(path = "customer.html")]
struct CustomerPage {
    w: &'static Words,
    nav: Nav,
    id: i64,
    name: String,
    email: String,
    phone: String,
    /// The customer as a business: its identifiers, as stored or as typed when refused.
    business: Vec<BusinessField>,
    /// Why the identifiers typed were refused.
    problem: Option<String>,
    rackets: Vec<RacketLine>,
    history: Vec<PastOrder>,
}

/// One identifier of the customer as a business, on the form that edits them.
struct BusinessField {
    name: &'static str,
    label: &'static str,
    value: String,
    refused: bool,
}

/// The form's fields, in its order.
const BUSINESS: [&str; 5] = ["vat_id", "buyer_reference", "tax_code", "sdi_code", "pec"];

fn business_fields(w: &'static Words, value: impl Fn(&str) -> String, refused: &str) -> Vec<BusinessField> {
    let labels = [w.vat_id, w.buyer_reference, w.tax_code, w.sdi_code, w.pec];
    BUSINESS
        .into_iter()
        .zip(labels)
        .map(|(name, label)| BusinessField { name, label, value: value(name), refused: name == refused })
        .collect()
}

/// `GET /customers/{id}`: the customer, their rackets with their last job ("the same as
/// last time" one click away), their orders newest first.
pub async fn show(State(counter): State<Shared>, visit: Visit, Id(id): Id) -> PageResult {
    let found =
        visit.read(&counter, move |conn, session| views::customer(conn, &session.tenant, CustomerId(id)));
    let (staff, seen) = found.await?;
    let ids = seen.customer.business.clone();
    let stored = move |name: &str| {
        match name {
            "vat_id" => &ids.vat_id,
            "buyer_reference" => &ids.reference,
            "tax_code" => &ids.tax_code,
            "sdi_code" => &ids.sdi_code,
            _ => &ids.pec,
        }
        .clone()
        .unwrap_or_default()
    };
    let business = business_fields(staff.words, stored, "");
    Ok(page(&staff, seen, business, None, StatusCode::OK))
}

/// `POST /customers/{id}`: the customer's identifiers as a business saved (303 back to the
/// page), or the page again with the refusal beside the field (422), nothing saved.
pub async fn save(State(counter): State<Shared>, Id(id): Id, posted: Posted<Staff>) -> PageResult {
    let Posted { by: staff, form } = posted;
    let typed = |name: &str| form.get(name).unwrap_or_default().to_string();
    let mut changes = CustomerChanges {
        vat_id: Some(typed("vat_id")),
        buyer_reference: Some(typed("buyer_reference")),
        tax_code: Some(typed("tax_code")),
        sdi_code: Some(typed("sdi_code")),
        pec: Some(typed("pec")),
        ..CustomerChanges::default()
    };
    let refusal = match ops::register::check_business(&mut changes) {
        Ok(()) => {
            let tenant = staff.session.tenant.clone();
            let saved = staff
                .db(&counter, move |db| ops::register::edit_customer(db, &tenant, CustomerId(id), &changes))
                .await;
            match saved {
                Ok(_) => return Ok(Redirect::to(&format!("/customers/{id}")).into_response()),
                Err(PageError::Failed(error, _)) if error.class() == crate::error::Class::BadInput => error,
                Err(other) => return Err(other),
            }
        }
        Err(error) => error,
    };
    let field = match &refusal {
        Error::Invalid { field, .. } | Error::Unprintable { field, .. } => *field,
        _ => "",
    };
    let problem = super::problem::explain(&refusal, staff.words);
    let tenant = staff.session.tenant.clone();
    let seen =
        staff.db(&counter, move |db| db.read(|conn| views::customer(conn, &tenant, CustomerId(id)))).await?;
    let business = business_fields(staff.words, typed, field);
    Ok(page(&staff, seen, business, Some(problem), StatusCode::UNPROCESSABLE_ENTITY))
}

fn page(
    staff: &Staff,
    views::CustomerSeen { customer, rackets: lines, history }: views::CustomerSeen,
    business: Vec<BusinessField>,
    problem: Option<String>,
    status: StatusCode,
) -> axum::response::Response {
    let zone = staff.session.tenant.zone();
    let page = CustomerPage {
        w: staff.words,
        nav: staff.nav(),
        id: customer.id.0,
        name: customer.name,
        email: customer.email.unwrap_or_default(),
        phone: customer.phone.unwrap_or_default(),
        business,
        problem,
        rackets: lines
            .into_iter()
            .map(|(racket, last)| RacketLine {
                id: racket.id.0,
                model: racket.order_text().unwrap_or_default(),
                last: last
                    .as_ref()
                    .map(|job| string_and_tension(job.string.as_deref(), job.tension.as_deref())),
            })
            .collect(),
        history: history
            .iter()
            .map(|order| PastOrder {
                id: order.id.0,
                when: order.ordered_at.map(|at| format_local(at, zone)).unwrap_or_default(),
                racket: order.racket.clone().unwrap_or_default(),
                string: string_and_tension(order.string.as_deref(), order.tension.as_deref()),
                number: order.number.map(|n| n.to_string()).unwrap_or_default(),
            })
            .collect(),
    };
    super::rendered(status, &page)
}
