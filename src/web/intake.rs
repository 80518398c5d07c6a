//! `/orders/new`: taking an order, as `receipts order add` takes it (the library's
//! `intake::take_order`), with fields named as its flags. A refusal shows the form again
//! with what was typed, the CLI's words next to the field they are about.

use super::form::Fields;
use super::problem::{self, PageError, PageResult};
use super::session::{Nav, Posted, Staff, Visit};
use super::words::Words;
use super::Shared;
use crate::db::intake::{Details, Intake};
use crate::domain::{format_local, now_utc, CustomerId, Item, OrderKind, RacketId};
use crate::error::{Class, Error};
use crate::ops;
use crate::ops::views;
use askama::Template;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;

/// One field of the form.
struct Field {
    name: &'static str,
    label: &'static str,
    value: String,
    problem: Option<String>,
}

#[derive(Template)]
#[template(path = "new_order.html")]
struct NewOrderPage {
    w: &'static Words,
    nav: Nav,
    /// Whom it is for when the customer page sent us: (id, name).
    customer: Option<(i64, String)>,
    racket: Option<(i64, String)>,
    same: bool,
    fields: Vec<Field>,
    /// The promised time (`datetime-local`: 2026-11-28T17:00), and the one first shown: the
    /// stringer's turnaround from then, which the order takes from when it is taken instead.
    due: Field,
    due_shown: String,
    /// The lines after the stringing: (description, price).
    items: Vec<(String, String)>,
    items_problem: Option<String>,
    /// The shop's newest customers' names, offered as one types (the browser's own list).
    names: Vec<String>,
    /// Customers with a name like the one typed, offered before a new one is added.
    similar: Vec<(i64, String)>,
    /// A refusal about no one field.
    problem: Option<String>,
}

/// The text fields, in the order the counter asks.
const FIELDS: [&str; 5] = ["customer", "racket", "string", "tension", "price"];
const ITEM_LINES: usize = 3;
/// How many of the shop's customers' names the form offers as one types.
const NAMES_OFFERED: i64 = 500;

impl NewOrderPage {
    fn new(staff: &Staff, typed: Option<&Fields>) -> NewOrderPage {
        let w = staff.words;
        let label = |name: &str| match name {
            "customer" => w.customer,
            "racket" => w.racket,
            "string" => w.string,
            "tension" => w.tension,
            _ => w.price,
        };
        let value = |name: &str| typed.and_then(|f| f.get(name)).unwrap_or_default().to_string();
        let fields: Vec<Field> = FIELDS
            .iter()
            .map(|&name| Field { name, label: label(name), value: value(name), problem: None })
            .collect();
        let (texts, prices) =
            typed.map(|f| (f.every("item_text"), f.every("item_price"))).unwrap_or_default();
        let typed_lines = texts.len().max(prices.len());
        let items = (0..ITEM_LINES.max(typed_lines))
            .map(|line| {
                let at = |values: &[&str]| values.get(line).map(|v| v.to_string()).unwrap_or_default();
                (at(&texts), at(&prices))
            })
            .collect();
        NewOrderPage {
            w,
            nav: staff.nav(),
            customer: None,
            racket: None,
            same: typed.is_some_and(|f| f.filled("same").is_some()),
            fields,
            due: Field { name: "due", label: w.ready_by, value: value("due"), problem: None },
            due_shown: value("due_shown"),
            items,
            items_problem: None,
            names: Vec::new(),
            similar: Vec::new(),
            problem: None,
        }
    }

    /// Puts a refusal next to the field it is about, else above the form.
    fn refused(mut self, error: &Error) -> NewOrderPage {
        let message = problem::explain(error, self.w);
        match error.field() {
            Some("due") => self.due.problem = Some(message),
            Some("item") => self.items_problem = Some(message),
            field => {
                let hidden = |name: &str| {
                    (name == "customer" && self.customer.is_some())
                        || (name == "racket" && self.racket.is_some())
                };
                let shown = self.fields.iter_mut().find(|f| Some(f.name) == field && !hidden(f.name));
                match shown {
                    Some(field) => field.problem = Some(message),
                    None => self.problem = Some(message),
                }
            }
        }
        self
    }
}

#[derive(Deserialize)]
pub struct Preset {
    customer_id: Option<i64>,
    racket_id: Option<i64>,
    same: Option<String>,
}

/// `GET /orders/new`, optionally for a customer and racket of the register
/// (`?customer_id=N&racket_id=M&same=yes` from the customer's page).
pub async fn form(State(counter): State<Shared>, visit: Visit, Query(preset): Query<Preset>) -> PageResult {
    let (customer_id, racket_id) = (preset.customer_id, preset.racket_id);
    let named = visit.read(&counter, move |conn, session| {
        let (customer, racket) = (customer_id.map(CustomerId), racket_id.map(RacketId));
        views::new_order(conn, &session.tenant, customer, racket, NAMES_OFFERED)
    });
    let (staff, views::NewOrder { customer, racket, names, turnaround_hours: turnaround }) = named.await?;
    let mut page = NewOrderPage::new(&staff, None);
    page.customer = customer.map(|c| (c.id.0, c.name));
    page.racket = racket.map(|r| (r.id.0, r.order_text().unwrap_or_default()));
    page.same = preset.same.is_some() && page.racket.is_some();
    page.names = names;
    let promised = now_utc() + chrono::Duration::hours(turnaround.into());
    // As a `datetime-local` field shows it: 2026-11-28T17:00 in the stringer's zone.
    page.due.value = format_local(promised, staff.session.tenant.zone()).replacen(' ', "T", 1);
    page.due_shown = page.due.value.clone();
    Ok(super::rendered(StatusCode::OK, &page))
}

