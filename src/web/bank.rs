//! `/payments/import` (the owner's): a bank file uploaded, read and applied as `receipts
//! payments import FILE` does (the library's `payments::import`), its report shown.

use super::problem::{PageError, PageResult};
use super::session::{Nav, Owner, Posted, Staff};
use super::words::Words;
use super::Shared;
use crate::error::Error;
use crate::ops;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;

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

fn page(staff: &Staff, summary: Option<String>, credits: Vec<Credit>) -> PaymentsPage {
    PaymentsPage { w: staff.words, nav: staff.nav(), summary, credits }
}

/// `GET /payments/import`: the upload form.
pub async fn form(Owner(owner): Owner) -> Response {
    super::rendered(StatusCode::OK, &page(&owner, None, Vec::new()))
}

/// `POST /payments/import` (multipart: `csrf`, `file`, `dry_run`): the file applied (or with
/// `dry_run` only judged) for the session's stringer; the report as the CLI gives it.
pub async fn import(State(counter): State<Shared>, posted: Posted<Owner>) -> PageResult {
    let Posted { by: Owner(owner), form } = posted;
    let dry_run = form.filled("dry_run").is_some();
    let Some(upload) = form.file("file") else {
        return Err(PageError::Failed(
            Error::Invalid { field: "file", problem: "no bank file was chosen".into() },
            owner.words,
        ));
    };
    let (name, bytes) = (upload.name.clone(), upload.bytes.clone());
    let tenant = owner.session.tenant.clone();
    let file_name = name.clone();
    let (message, report) = owner
        .db(&counter, move |db| {
            ops::payments::import(db, std::io::Cursor::new(bytes), &file_name, Some(&tenant), dry_run)
        })
        .await?;
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
    Ok(super::rendered(StatusCode::OK, &page(&owner, Some(summary), credits)))
}
