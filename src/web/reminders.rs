//! `/reminders` (the owner's): the invoices whose next reminder is due, as `receipts remind
//! --due --dry-run` lists them, each with **Remind**, which issues and sends it as `receipts
//! remind ORDER` does; for a customer without e-mail the reminder's PDF comes back to print.

use super::pages::Id;
use super::problem::PageResult;
use super::session::{Nav, Owner, Posted};
use super::words::Words;
use super::Shared;
use crate::domain::OrderId;
use crate::ops::reminders::{self, Delivery, Step, Ways};
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect};

/// A reminder that is due.
struct Due {
    order: i64,
    invoice: String,
    customer: String,
    level: i32,
    amount: String,
    /// The customer's address, or None: by post.
    to: Option<String>,
}

#[derive(Template)]
#[template(path = "reminders.html")]
struct RemindersPage {
    w: &'static Words,
    nav: Nav,
    due: Vec<Due>,
    bank: String,
}

/// `GET /reminders`: what is due for the session's stringer, and up to when bank files
/// were imported.
pub async fn list(State(counter): State<Shared>, Owner(owner): Owner) -> PageResult {
    let tenant = owner.session.tenant.clone();
    let (due, known) = owner
        .db(&counter, move |db| {
            let mut due = Vec::new();
            let run =
                reminders::remind_due(db, Ways::default(), true, std::slice::from_ref(&tenant), |step| {
                    if let Step::Done(planned, _) | Step::ToPrint(planned) = step {
                        let (open, fee) = planned.asked;
                        due.push(Due {
                            order: planned.order.0,
                            invoice: planned.invoice.to_string(),
                            customer: planned.customer.clone().unwrap_or_default(),
                            level: planned.level.get(),
                            amount: format!("{} {}", crate::domain::Price(open.0 + fee.0), planned.currency),
                            to: planned.to.clone(),
                        });
                    }
                })?;
            Ok((due, run.bank_known_until.into_iter().next().and_then(|(_, known)| known)))
        })
        .await?;
    let bank = match known {
        Some(day) => (owner.words.bank_known)(&day.to_string()),
        None => owner.words.no_bank_file.to_string(),
    };
    let page = RemindersPage { w: owner.words, nav: owner.nav(), due, bank };
    Ok(super::rendered(StatusCode::OK, &page))
}

/// `POST /reminders/{id}`: the order's next reminder issued and e-mailed (for a customer
/// without e-mail: issued, and its PDF answered to print), then back to the list.
pub async fn remind(State(counter): State<Shared>, Id(id): Id, posted: Posted<Owner>) -> PageResult {
    let Owner(owner) = posted.by;
    let tenant = owner.session.tenant.clone();
    let server = counter.smtp.clone();
    let done = owner
        .db(&counter, move |db| {
            let ways = Ways { server: server.as_ref(), out_dir: None, hand_over: true };
            reminders::remind(db, ways, &tenant, OrderId(id), false).map(|done| (done, tenant))
        })
        .await?;
    match done {
        (reminders::Reminded { delivery: Delivery::Handed(bytes), invoice, reminder, .. }, tenant) => {
            let name = reminders::file_name(&tenant, invoice, reminder.level);
            Ok(super::pages::pdf_response(bytes, &name))
        }
        _ => Ok(Redirect::to("/reminders").into_response()),
    }
}