/// `POST /orders/new`: the order taken, 303 to its page; or the form again, refused (422).
pub async fn take(State(counter): State<Shared>, posted: Posted<Staff>) -> PageResult {
    let Posted { by: staff, form } = posted;
    let (intake, details) = match read_order(&form) {
        Ok(read) => read,
        Err(e) => return Ok(refused_form(&staff, &form, &e)),
    };
    let tenant = staff.session.tenant.clone();
    let taken = counter
        .db(move |db| ops::orders::take(db, &tenant, OrderKind::Client, now_utc(), &intake, details))
        .await;
    match taken {
        Ok((taken, _)) => Ok(Redirect::to(&format!("/orders/{}", taken.order)).into_response()),
        Err(Error::SimilarCustomers { similar, .. }) => {
            let mut page = refused_page(&staff, &form);
            // The choices stand below the name typed, which the form keeps.
            page.similar = similar.into_iter().map(|(id, name)| (id.0, name)).collect();
            Ok(super::rendered(StatusCode::UNPROCESSABLE_ENTITY, &page))
        }
        Err(e) if matches!(e.class(), Class::BadInput | Class::Usage | Class::Refused) => {
            Ok(refused_form(&staff, &form, &e))
        }
        Err(e) => Err(PageError::Failed(e, staff.words)),
    }
}

/// The form again with what was typed and why it was refused.
fn refused_form(staff: &Staff, fields: &Fields, error: &Error) -> Response {
    let page = refused_page(staff, fields).refused(error);
    super::rendered(StatusCode::UNPROCESSABLE_ENTITY, &page)
}

/// The form with what was typed.
fn refused_page(staff: &Staff, fields: &Fields) -> NewOrderPage {
    let mut page = NewOrderPage::new(staff, Some(fields));
    // Whom it was for, as the hidden fields said (their names are shown from the register
    // only on the form's first showing).
    page.customer = fields.parsed::<i64>("customer_id").ok().flatten().map(|id| (id, format!("#{id}")));
    page.racket = fields.parsed::<i64>("racket_id").ok().flatten().map(|id| (id, format!("#{id}")));
    page
}

/// The order as the form gives it, parsed as the CLI parses its flags: the fields SPEC 20
/// names, and the form's own (an item as a description and a price; the promised time as
/// first shown; `customer_pick`, one of the customers of a similar name, or "new" to confirm
/// the name typed as a new customer).
fn read_order(fields: &Fields) -> Result<(Intake, Details), Error> {
    let text = |name: &str| fields.get(name).map(str::to_string).filter(|v| !v.is_empty());
    let pick = fields.filled("customer_pick");
    let picked = pick.filter(|&p| p != "new").map(|p| p.parse::<i64>().map(CustomerId)).transpose();
    let picked = picked.map_err(|_| Error::Invalid {
        field: "customer_pick",
        problem: "pick one of the customers offered".into(),
    })?;
    let item = |problem: String| Error::Invalid { field: "item", problem };
    let intake = Intake {
        customer: picked.or(fields.parsed::<i64>("customer_id")?.map(CustomerId)),
        racket: fields.parsed::<i64>("racket_id")?.map(RacketId),
        racket_tag: None,
        same: fields.filled("same").is_some(),
        ask_if_similar: pick.is_none(),
    };
    // An item as the CLI writes it (`item=Overgrip=3.50`, SPEC 20), and as the form asks it.
    let mut items = fields
        .every("item")
        .into_iter()
        .filter(|line| !line.trim().is_empty())
        .map(|line| line.trim().parse::<Item>().map_err(item))
        .collect::<Result<Vec<_>, _>>()?;
    let (texts, prices) = (fields.every("item_text"), fields.every("item_price"));
    for line in 0..texts.len().max(prices.len()) {
        let text = texts.get(line).map_or("", |v| v.trim());
        let price = prices.get(line).map_or("", |v| v.trim());
        match (text, price) {
            ("", "") => {}
            ("", price) => return Err(item(format!("the price {price} needs a description"))),
            (text, "") => return Err(item(format!("\"{text}\" needs a price"))),
            (text, price) => items.push(format!("{text}={price}").parse::<Item>().map_err(item)?),
        }
    }
    // The promised time as first shown is the stringer's turnaround: counted from when the
    // order is taken, not from when the form was opened.
    let due = match (fields.filled("due"), fields.get("due_shown")) {
        (Some(due), Some(shown)) if due.trim() == shown.trim() => None,
        _ => fields.parsed("due")?,
    };
    let details = Details {
        customer: if picked.is_some() { None } else { text("customer") },
        racket: text("racket"),
        string: text("string"),
        tension: text("tension"),
        price: fields.parsed("price")?,
        due,
        items,
        ..Details::default()
    };
    Ok((intake, details))
}
