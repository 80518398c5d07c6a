//! `/takings` and `/strings`: the evening count of the till and what is left on the reels,
//! as `receipts takings` and `receipts strings list` give them.

use super::problem::PageResult;
use super::session::{Nav, Visit};
use super::words::Words;
use super::Shared;
use crate::db::takings::Days;
use crate::domain::{local_date, now_utc, parse_day, MoneyLine, Price};
use crate::error::Error;
use crate::ops::views;
use askama::Template;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use serde::Deserialize;

/// A line of the till: method (or the total), currency, VAT rate, payments, amount, VAT.
struct Till {
    method: String,
    currency: String,
    rate: String,
    payments: i64,
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
pub async fn takings(State(counter): State<Shared>, visit: Visit, Query(day): Query<Day>) -> PageResult {
    let counted = visit.read(&counter, move |conn, session| {
        let tenant = &session.tenant;
        let date = match day.date.as_deref().filter(|d| !d.is_empty()).map(parse_day).transpose() {
            Ok(date) => date.unwrap_or_else(|| local_date(now_utc(), tenant.zone())),
            Err(problem) => return Err(Error::Invalid { field: "date", problem }),
        };
        let counted = views::takings(conn, Some(tenant), Days::On(date))?.pop();
        Ok((date, counted.map(|counted| counted.money).unwrap_or_default()))
    });
    let (staff, (date, money)) = counted.await?;
    let w = staff.words;
    let mut lines: Vec<Till> = money
        .in_order()
        .into_iter()
        .map(|(currency, line, rate, sum)| Till {
            method: line_word(w, line),
            currency: currency.to_string(),
            rate: rate.map(|r| r.to_string()).unwrap_or_default(),
            payments: sum.count,
            amount: Price(sum.amount).to_string(),
            vat: Price(sum.vat).to_string(),
            total: false,
        })
        .collect();
    lines.extend(money.totals().into_iter().map(|(currency, sum)| Till {
        method: w.total.to_string(),
        currency: currency.to_string(),
        rate: String::new(),
        payments: sum.count,
        amount: Price(sum.amount).to_string(),
        vat: Price(sum.vat).to_string(),
        total: true,
    }));
    let page = TakingsPage { w, nav: staff.nav(), day: date.to_string(), lines };
    Ok(super::rendered(StatusCode::OK, &page))
}

/// A line's word in the page's language (`unrecorded` as it is; a refund after its label).
fn line_word(w: &'static Words, line: MoneyLine) -> String {
    match line {
        MoneyLine::Paid(Some(method)) => super::pages::method_word(w, method).to_string(),
        MoneyLine::Paid(None) => line.to_string(),
        MoneyLine::Refunded(method) => format!("{}: {}", w.refund, super::pages::method_word(w, method)),
    }
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
pub async fn strings(State(counter): State<Shared>, visit: Visit) -> PageResult {
    let (staff, stocked) =
        visit.read(&counter, |conn, session| views::strings(conn, &session.tenant)).await?;
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
    Ok(super::rendered(StatusCode::OK, &page))
}
