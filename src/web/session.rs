//! Logging in and out, the session every page needs, and the CSRF token every POST carries.

use super::form::Fields;
use super::problem::{self, PageError, PageResult};
use super::words::{language_of, Words};
use super::{Counter, Shared};
use crate::db::accounts::{Login, Role, Session};
use crate::db::DbConn;
use crate::error::Error;
use crate::ops::sessions;
use askama::Template;
use axum::extract::{FromRequest, FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum_extra::extract::cookie::{Cookie, CookieJar, SameSite};
use subtle::ConstantTimeEq;

const COOKIE: &str = "receipts_session";
/// The login form's own token: no session exists yet to hold one, so the browser keeps it
/// (double submit), and a login posted from another site carries none.
const LOGIN_COOKIE: &str = "receipts_login";
/// The setup form's token, kept the same way.
const SETUP_COOKIE: &str = "receipts_setup";

/// A cookie's value of the shape our tokens have (64 hex digits).
fn cookie_token(headers: &HeaderMap, name: &str) -> Option<String> {
    CookieJar::from_headers(headers)
        .get(name)
        .map(|cookie| cookie.value().to_string())
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

    /// Database work for this user's page on a pooled connection; a failure is answered in
    /// their language.
    pub async fn db<T: Send + 'static>(
        &self,
        counter: &Shared,
        work: impl FnOnce(&mut crate::db::Db) -> Result<T, Error> + Send + 'static,
    ) -> Result<T, PageError> {
        counter.db(work).await.map_err(|e| PageError::Failed(e, self.words))
    }
}

/// The owner's request: what only the owner may do (void, bank files). Anyone else is
/// answered 403 before the handler runs.
pub struct Owner(pub Staff);

impl FromRequestParts<Shared> for Owner {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, counter: &Shared) -> Result<Owner, Response> {
        let staff = Staff::from_request_parts(parts, counter).await?;
        if staff.is_owner() {
            Ok(Owner(staff))
        } else {
            Err(problem::owner_only(staff.words))
        }
    }
}

/// Whoever may post a form, and whether the CSRF token a form carried is theirs.
pub trait Poster {
    fn admits(&self, given: &str) -> bool;
    fn words(&self) -> &'static Words;
}

/// Compared in constant time: the comparison does not say how much of it was right.
fn same_token(expected: &str, given: &str) -> bool {
    expected.as_bytes().ct_eq(given.as_bytes()).into()
}

impl Poster for Staff {
    fn admits(&self, given: &str) -> bool {
        same_token(&self.session.csrf, given)
    }
    fn words(&self) -> &'static Words {
        self.words
    }
}

impl Poster for Owner {
    fn admits(&self, given: &str) -> bool {
        self.0.admits(given)
    }
    fn words(&self) -> &'static Words {
        self.0.words
    }
}

/// Someone not logged in, at the login form. A browser that opened the form holds its
/// token in the login cookie and must post it back; a login posted from another site is
/// refused by what the browser says of it (Sec-Fetch-Site, Origin). A client that is no
/// browser (a script, SPEC 20's `username` and `password` alone) logs in without a token.
pub struct Guest {
    token: Option<String>,
    cross_site: bool,
    words: &'static Words,
}

impl<S: Send + Sync> FromRequestParts<S> for Guest {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Guest, Response> {
        let form = if parts.uri.path() == "/setup" { SETUP_COOKIE } else { LOGIN_COOKIE };
        Ok(Guest {
            token: cookie_token(&parts.headers, form),
            cross_site: cross_site(&parts.headers),
            words: Words::of(language_of(None, &parts.headers, None)),
        })
    }
}

/// Whether the browser says the request comes from another site.
fn cross_site(headers: &HeaderMap) -> bool {
    let header = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
    let fetched_from_elsewhere =
        header("sec-fetch-site").is_some_and(|site| !matches!(site, "same-origin" | "none"));
    let other_origin = match (header("origin"), header("host")) {
        (Some(origin), Some(host)) => !origin.ends_with(&format!("://{host}")),
        (Some(_), None) => true,
        (None, _) => false,
    };
    fetched_from_elsewhere || other_origin
}

impl Poster for Guest {
    fn admits(&self, given: &str) -> bool {
        match &self.token {
            Some(token) => same_token(token, given),
            None => !self.cross_site,
        }
    }
    fn words(&self) -> &'static Words {
        self.words
    }
}

/// A form posted by `W`, its CSRF token checked: a handler that takes it cannot forget the
/// check. A token missing, or another session's, is answered 403 and nothing is done.
pub struct Posted<W> {
    pub by: W,
    pub form: Fields,
}

