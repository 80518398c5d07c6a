//! The counter in the browser (SPEC 20): `receipts serve`. An axum server whose pages call
//! the same library functions as the commands; the database work runs on tokio's blocking
//! threads with pooled connections, never on the async ones. Sessions live in the
//! database, so several processes can serve one PostgreSQL.

mod bank;
mod customers;
mod day;
mod form;
mod intake;
mod pages;
mod problem;
mod reminders;
mod session;
mod setup;
mod words;

use crate::db::{Access, DatabaseUrl, Db};
use crate::error::Error;
use crate::mail::SmtpUrl;
use askama::Template;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::Html;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use chrono::TimeDelta;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::set_header::SetResponseHeaderLayer;

/// The largest request body taken (a bank file is the largest thing uploaded).
const BODY_LIMIT: usize = 10 * 1024 * 1024;

/// How `receipts serve` was asked to run.
pub struct Config {
    pub url: DatabaseUrl,
    pub lock_timeout: Duration,
    pub listen: SocketAddr,
    /// Where the counter answers for its users (labels' QR codes name its pages).
    pub base_url: Option<String>,
    pub tls: Option<(PathBuf, PathBuf)>,
    pub session_idle: TimeDelta,
    /// The mail server of documents and ready notices, if one was given.
    pub smtp: Option<SmtpUrl>,
    /// Where the stringers' signing keys are (`HANDLE.ed25519`), if not in the default place.
    pub key_dir: Option<PathBuf>,
    /// The first run's one-time code, to log with the address, while the shop has no account.
    pub setup_code: Option<String>,
}

/// What every request shares.
pub struct Counter {
    pool: r2d2::Pool<Connections>,
    session_idle: TimeDelta,
    /// Cookies are marked Secure when the counter speaks TLS itself or sits behind a TLS
    /// proxy (an https base URL).
    secure: bool,
    base_url: Option<String>,
    smtp: Option<SmtpUrl>,
    key_dir: Option<PathBuf>,
    /// When to look again for a stringer's day begun, to close their yesterday (none yet:
    /// at the first request).
    next_closing: std::sync::Mutex<Option<chrono::NaiveDateTime>>,
    /// What the closings remember; held by the one closing under way.
    closings: Arc<std::sync::Mutex<crate::ops::closures::Closings>>,
}

type Shared = Arc<Counter>;

/// Opens database connections for the pool.
struct Connections {
    url: DatabaseUrl,
    lock_timeout: Duration,
}

impl r2d2::ManageConnection for Connections {
    type Connection = Db;
    type Error = Error;

    fn connect(&self) -> Result<Db, Error> {
        Db::open(&self.url, Access::Write, self.lock_timeout)
    }

    /// Asked at every checkout. A connection that committed within the last second is
    /// taken as it is: a busy counter saves a round trip per page. A server lost in that
    /// second fails the one page that finds out (503), and the connection is replaced.
    fn is_valid(&self, db: &mut Db) -> Result<(), Error> {
        if !db.committed_within(Duration::from_secs(1)) {
            db.ping()?;
        }
        Ok(())
    }

    fn has_broken(&self, db: &mut Db) -> bool {
        db.is_lost()
    }
}

impl Counter {
    /// Runs database work on a blocking thread with a pooled connection.
    async fn db<T: Send + 'static>(
        self: &Arc<Self>,
        work: impl FnOnce(&mut Db) -> Result<T, Error> + Send + 'static,
    ) -> Result<T, Error> {
        let pool = self.pool.clone();
        tokio::task::spawn_blocking(move || {
            let mut db = pool
                .get()
                .map_err(|e| Error::Unreachable { url: "the database".into(), reason: e.to_string() })?;
            work(&mut db)
        })
        .await
        .map_err(|e| Error::Internal { what: "a page's database work", detail: e.to_string() })?
    }
}

