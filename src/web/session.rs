//! Logging in and out, the session every page needs, and the CSRF token every POST carries.

use super::form::Fields;
use super::words::{language_of, Words};
use super::{Counter, Shared};
use crate::db::accounts::{self, Login, Role, Session};
use crate::db::DbConn;
use crate::error::Error;
use askama::Template;
use axum::extract::{FromRequestParts, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{Html, IntoResponse, Redirect, Response};
use std::sync::Arc;

const COOKIE: &str = "receipts_session";

/// The session cookie's value, from the request's Cookie headers.
fn cookie_token(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, token)| token.to_string())
        .filter(|token| token.len() == 64 && token.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// A logged-in user's request: its session, and the words of its language.
pub struct Staff {
    pub session: Session,
    pub words: &'static Words,
}

/// What every page's navigation needs: whose data it is, the session's CSRF token (for the
/// page's forms too), and whether the owner's pages are offered.
pub struct Nav {
    pub csrf: String,
    pub stringer: String,
    pub owner: bool,
}

impl Staff {
    /// Whether the account is the owner's: it also voids and imports bank files.
    pub fn is_owner(&self) -> bool {
        self.session.role == Role::Owner
    }

    pub fn nav(&self) -> Nav {
        Nav {
            csrf: self.session.csrf.clone(),
            stringer: self.session.tenant.handle().to_string(),
            owner: self.is_owner(),
        }
    }

    /// The refusal (403) of a POST whose CSRF token is missing or another session's.
    pub fn refuses_csrf(&self, token: Option<&str>) -> Option<Response> {
        let expected = self.session.csrf.as_bytes();
        let given = token.unwrap_or_default().as_bytes();
        // Compared in constant time: the comparison does not say how much of it was right.
        let same = expected.len() == given.len()
            && expected.iter().zip(given).fold(0u8, |diff, (a, b)| diff | (a ^ b)) == 0;
        if same {
            None
        } else {
            Some((StatusCode::FORBIDDEN, Html("<!doctype html><title>403</title><p>Forbidden: this form is stale or not ours. Reload the page and try again.</p>")).into_response())
        }
    }
}

/// A request with its session cookie, not yet looked up. A page reads the session in the
/// transaction that reads its own data: one transaction per page view, not two.
pub struct Visit {
    token: Option<String>,
    headers: HeaderMap,
}

impl<S: Send + Sync> FromRequestParts<S> for Visit {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Visit, Self::Rejection> {
        Ok(Visit { token: cookie_token(&parts.headers), headers: parts.headers.clone() })
    }
}

impl Visit {
    /// Looks the session up and, when it is live, runs `work` for it in the same read
    /// transaction. The answer is the logged-in staff with what `work` found, or the
    /// response to send instead: to the login when there is no live session, the failure
    /// page (in the session's language) when the work failed.
    pub async fn read<T: Send + 'static>(
        self,
        counter: &Shared,
        work: impl FnOnce(&mut DbConn, &Session) -> Result<T, Error> + Send + 'static,
    ) -> Result<(Staff, T), Response> {
        let to_login = || Redirect::to("/login").into_response();
        let Some(token) = self.token else { return Err(to_login()) };
        let idle = counter.session_idle;
        let found = counter
            .db(move |db| {
                let mut live = None;
                let outcome = db.read(|conn| {
                    let Some(session) = accounts::session(conn, &token, idle)? else { return Ok(None) };
                    let outcome = work(conn, &session);
                    live = Some(session);
                    outcome.map(Some)
                });
                // Its last use, written in a transaction of its own when due: a page view is
                // a read (a write in a read transaction is refused under contention on
                // SQLite).
                if live.as_ref().is_some_and(|s| s.touch_due) {
                    db.write(|conn| accounts::touch(conn, &token))?;
                }
                Ok((live, outcome))
            })
            .await;
        let (live, outcome) = found.map_err(|e| super::pages::failure(e, Words::of(Default::default())))?;
        let Some(session) = live else {
            return Err(outcome
                .err()
                .map_or_else(to_login, |e| super::pages::failure(e, Words::of(Default::default()))));
        };
        let words = Words::of(language_of(session.language, &self.headers, session.stringer_language));
        match outcome {
            Ok(Some(found)) => Ok((Staff { session, words }, found)),
            Ok(None) => Err(to_login()),
            Err(e) => Err(super::pages::failure(e, words)),
        }
    }
}