impl<W> FromRequest<Shared> for Posted<W>
where
    W: FromRequestParts<Shared, Rejection = Response> + Poster + Send,
{
    type Rejection = Response;

    async fn from_request(request: Request, counter: &Shared) -> Result<Posted<W>, Response> {
        let (mut parts, body) = request.into_parts();
        let by = W::from_request_parts(&mut parts, counter).await?;
        let form = Fields::read(Request::from_parts(parts, body), counter).await;
        let form = form.map_err(|e| problem::failure(e, by.words()))?;
        if !by.admits(form.get("csrf").unwrap_or_default()) {
            return Err(problem::stale_form(by.words()));
        }
        Ok(Posted { by, form })
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
        Ok(Visit { token: cookie_token(&parts.headers, COOKIE), headers: parts.headers.clone() })
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
        let found = counter.db(move |db| sessions::visit(db, &token, idle, work)).await;
        let (live, outcome) = found.map_err(|e| problem::failure(e, Words::of(Default::default())))?;
        let Some(session) = live else {
            return Err(outcome
                .err()
                .map_or_else(to_login, |e| problem::failure(e, Words::of(Default::default()))));
        };
        let words = Words::of(language_of(session.language, &self.headers, session.stringer_language));
        match outcome {
            Ok(Some(found)) => Ok((Staff { session, words }, found)),
            Ok(None) => Err(to_login()),
            Err(e) => Err(problem::failure(e, words)),
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
    csrf: String,
    username: String,
    problem: Option<&'static str>,
    /// While the shop has no account: how to reach its first run.
    not_set_up: Option<&'static str>,
}

/// Why a login was not let in.
#[derive(Clone, Copy)]
enum Refusal {
    Refused,
    Throttled,
}

/// The login form, with a fresh token in the form and in its cookie.
fn login_page(
    counter: &Counter,
    w: &'static Words,
    status: StatusCode,
    username: String,
    refusal: Option<Refusal>,
    not_set_up: Option<&'static str>,
) -> Result<Response, PageError> {
    let problem = refusal.map(|refusal| match refusal {
        Refusal::Refused => w.login_refused,
        Refusal::Throttled => w.login_throttled,
    });
    let (csrf, cookie) = guest_token(counter, "/login").map_err(|e| PageError::Failed(e, w))?;
    let page = super::rendered(status, &LoginPage { w, csrf, username, problem, not_set_up });
    Ok((cookie, page).into_response())
}

/// A fresh token for a guest's form at `path` (the login, the setup), and its cookie.
pub fn guest_token(counter: &Counter, path: &'static str) -> Result<(String, CookieJar), Error> {
    let csrf = crate::domain::random_token()?;
    let name = if path == "/setup" { SETUP_COOKIE } else { LOGIN_COOKIE };
    Ok((csrf.clone(), CookieJar::new().add(cookie(counter, name, path, csrf))))
}

/// The cookie of a new session.
pub fn session_cookie(counter: &Counter, token: String) -> CookieJar {
    CookieJar::new().add(cookie(counter, COOKIE, "/", token))
}

pub async fn login_form(State(counter): State<Shared>, guest: Guest) -> PageResult {
    let set_up =
        counter.db(crate::ops::setup::is_set_up).await.map_err(|e| PageError::Failed(e, guest.words))?;
    let not_set_up = (!set_up).then(|| not_set_up(guest.words.language()));
    login_page(&counter, guest.words, StatusCode::OK, String::new(), None, not_set_up)
}

/// What the login page says while the shop has no account.
fn not_set_up(language: crate::domain::Language) -> &'static str {
    use crate::domain::Language;
    match language {
        Language::En => "This shop is not set up yet. Its setup address is in the service's log (journalctl -u receipts) or printed by `sudo -u receipts receipts setup --link`; or set it up at the terminal with `sudo -u receipts receipts setup`.",
        Language::De => "Dieses Geschäft ist noch nicht eingerichtet. Die Adresse der Einrichtung steht im Protokoll des Dienstes (journalctl -u receipts) oder wird von `sudo -u receipts receipts setup --link` ausgegeben; oder richten Sie es im Terminal mit `sudo -u receipts receipts setup` ein.",
        Language::Fr => "Ce magasin n'est pas encore configuré. L'adresse de configuration est dans le journal du service (journalctl -u receipts) ou donnée par `sudo -u receipts receipts setup --link` ; ou configurez-le au terminal avec `sudo -u receipts receipts setup`.",
        Language::It => "Questo negozio non è ancora configurato. L'indirizzo di configurazione è nel registro del servizio (journalctl -u receipts) o stampato da `sudo -u receipts receipts setup --link`; oppure configuratelo al terminale con `sudo -u receipts receipts setup`.",
    }
}

/// `POST /login`: 303 to the queue with a new session cookie, 401 with the form again, or
/// 429 while the username is throttled.
pub async fn login(State(counter): State<Shared>, posted: Posted<Guest>) -> PageResult {
    let Posted { by: guest, form } = posted;
    let username = form.get("username").unwrap_or_default().to_string();
    let password = form.get("password").unwrap_or_default().to_string();
    let name = username.clone();
    let outcome = counter.db(move |db| sessions::login(db, &name, &password)).await;
    let w = guest.words;
    match outcome.map_err(|e| PageError::Failed(e, w))? {
        Login::Welcome { token } => {
            let session = cookie(&counter, COOKIE, "/", token);
            Ok((CookieJar::new().add(session), Redirect::to("/")).into_response())
        }
        Login::Refused => {
            login_page(&counter, w, StatusCode::UNAUTHORIZED, username, Some(Refusal::Refused), None)
        }
        Login::Throttled => {
            login_page(&counter, w, StatusCode::TOO_MANY_REQUESTS, username, Some(Refusal::Throttled), None)
        }
    }
}

/// `POST /logout`: the session ends here and in the database.
pub async fn logout(State(counter): State<Shared>, headers: HeaderMap, posted: Posted<Staff>) -> PageResult {
    if let Some(token) = cookie_token(&headers, COOKIE) {
        let ended = counter.db(move |db| sessions::end(db, &token)).await;
        ended.map_err(|e| PageError::Failed(e, posted.by.words))?;
    }
    let ended = Cookie::build(COOKIE).path("/");
    Ok((CookieJar::new().remove(ended), Redirect::to("/login")).into_response())
}

/// A cookie of ours: HttpOnly, SameSite=Strict, and Secure when the counter is reached
/// over TLS.
fn cookie(counter: &Counter, name: &'static str, path: &'static str, value: String) -> Cookie<'static> {
    Cookie::build((name, value))
        .path(path)
        .http_only(true)
        .same_site(SameSite::Strict)
        .secure(counter.secure)
        .build()
}