/// The routes: every page behind a session but the login and the health check.
fn router(counter: Shared) -> Router {
    Router::new()
        .route("/", get(pages::queue))
        .route("/orders/new", get(intake::form).post(intake::take))
        .route("/orders/{id}", get(pages::order))
        .route("/orders/{id}/strung", post(pages::strung))
        .route("/orders/{id}/pickup", post(pages::pickup))
        .route("/orders/{id}/pay", post(pages::pay))
        .route("/orders/{id}/notify", post(pages::notify))
        .route("/orders/{id}/send", post(pages::send))
        .route("/orders/{id}/void", post(pages::void))
        .route("/orders/{id}/credit", post(pages::credit))
        .route("/credit-notes/{number}", get(pages::credit_note_pdf))
        .route("/orders/{id}/receipt.pdf", get(pages::receipt_pdf))
        .route("/orders/{id}/einvoice", get(pages::einvoice))
        .route("/orders/{id}/label.pdf", get(pages::label_pdf))
        .route("/payments/import", get(bank::form).post(bank::import))
        .route("/reminders", get(reminders::list))
        .route("/reminders/{id}", post(reminders::remind))
        .route("/takings", get(day::takings))
        .route("/strings", get(day::strings))
        .route("/customers", get(customers::list))
        .route("/customers/{id}", get(customers::show).post(customers::save))
        .route("/login", get(session::login_form).post(session::login))
        .route("/setup", get(setup::form).post(setup::submit))
        .route("/logout", post(session::logout))
        .route("/healthz", get(healthz))
        // The counter has no icon; the browsers that ask get nothing, not the 404 page.
        .route("/favicon.ico", get(|| async { StatusCode::NO_CONTENT }))
        .route("/app.css", get(pages::stylesheet))
        .fallback(pages::not_found)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(RequestBodyLimitLayer::new(BODY_LIMIT))
        .layer(middleware::from_fn(log_request))
        .layer(middleware::from_fn_with_state(counter.clone(), close_yesterday))
        .layer(SetResponseHeaderLayer::overriding(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(
                "default-src 'self'; script-src 'self'; object-src 'none'; frame-ancestors 'none'; \
                 base-uri 'none'; form-action 'self'",
            ),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::REFERRER_POLICY,
            HeaderValue::from_static("same-origin"),
        ))
        .with_state(counter)
}

/// 200 when the database answers, 503 when not.
async fn healthz(State(counter): State<Shared>) -> Response {
    match counter.db(Db::ping).await {
        Ok(()) => (StatusCode::OK, "ok\n").into_response(),
        Err(e) => (StatusCode::SERVICE_UNAVAILABLE, format!("{e}\n")).into_response(),
    }
}

/// One line per request on stderr: method, path (never the query string, which may carry
/// what was searched), status, milliseconds. Nothing of bodies or headers: no password,
/// cookie or token.
async fn log_request(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let response = next.run(request).await;
    eprintln!(
        "{method} {path} {} {:.1} ms",
        response.status().as_u16(),
        started.elapsed().as_secs_f64() * 1000.0
    );
    response
}

/// After answering the first request of a day, closes every stringer's yesterday (SPEC 23)
/// on a task of its own, never inside a request; a day begins at midnight in each
/// stringer's zone. A stringer without a key is logged and skipped.
async fn close_yesterday(State(counter): State<Shared>, request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    let now = crate::domain::now_utc();
    let due = {
        let mut next = counter.next_closing.lock().unwrap_or_else(|p| p.into_inner());
        let due = next.is_none_or(|at| now >= at);
        if due {
            // Not again before this closing says when.
            *next = Some(chrono::NaiveDateTime::MAX);
        }
        due
    };
    if due {
        let closing = counter.clone();
        tokio::spawn(async move {
            let (key_dir, closings) = (closing.key_dir.clone(), closing.closings.clone());
            let done = closing
                .db(move |db| {
                    let mut closings = closings.lock().unwrap_or_else(|p| p.into_inner());
                    Ok(crate::ops::closures::close_yesterdays(db, key_dir.as_deref(), &mut closings))
                })
                .await;
            let (logged, next) = done.unwrap_or_else(|e| {
                (vec![format!("closing yesterday: {e}")], now + chrono::Duration::minutes(5))
            });
            *closing.next_closing.lock().unwrap_or_else(|p| p.into_inner()) = Some(next);
            for line in logged {
                eprintln!("{line}");
            }
        });
    }
    response
}

