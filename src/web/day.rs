//! `/takings` and `/strings`: the evening count of the till and what is left on the reels,
//! as `receipts takings` and `receipts strings list` give them.

use super::session::{Nav, Visit};
use super::words::Words;
use super::Shared;
use crate::db::takings::Days;
use crate::db::{stock, takings};
use crate::domain::{local_date, now_utc, parse_day, Price};
use crate::error::Error;
use askama::Template;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;

/// A line of the till: method (or the total), currency, VAT rate, payments, amount, VAT.
struct Till {
    method: String,
    currency: String,
    rate: String,
    payments: u64,
    amount: String,
    vat: String,
    total: bool,
}

#[derive(Template)]
#[template(path = "takings.html")]
struct TakingsPage {
    w: &'static Words,
    nav: Nav,
    day: String,
    lines: Vec<Till>,
}

#[derive(Deserialize)]
pub struct Day {
    date: Option<String>,
}

/// `GET /takings[?date=YYYY-MM-DD]`: the day's payments per method and currency, today by
/// default in the stringer's calendar.
pub async fn takings(State(counter): State<Shared>, visit: Visit, Query(day): Query<Day>) -> Response {
    let counted = visit.read(&counter, move |conn, session| {
        let tenant = &session.tenant;
        let date = match day.date.as_deref().filter(|d| !d.is_empty()).map(parse_day).transpose() {
            Ok(date) => date.unwrap_or_else(|| local_date(now_utc(), tenant.zone())),
            Err(problem) => return Err(Error::Invalid { field: "date", problem }),
        };
        let counted = takings::count(conn, Some(tenant), Days::On(date))?.pop();
        Ok((date, counted.map(|counted| counted.takings).unwrap_or_default()))
    });
    let (staff, (date, takings::Takings { sums, totals })) = match counted.await {
        Ok(counted) => counted,
        Err(response) => return response,
    };
    let w = staff.words;
    let mut lines: Vec<Till> = sums
        .into_iter()
        .map(|((currency, method, rate), sum)| Till {
            method: method_word(w, &method),
            currency,
            rate: rate.map(|r| r.to_string()).unwrap_or_default(),
            payments: sum.payments,
            amount: Price(sum.amount).to_string(),
            vat: Price(sum.vat).to_string(),
            total: false,
        })
        .collect();
    lines.extend(totals.into_iter().map(|(currency, sum)| Till {
        method: w.total.to_string(),
        currency,
        rate: String::new(),
        payments: sum.payments,
        amount: Price(sum.amount).to_string(),
        vat: Price(sum.vat).to_string(),
        total: true,
    }));
    let page = TakingsPage { w, nav: staff.nav(), day: date.to_string(), lines };
    super::rendered(StatusCode::OK, &page)
}

/// A method's word in the page's language (`unrecorded` as it is; a refund after its label).
fn method_word(w: &'static Words, method: &str) -> String {
    // Money paid back at the counter: "cash refund" is its own line.
    if let Some(paid_by) = method.strip_suffix(" refund") {
        return format!("{}: {}", w.refund, method_word(w, paid_by));
    }
    method.parse().map_or_else(|_| method.to_string(), |m| super::pages::method_word(w, m).to_string())
}

/// A string in stock: name, metres and rackets left, low or not.
struct Reel {
    name: String,
    left: String,
    rackets: i32,
    low: bool,
}

#[derive(Template)]
#[template(path = "strings.html")]
struct StringsPage {
    w: &'static Words,
    nav: Nav,
    reels: Vec<Reel>,
}

/// `GET /strings`: each stocked string, what is left, the low ones marked.
pub async fn strings(State(counter): State<Shared>, visit: Visit) -> Response {
    let (staff, stocked) =
        match visit.read(&counter, |conn, session| stock::list(conn, &session.tenant)).await {
            Ok(found) => found,
            Err(response) => return response,
        };
    let page = StringsPage {
        w: staff.words,
        nav: staff.nav(),
        reels: stocked
            .iter()
            .map(|s| Reel {
                name: s.name.clone(),
                left: s.left.to_string(),
                rackets: s.rackets_left(),
                low: s.is_low(),
            })
            .collect(),
    };
    super::rendered(StatusCode::OK, &page)
}
