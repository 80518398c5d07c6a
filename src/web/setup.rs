//! `/setup`: the shop's first run in the browser (SPEC 25), open only with the one-time code
//! that `serve` logs when it starts (or `receipts setup --link` prints) while the shop has no
//! account; the same questions as the terminal's, the owner signed in at the end. Anything
//! else is answered 404, as a page that does not exist.

use super::form::Fields;
use super::problem::{self, PageError, PageResult};
use super::session::{self, Guest, Posted, Poster};
use super::words::Words;
use super::Shared;
use crate::domain::{default_timezone, Language};
use crate::error::Error;
use crate::ops::setup::{self, FirstRun, Question};
use askama::Template;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect};
use strum::VariantArray;

#[derive(serde::Deserialize)]
pub struct Code {
    #[serde(default)]
    code: String,
}

struct Field {
    name: &'static str,
    label: &'static str,
    value: String,
    required: bool,
    problem: bool,
}

#[derive(Template)]
#[template(path = "setup.html")]
struct SetupPage {
    w: &'static Words,
    title: &'static str,
    csrf: String,
    code: String,
    fields: Vec<Field>,
    problem: Option<String>,
}

/// The page's title and button, in its language.
fn title(language: Language) -> &'static str {
    match language {
        Language::En => "Set up the shop",
        Language::De => "Geschäft einrichten",
        Language::Fr => "Configurer le magasin",
        Language::It => "Configurare il negozio",
    }
}

/// The form, filled with `values` (the defaults at first), the refused field marked.
fn page(
    guest: &Guest,
    counter: &Shared,
    status: StatusCode,
    code: String,
    values: impl Fn(Question) -> String,
    refused: Option<(&'static str, String)>,
) -> PageResult {
    let language = guest.words().language();
    let fields = Question::VARIANTS
        .iter()
        .map(|&q| Field {
            name: q.field(),
            label: q.asked(language),
            value: if q == Question::Password { String::new() } else { values(q) },
            // The currency may be left to the country.
            required: !q.optional() && q != Question::Currency,
            problem: refused.as_ref().is_some_and(|(field, _)| *field == q.field()),
        })
        .collect();
    let (csrf, cookie) =
        session::guest_token(counter, "/setup").map_err(|e| PageError::Failed(e, guest.words()))?;
    let page = SetupPage {
        w: guest.words(),
        title: title(language),
        csrf,
        code,
        fields,
        problem: refused.map(|(_, problem)| problem),
    };
    Ok((cookie, super::rendered(status, &page)).into_response())
}

/// `GET /setup?code=…`: the form, or 404.
pub async fn form(
    State(counter): State<Shared>,
    guest: Guest,
    Query(Code { code }): Query<Code>,
) -> PageResult {
    let given = code.clone();
    let holds = counter.db(move |db| setup::code_holds(db, &given)).await;
    if !holds.map_err(|e| PageError::Failed(e, guest.words()))? {
        return Ok(problem::not_found_page(guest.words()));
    }
    let language = guest.words().language();
    let zone = default_timezone().map(|z| z.name().to_string()).unwrap_or_default();
    page(
        &guest,
        &counter,
        StatusCode::OK,
        code,
        |q| match q {
            Question::Language => language.code().to_string(),
            Question::Timezone => zone.clone(),
            _ => String::new(),
        },
        None,
    )
}

/// `POST /setup`: the shop set up and the owner signed in (303 to the queue); the form
/// again with the refusal (422, the code still good); or 404 without a code that holds.
pub async fn submit(State(counter): State<Shared>, posted: Posted<Guest>) -> PageResult {
    let Posted { by: guest, form } = posted;
    let code = form.get("code").unwrap_or_default().to_string();
    let given = code.clone();
    let holds = counter.db(move |db| setup::code_holds(db, &given)).await;
    if !holds.map_err(|e| PageError::Failed(e, guest.words()))? {
        return Ok(problem::not_found_page(guest.words()));
    }
    let value = |q: Question| form.get(q.field()).unwrap_or_default().to_string();
    let first = match answers(&form) {
        Ok(first) => first,
        Err(refusal) => {
            let field = match &refusal {
                Error::Invalid { field, .. } => *field,
                _ => "",
            };
            let problem = problem::explain(&refusal, guest.words());
            return page(
                &guest,
                &counter,
                StatusCode::UNPROCESSABLE_ENTITY,
                code,
                value,
                Some((field, problem)),
            );
        }
    };
    let key_dir = counter.key_dir.clone();
    let done = counter.db(move |db| setup::set_up_and_sign_in(db, &code, &first, key_dir.as_deref())).await;
    match done.map_err(|e| PageError::Failed(e, guest.words()))? {
        Some(token) => {
            let cookie = session::session_cookie(&counter, token);
            Ok((cookie, Redirect::to("/")).into_response())
        }
        None => Ok(problem::not_found_page(guest.words())),
    }
}

/// The form's answers, checked as the terminal's are; an empty currency is the country's.
fn answers(form: &Fields) -> Result<FirstRun, Error> {
    let text = |q: Question| form.get(q.field()).unwrap_or_default();
    let required = |q: Question| {
        let given = text(q);
        if given.trim().is_empty() {
            Err(Error::Invalid { field: q.field(), problem: "is empty".into() })
        } else {
            Ok(given)
        }
    };
    let country = setup::country(required(Question::Country)?)?;
    let currency = match text(Question::Currency).trim() {
        "" => setup::currency_of(&country)
            .ok_or_else(|| Error::Invalid { field: "currency", problem: "is empty".into() })?,
        given => setup::currency(given)?,
    };
    FirstRun {
        language: setup::language(required(Question::Language)?)?,
        name: setup::name(required(Question::Name)?)?,
        handle: setup::handle(required(Question::Handle)?)?,
        country,
        zone: setup::timezone(required(Question::Timezone)?)?,
        currency,
        address: setup::address(text(Question::Address))?,
        email: setup::email(text(Question::Email))?,
        vat_number: setup::vat_number(text(Question::VatNumber))?,
        tax_number: setup::tax_number(text(Question::TaxNumber))?,
        iban: setup::iban(text(Question::Iban))?,
        owner: setup::owner(required(Question::Owner)?)?,
        password: setup::password(text(Question::Password))?,
    }
    .check()
}
