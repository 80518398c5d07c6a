//! `/orders/new`: taking an order, as `receipts order add` takes it (the library's
//! `intake::take_order`), with fields named as its flags. A refusal shows the form again
//! with what was typed, the CLI's words next to the field they are about.

use super::form::Fields;
use super::pages::failure;
use super::session::{Nav, Staff, Visit};
use super::words::Words;
use super::Shared;
use crate::db::intake::{self, Details, Intake};
use crate::db::{customers, rackets};
use crate::domain::{now_utc, CustomerId, Item, OrderKind, RacketId};
use crate::error::Error;
use askama::Template;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
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
    /// A refusal about no one field.
    problem: Option<String>,
}

/// The visible fields, in the order the counter asks.
const FIELDS: [&str; 6] = ["customer", "racket", "string", "tension", "price", "due"];
const ITEM_LINES: usize = 3;

impl NewOrderPage {
    fn new(staff: &Staff, typed: Option<&Fields>) -> NewOrderPage {
        let w = staff.words;
        let label = |name: &str| match name {
            "customer" => w.customer,
            "racket" => w.racket,
            "string" => w.string,
            "tension" => w.tension,
            "price" => w.price,
            "due" => w.due,
            _ => w.item,
        };
        let mut fields: Vec<Field> = FIELDS
            .iter()
            .map(|&name| Field {
                name,
                label: label(name),
                value: typed.and_then(|f| f.get(name)).unwrap_or_default().to_string(),
                problem: None,
            })
            .collect();
        let items = typed.map(|f| f.all("item")).unwrap_or_default();
        for line in 0..ITEM_LINES.max(items.len()) {
            fields.push(Field {
                name: "item",
                label: w.item,
                value: items.get(line).map(|i| i.to_string()).unwrap_or_default(),
                problem: None,
            });
        }
        NewOrderPage {
            w,
            nav: staff.nav(),
            customer: None,
            racket: None,
            same: typed.is_some_and(|f| f.filled("same").is_some()),
            fields,
            problem: None,
        }
    }

    /// Puts a refusal next to the field it names (`--tension ...`), else above the form.
    fn refused(mut self, message: String) -> NewOrderPage {
        let hidden = |name: &str| {
            (name == "customer" && self.customer.is_some()) || (name == "racket" && self.racket.is_some())
        };
        let named = self.fields.iter_mut().find(|field| {
            !hidden(field.name)
                && (message.contains(&format!("--{}", field.name))
                    || message.starts_with(&format!("{} ", field.name)))
        });
        match named {
            Some(field) => field.problem = Some(message),
            None => self.problem = Some(message),
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
pub async fn form(State(counter): State<Shared>, visit: Visit, Query(preset): Query<Preset>) -> Response {
    let (customer_id, racket_id) = (preset.customer_id, preset.racket_id);
    let named = visit.read(&counter, move |conn, session| {
        let tenant = &session.tenant;
        let customer = customer_id.map(|id| customers::find(conn, tenant, CustomerId(id))).transpose()?;
        let racket = racket_id.map(|id| rackets::find(conn, tenant, RacketId(id))).transpose()?;
        Ok((customer, racket))
    });
    let (staff, (customer, racket)) = match named.await {
        Ok(named) => named,
        Err(response) => return response,
    };
    let mut page = NewOrderPage::new(&staff, None);
    page.customer = customer.map(|c| (c.id.0, c.name));
    page.racket = racket.map(|r| (r.id.0, r.order_text().unwrap_or_default()));
    page.same = preset.same.is_some() && page.racket.is_some();
    Html(page.render().unwrap_or_default()).into_response()
}

/// `POST /orders/new`: the order taken, 303 to its page; or the form again, refused (422).
pub async fn take(State(counter): State<Shared>, staff: Staff, fields: Fields) -> Response {
    if let Some(refused) = staff.refuses_csrf(fields.get("csrf")) {
        return refused;
    }
    let read = read_order(&fields);
    let (intake, details) = match read {
        Ok(read) => read,
        Err(message) => return refused_form(&staff, &fields, message),
    };
    let tenant = staff.session.tenant.clone();
    let taken = counter
        .db(move |db| {
            db.write(|conn| intake::take_order(conn, &tenant, OrderKind::Client, now_utc(), &intake, details))
        })
        .await;
    match taken {
        Ok((taken, _)) => Redirect::to(&format!("/orders/{}", taken.order)).into_response(),
        Err(
            e @ (Error::BadInput(_)
            | Error::Usage(_)
            | Error::SeveralCustomers { .. }
            | Error::BlankName
            | Error::NothingToCopy { .. }
            | Error::RacketOfAnotherCustomer { .. }
            | Error::TagTaken { .. }
            | Error::Unprintable { .. }
            | Error::NotForQrBill { .. }),
        ) => refused_form(&staff, &fields, e.to_string()),
        Err(e) => failure(e, staff.words),
    }
}

/// The form again with what was typed and why it was refused.
fn refused_form(staff: &Staff, fields: &Fields, message: String) -> Response {
    let mut page = NewOrderPage::new(staff, Some(fields));
    // Whom it was for, as the hidden fields said (their names are shown from the register
    // only on the form's first showing).
    page.customer = fields.parsed::<i64>("customer_id").ok().flatten().map(|id| (id, format!("#{id}")));
    page.racket = fields.parsed::<i64>("racket_id").ok().flatten().map(|id| (id, format!("#{id}")));
    let page = page.refused(message);
    (StatusCode::UNPROCESSABLE_ENTITY, Html(page.render().unwrap_or_default())).into_response()
}

/// The order as the form gives it, parsed as the CLI parses its flags.
fn read_order(fields: &Fields) -> Result<(Intake, Details), String> {
    let text = |name: &str| fields.get(name).map(str::to_string).filter(|v| !v.is_empty());
    let intake = Intake {
        customer: fields.parsed::<i64>("customer_id")?.map(CustomerId),
        racket: fields.parsed::<i64>("racket_id")?.map(RacketId),
        racket_tag: None,
        same: fields.filled("same").is_some(),
    };
    let items = fields
        .all("item")
        .into_iter()
        .map(|line| line.trim().parse::<Item>().map_err(|e| format!("--item: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    let details = Details {
        customer: text("customer"),
        racket: text("racket"),
        string: text("string"),
        tension: text("tension"),
        price: fields.parsed("price")?,
        due: fields.parsed("due")?,
        items,
        ..Details::default()
    };
    Ok((intake, details))
}