/// Serves until interrupted (SIGINT or SIGTERM), then finishes the requests under way.
pub fn serve(config: Config) -> Result<(), Error> {
    crate::db::keep_stderr();
    let pool = r2d2::Pool::builder()
        .max_size(16)
        .min_idle(Some(1))
        .connection_timeout(Duration::from_secs(10))
        .error_handler(Box::new(r2d2::NopErrorHandler))
        .build(Connections { url: config.url.clone(), lock_timeout: config.lock_timeout })
        .map_err(|e| Error::Unreachable { url: config.url.redacted(), reason: e.to_string() })?;
    let secure = config.tls.is_some() || config.base_url.as_deref().is_some_and(|u| u.starts_with("https:"));
    let counter = Arc::new(Counter {
        pool,
        session_idle: config.session_idle,
        secure,
        base_url: config.base_url.clone(),
        smtp: config.smtp.clone(),
        key_dir: config.key_dir.clone(),
        next_closing: std::sync::Mutex::new(None),
        closings: Arc::default(),
    });
    let app = router(counter);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Internal { what: "starting the server", detail: e.to_string() })?;
    runtime.block_on(async move {
        let handle = axum_server::Handle::new();
        let stopping = handle.clone();
        tokio::spawn(async move {
            shutdown_signal().await;
            stopping.graceful_shutdown(Some(Duration::from_secs(10)));
        });
        let listener = std::net::TcpListener::bind(config.listen)
            .map_err(|e| Error::Usage(format!("--listen {}: cannot listen there: {e}", config.listen)))?;
        let local = listener.local_addr()?;
        let scheme = if config.tls.is_some() { "https" } else { "http" };
        eprintln!("serving the counter on {scheme}://{local}/");
        if let Some(code) = &config.setup_code {
            let address = config.base_url.clone().unwrap_or_else(|| format!("{scheme}://{local}"));
            eprintln!(
                "this shop is not set up yet: open {address}/setup?code={code} (good once), or run \
                 `sudo -u receipts receipts setup` at the terminal"
            );
        }
        let service = app.into_make_service();
        match &config.tls {
            Some((cert, key)) => {
                let _ = rustls::crypto::ring::default_provider().install_default();
                let tls =
                    axum_server::tls_rustls::RustlsConfig::from_pem_file(cert, key).await.map_err(|e| {
                        Error::BadInput(format!(
                            "--tls-cert {} / --tls-key {}: {e}",
                            cert.display(),
                            key.display()
                        ))
                    })?;
                axum_server::from_tcp_rustls(listener, tls)?.handle(handle).serve(service).await?
            }
            None => axum_server::from_tcp(listener)?.handle(handle).serve(service).await?,
        }
        Ok(())
    })
}

async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .expect("a handler for SIGTERM");
    tokio::select! {
        _ = interrupt => {}
        _ = terminate.recv() => {}
    }
}

/// A page with its status, or 500 when its template cannot be rendered: never a blank page
/// answered as if all were well. The reason goes to the server's log, not to the browser.
fn rendered(status: StatusCode, page: &impl Template) -> Response {
    match page.render() {
        Ok(html) => (status, Html(html)).into_response(),
        Err(e) => {
            eprintln!("error: a page could not be rendered: {e}");
            (StatusCode::INTERNAL_SERVER_ERROR, "The page could not be made (see the server's log).")
                .into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value whose text cannot be written, as a template's field.
    struct Unwritable;

    impl std::fmt::Display for Unwritable {
        fn fmt(&self, _: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            Err(std::fmt::Error)
        }
    }

    #[derive(Template)]
    #[template(source = "<p>{{ value }}</p>", ext = "html")]
    struct Page<T: std::fmt::Display> {
        value: T,
    }

    #[test]
    fn a_page_that_cannot_be_rendered_answers_500_not_a_blank_200() {
        assert_eq!(rendered(StatusCode::OK, &Page { value: "fine" }).status(), StatusCode::OK);
        assert_eq!(rendered(StatusCode::NOT_FOUND, &Page { value: "gone" }).status(), StatusCode::NOT_FOUND);
        assert_eq!(
            rendered(StatusCode::OK, &Page { value: Unwritable }).status(),
            StatusCode::INTERNAL_SERVER_ERROR
        );
    }
}