/// The staff of a request that reads nothing else first (an action, a document).
impl FromRequestParts<Shared> for Staff {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, counter: &Shared) -> Result<Staff, Response> {
        let Ok(visit) = Visit::from_request_parts(parts, counter).await;
        visit.read(counter, |_, _| Ok(())).await.map(|(staff, ())| staff)
    }
}

#[derive(Template)]
#[template(path = "login.html")]
struct LoginPage {
    w: &'static Words,
    username: String,
    problem: Option<&'static str>,
}

/// Why a login was not let in.
#[derive(Clone, Copy)]
enum Refusal {
    Refused,
    Throttled,
}

fn login_page(
    headers: &HeaderMap,
    status: StatusCode,
    username: String,
    refusal: Option<Refusal>,
) -> Response {
    let w = Words::of(language_of(None, headers, None));
    let problem = refusal.map(|refusal| match refusal {
        Refusal::Refused => w.login_refused,
        Refusal::Throttled => w.login_throttled,
    });
    super::rendered(status, &LoginPage { w, username, problem })
}

pub async fn login_form(headers: HeaderMap) -> Response {
    login_page(&headers, StatusCode::OK, String::new(), None)
}

/// `POST /login`: 303 to the queue with a new session cookie, 401 with the form again, or
/// 429 while the username is throttled.
pub async fn login(State(counter): State<Shared>, headers: HeaderMap, form: Fields) -> Response {
    let username = form.get("username").unwrap_or_default().to_string();
    let password = form.get("password").unwrap_or_default().to_string();
    let name = username.clone();
    let outcome = counter.db(move |db| db.write(|conn| accounts::login(conn, &name, &password))).await;
    match outcome {
        Ok(Login::Welcome { token }) => {
            let mut response = Redirect::to("/").into_response();
            set_cookie(&counter, &mut response, &token, false);
            response
        }
        Ok(Login::Refused) => {
            login_page(&headers, StatusCode::UNAUTHORIZED, username, Some(Refusal::Refused))
        }
        Ok(Login::Throttled) => {
            login_page(&headers, StatusCode::TOO_MANY_REQUESTS, username, Some(Refusal::Throttled))
        }
        Err(e) => super::pages::failure(e, Words::of(Default::default())),
    }
}

/// `POST /logout`: the session ends here and in the database.
pub async fn logout(
    State(counter): State<Shared>,
    staff: Staff,
    headers: HeaderMap,
    form: Fields,
) -> Response {
    if let Some(refused) = staff.refuses_csrf(form.get("csrf")) {
        return refused;
    }
    if let Some(token) = cookie_token(&headers) {
        if let Err(e) = counter.db(move |db| db.write(|conn| accounts::end(conn, &token))).await {
            return super::pages::failure(e, staff.words);
        }
    }
    let mut response = Redirect::to("/login").into_response();
    set_cookie(&counter, &mut response, "", true);
    response
}

fn set_cookie(counter: &Arc<Counter>, response: &mut Response, token: &str, clear: bool) {
    let secure = if counter.secure { "; Secure" } else { "" };
    let expiry = if clear { "; Max-Age=0" } else { "" };
    let cookie = format!("{COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict{secure}{expiry}");
    if let Ok(value) = HeaderValue::from_str(&cookie) {
        response.headers_mut().append(header::SET_COOKIE, value);
    }
}
