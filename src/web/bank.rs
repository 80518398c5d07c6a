//! `/payments/import` (the owner's): a bank file uploaded, read and applied as `receipts
//! payments import FILE` does (the library's `payments::import`), its report shown.

use super::pages::{failure, ProblemPage};
use super::session::{Nav, Staff};
use super::words::Words;
use super::Shared;
use crate::db::payments;
use crate::error::Error;
use askama::Template;
use axum::extract::{Multipart, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

/// A line of the report: one credit that carries a reference of ours.
struct Credit {
    receipt: String,
    order: Option<i64>,
    amount: String,
    booked_on: String,
    reference: String,
    reason: String,
    attention: bool,
}

#[derive(Template)]
#[template(path = "payments.html")]
struct PaymentsPage {
    w: &'static Words,
    nav: Nav,
    summary: Option<String>,
    credits: Vec<Credit>,
}

fn owner_only(staff: &Staff) -> Option<Response> {
    (!staff.is_owner()).then(|| {
        let page = ProblemPage { w: staff.words, message: staff.words.owner_only.to_string() };
        super::rendered(StatusCode::FORBIDDEN, &page)
    })
}

fn page(staff: &Staff, summary: Option<String>, credits: Vec<Credit>) -> PaymentsPage {
    PaymentsPage { w: staff.words, nav: staff.nav(), summary, credits }
}

/// `GET /payments/import`: the upload form.
pub async fn form(staff: Staff) -> Response {
    if let Some(refused) = owner_only(&staff) {
        return refused;
    }
    super::rendered(StatusCode::OK, &page(&staff, None, Vec::new()))
}

/// `POST /payments/import` (multipart: `csrf`, `file`, `dry_run`): the file applied (or with
/// `dry_run` only judged) for the session's stringer; the report as the CLI gives it.
pub async fn import(State(counter): State<Shared>, staff: Staff, mut multipart: Multipart) -> Response {
    if let Some(refused) = owner_only(&staff) {
        return refused;
    }
    let (mut csrf, mut file, mut dry_run) = (None, None, false);
    loop {
        match multipart.next_field().await {
            Ok(Some(field)) => {
                let name = field.name().unwrap_or_default().to_string();
                let file_name = field.file_name().map(str::to_string);
                let Ok(bytes) = field.bytes().await else {
                    return failure(Error::InputFile("the upload was cut off".into()), staff.words);
                };
                match name.as_str() {
                    "csrf" => csrf = Some(String::from_utf8_lossy(&bytes).into_owned()),
                    "dry_run" => dry_run = !bytes.is_empty(),
                    "file" => file = Some((file_name.unwrap_or_else(|| "upload".into()), bytes)),
                    _ => {}
                }
            }
            Ok(None) => break,
            Err(e) => return (e.status(), e.body_text()).into_response(),
        }
    }
    if let Some(refused) = staff.refuses_csrf(csrf.as_deref()) {
        return refused;
    }
    let Some((name, bytes)) = file.filter(|(_, bytes)| !bytes.is_empty()) else {
        return failure(Error::BadInput("no bank file was chosen".into()), staff.words);
    };
    let tenant = staff.session.tenant.clone();
    let file_name = name.clone();
    let imported = counter
        .db(move |db| payments::import(db, std::io::Cursor::new(bytes), &file_name, Some(&tenant), dry_run))
        .await;
    let (message, report) = match imported {
        Ok(imported) => imported,
        Err(e) => return failure(e, staff.words),
    };
    let credits = report
        .lines
        .iter()
        .map(|line| Credit {
            receipt: line.receipt.map(|r| r.to_string()).unwrap_or_default(),
            order: line.order,
            amount: format!("{} {}", line.amount, line.currency),
            booked_on: line.booked_on.to_string(),
            reference: line.reference.clone(),
            reason: line.reason(),
            attention: line.needs_attention(),
        })
        .collect();
    let summary = report.summary(&name, &message, dry_run);
    super::rendered(StatusCode::OK, &page(&staff, Some(summary), credits))
}
