//! The counter in the browser (SPEC 20) at the HTTP level: `receipts serve` started as a
//! process on a free port, spoken to by an HTTP client that follows no redirects and keeps
//! its own cookie, as a browser would. Accounts, sessions, CSRF, throttling, headers,
//! tenancy, escaping, and the day's actions (strung once, pickup paid, the documents).

use super::*;
use crate::on_both_backends;
use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};

/// A running `receipts serve`, stopped when dropped.
pub(super) struct Server {
    child: Child,
    pub(super) base: String,
    /// What it logged after its first line, read on demand.
    log: std::sync::mpsc::Receiver<String>,
}

impl Server {
    pub(super) fn start(db: &TestDb, extra: &[&str]) -> Server {
        Server::spawn(&mut receipts(db), extra)
    }

    /// `receipts serve EXTRA` run as `cmd`.
    fn spawn(cmd: &mut Command, extra: &[&str]) -> Server {
        let mut child = cmd
            .args(["serve", "--listen", "127.0.0.1:0"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        // It says where it serves once it listens: no waiting by the clock.
        // (A new SQLite file is said before.)
        let first = lines
            .by_ref()
            .map_while(Result::ok)
            .find(|line| line.starts_with("serving the counter on"))
            .expect("serve says where it listens");
        let base = first
            .split_whitespace()
            .find(|word| word.starts_with("http"))
            .unwrap_or_else(|| panic!("no address in {first:?}"))
            .trim_end_matches('/')
            .to_string();
        let (send, log) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                let _ = send.send(line);
            }
        });
        Server { child, base, log }
    }

    pub(super) fn logged(&self) -> Vec<String> {
        self.log.try_iter().collect()
    }

    /// What it logged up to the first line that `until` accepts, which must come.
    pub(super) fn logged_until(&self, mut until: impl FnMut(&str) -> bool) -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            let line = self
                .log
                .recv_timeout(std::time::Duration::from_secs(30))
                .unwrap_or_else(|_| panic!("the server never logged the line awaited; it logged {lines:?}"));
            let last = until(&line);
            lines.push(line);
            if last {
                return lines;
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What an answer was.
struct Answer {
    status: u16,
    location: Option<String>,
    cookies: Vec<String>,
    headers: ureq::http::HeaderMap,
    body: Vec<u8>,
}

impl Answer {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The value of the page's first hidden field `name`.
    fn hidden(&self, name: &str) -> String {
        let text = self.text();
        let start = format!("name=\"{name}\" value=\"");
        let at = text.find(&start).unwrap_or_else(|| panic!("no hidden {name}")) + start.len();
        text[at..].split('"').next().unwrap_or_default().to_string()
    }

    /// The CSRF token of the page's forms.
    fn csrf(&self) -> String {
        let text = self.text();
        let at = text.find("name=\"csrf\" value=\"").expect("a form with a CSRF token") + 19;
        text[at..at + 64].to_string()
    }
}

/// A browser of one person: its cookies, no redirects followed.
struct Browser {
    base: String,
    agent: ureq::Agent,
    /// name=value of each cookie it holds.
    cookies: Vec<String>,
    /// The browser's Accept-Language, if it sends one.
    language: Option<&'static str>,
}

impl Browser {
    fn new(server: &Server) -> Browser {
        let agent =
            ureq::Agent::config_builder().max_redirects(0).http_status_as_error(false).build().new_agent();
        Browser { base: server.base.clone(), agent, cookies: Vec::new(), language: None }
    }

    fn answer(&mut self, response: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> Answer {
        let mut response = response.unwrap();
        let cookies: Vec<String> = response
            .headers()
            .get_all("set-cookie")
            .iter()
            .map(|v| v.to_str().unwrap().to_string())
            .collect();
        for cookie in &cookies {
            let pair = cookie.split(';').next().unwrap();
            let name = pair.split_once('=').unwrap().0;
            self.cookies.retain(|held| held.split_once('=').unwrap().0 != name);
            if !cookie.contains("Max-Age=0") {
                self.cookies.push(pair.to_string());
            }
        }
        Answer {
            status: response.status().as_u16(),
            location: response.headers().get("location").map(|v| v.to_str().unwrap().to_string()),
            cookies,
            headers: response.headers().clone(),
            body: response.body_mut().read_to_vec().unwrap(),
        }
    }

    fn get(&mut self, path: &str) -> Answer {
        let mut request = self.agent.get(format!("{}{path}", self.base));
        if !self.cookies.is_empty() {
            request = request.header("cookie", self.cookies.join("; "));
        }
        if let Some(language) = self.language {
            request = request.header("accept-language", language);
        }
        let response = request.call();
        self.answer(response)
    }

    fn post(&mut self, path: &str, form: &[(&str, &str)]) -> Answer {
        let mut request = self.agent.post(format!("{}{path}", self.base));
        if !self.cookies.is_empty() {
            request = request.header("cookie", self.cookies.join("; "));
        }
        if let Some(language) = self.language {
            request = request.header("accept-language", language);
        }
        let response = request.send_form(form.iter().copied());
        self.answer(response)
    }

    /// The login form opened, then posted with its token.
    fn log_in(&mut self, username: &str, password: &str) -> Answer {
        let csrf = self.get("/login").csrf();
        self.post("/login", &[("csrf", &csrf), ("username", username), ("password", password)])
    }
}

pub(super) fn account(db: &TestDb, username: &str, stringer: &str, role: &str) {
    Shop::new(db).account(username, stringer, role);
}

/// Two stringers with an account each and an open order each.
fn shop(db: &TestDb) -> (i64, i64) {
    let shop = Shop::new(db);
    shop.stringer("anna", "anna", &[]).stringer("ben", "ben", &[]);
    shop.account("anna", "anna", "staff").account("ben", "ben", "staff");
    let anna: i64 = Shop::new(db)
        .order("anna", &["--customer", "Roger", "--racket", "Pure Aero", "--price", "35"])
        .parse()
        .unwrap();
    let ben: i64 = Shop::new(db).order("ben", &["--customer", "Iga", "--price", "40"]).parse().unwrap();
    (anna, ben)
}

on_both_backends! {
    fn a_day_at_the_counter_over_http(db: TestDb) {
        let (order, _) = shop(&db);
        let hybrid = ["--string", "RPM Blast 1.25", "--cross-string", "Alu Power", "--tension", "24/23"];
        ok(&db, &[&["order", "add", "--stringer", "anna", "--customer", "Iga"][..], &hybrid].concat());
        let server = Server::start(&db, &[]);
        let mut anna = Browser::new(&server);
        let login = anna.log_in("anna", PASSWORD);
        assert_eq!((login.status, login.location.as_deref()), (303, Some("/")));
        let queue = anna.get("/");
        assert_eq!(queue.status, 200);
        assert!(queue.text().contains("Roger"), "{}", queue.text());
        assert!(queue.text().contains("RPM Blast 1.25 / Alu Power 24/23"), "a hybrid's two strings: {}", queue.text());
        assert!(queue.text().contains(r#"<meta name="viewport""#));
        let page = anna.get(&format!("/orders/{order}"));
        let csrf = page.csrf();
        // Strung twice, as a double click sends it: one number.
        for _ in 0..2 {
            let strung = anna.post(&format!("/orders/{order}/strung"), &[("csrf", &csrf)]);
            assert_eq!((strung.status, strung.location.clone()), (303, Some(format!("/orders/{order}"))));
        }
        let number = ok(&db, &["order", "show", &order.to_string(), "--format", "json"]);
        let number: serde_json::Value = serde_json::from_str(&number).unwrap();
        let number = number["receipt_number"].as_str().unwrap().to_string();
        assert!(number.ends_with("-0001"), "{number}");
        assert_eq!(journaled(&db, "mint").len(), 1);
        let page = anna.get(&format!("/orders/{order}"));
        assert!(page.text().contains(&number), "the page shows the number");
        let pdf = anna.get(&format!("/orders/{order}/receipt.pdf"));
        assert_eq!(pdf.status, 200);
        assert_eq!(pdf.headers.get("content-type").unwrap(), "application/pdf");
        assert!(pdf.body.starts_with(b"%PDF-"));
        let label = anna.get(&format!("/orders/{order}/label.pdf"));
        assert!(label.body.starts_with(b"%PDF-"));
        let picked = anna.post(&format!("/orders/{order}/pickup"), &[("csrf", &csrf), ("paid", "cash")]);
        assert_eq!(picked.status, 303);
        let shown: serde_json::Value =
            serde_json::from_str(&ok(&db, &["order", "show", &order.to_string(), "--format", "json"])).unwrap();
        assert_eq!(shown["payment_method"], "cash");
        assert!(shown["returned_at"].is_string());
        let takings = anna.get("/takings").text();
        assert!(takings.contains("<td>cash</td><td>CHF</td>"), "{takings}");
        assert!(takings.contains("35.00"), "{takings}");
        ok(&db, &["strings", "add", "RPM Blast 1.25", "--length", "200", "--stringer", "anna"]);
        let strings = anna.get("/strings").text();
        assert!(strings.contains("RPM Blast 1.25") && strings.contains("200.0 m"), "{strings}");
        let again = anna.post(&format!("/orders/{order}/pickup"), &[("csrf", &csrf), ("paid", "card")]);
        assert_eq!(again.status, 422, "a racket is picked up once: {}", again.text());
        assert!(again.text().contains("picked up"), "{}", again.text());
    }
}

on_both_backends! {
    fn sessions_csrf_and_tenancy(db: TestDb) {
        let (anna_order, ben_order) = shop(&db);
        let server = Server::start(&db, &[]);
        let mut nobody = Browser::new(&server);
        for path in ["/", &format!("/orders/{anna_order}"), &format!("/orders/{anna_order}/receipt.pdf")] {
            let answer = nobody.get(path);
            assert_eq!((answer.status, answer.location.as_deref()), (303, Some("/login")), "{path}");
        }
        let posted = nobody.post(&format!("/orders/{anna_order}/strung"), &[("csrf", "x")]);
        assert_eq!((posted.status, posted.location.as_deref()), (303, Some("/login")));

        let mut anna = Browser::new(&server);
        let login = anna.log_in("anna", PASSWORD);
        let cookie = &login.cookies[0];
        for attribute in ["HttpOnly", "SameSite=Strict", "Path=/"] {
            assert!(cookie.contains(attribute), "{cookie}");
        }
        assert!(!cookie.contains("Secure"), "plain HTTP on the loopback: {cookie}");
        let token = cookie.split(';').next().unwrap().split_once('=').unwrap().1.to_string();
        assert_eq!(token.len(), 64, "256 random bits");
        let csrf = anna.get(&format!("/orders/{anna_order}")).csrf();

        // Another stringer's order: not found, nothing of it shown, nothing changed.
        for path in [format!("/orders/{ben_order}"), format!("/orders/{ben_order}/label.pdf")] {
            let answer = anna.get(&path);
            assert_eq!(answer.status, 404, "{path}");
            assert!(!answer.text().contains("Iga"));
        }
        let foreign = anna.post(&format!("/orders/{ben_order}/strung"), &[("csrf", &csrf)]);
        assert_eq!(foreign.status, 404);
        // What is not an id names nothing: the same 404 page, not a parser's message.
        for path in ["/orders/abc", "/orders/1e3/receipt.pdf", "/customers/-", "/orders/99999999999999999999"] {
            let answer = anna.get(path);
            assert_eq!(answer.status, 404, "{path}");
            assert!(answer.text().contains("<html"), "{path}: {}", answer.text());
        }
        assert_eq!(anna.post("/orders/abc/strung", &[("csrf", &csrf)]).status, 404);
        // No token, or another session's: 403 and nothing minted.
        let mut ben = Browser::new(&server);
        ben.log_in("ben", PASSWORD);
        let bens_csrf = ben.get(&format!("/orders/{ben_order}")).csrf();
        assert_ne!(bens_csrf, csrf);
        for form in [vec![], vec![("csrf", bens_csrf.as_str())], vec![("csrf", "")]] {
            let refused = anna.post(&format!("/orders/{anna_order}/strung"), &form);
            assert_eq!(refused.status, 403, "{form:?}");
        }
        assert!(journaled(&db, "mint").is_empty(), "nothing was minted");

        // A new login is a new session; logging out ends it for good, the cookie replayed.
        let mut second = Browser::new(&server);
        let again = second.log_in("anna", PASSWORD);
        assert_ne!(again.cookies[0], *cookie);
        let sessions = || {
            let listed: serde_json::Value =
                serde_json::from_str(&ok(&db, &["account", "list", "--format", "json"])).unwrap();
            listed.as_array().unwrap().iter().map(|a| (a["username"].to_string(), a["sessions"].as_i64().unwrap())).collect::<Vec<_>>()
        };
        assert_eq!(sessions(), [("\"anna\"".to_string(), 2), ("\"ben\"".to_string(), 1)]);
        let out = anna.post("/logout", &[("csrf", &csrf)]);
        assert_eq!((out.status, out.location.as_deref()), (303, Some("/login")));
        assert_eq!(sessions()[0].1, 1, "the session logged out is gone");
        let mut replay = Browser::new(&server);
        replay.cookies = vec![format!("receipts_session={token}")];
        assert_eq!(replay.get("/").status, 303, "an ended session opens nothing");
        assert_eq!(second.get("/").status, 200, "the other session goes on");

        // A login posted without the login form's token, or with another browser's, is
        // refused (403) and opens no session: no site logs a browser in as someone else.
        let mut forged = Browser::new(&server);
        let foreign_token = Browser::new(&server).get("/login").csrf();
        forged.get("/login");
        for form in [vec![], vec![("csrf", foreign_token.as_str())], vec![("csrf", "")]] {
            let refused = forged.post("/login", &[&form[..], &[("username", "anna"), ("password", PASSWORD)]].concat());
            assert_eq!(refused.status, 403, "{form:?}");
            assert!(refused.cookies.is_empty(), "no session cookie: {:?}", refused.cookies);
        }
        assert_eq!(sessions()[0].1, 1, "no session was opened");
        // Posted from another site, with no form opened before: refused too.
        let elsewhere = ureq::post(format!("{}/login", server.base))
            .header("origin", "https://elsewhere.example")
            .config()
            .http_status_as_error(false)
            .build()
            .send_form([("username", "anna"), ("password", PASSWORD)])
            .unwrap();
        assert_eq!(elsewhere.status().as_u16(), 403);
        assert_eq!(sessions()[0].1, 1, "no session was opened");
        // A client that is no browser logs in with the two fields SPEC 20 names.
        let script = Browser::new(&server).post("/login", &[("username", "anna"), ("password", PASSWORD)]);
        assert_eq!(script.status, 303);
        assert_eq!(sessions()[0].1, 2, "the script's session");

        // A disabled account's sessions end.
        ok(&db, &["account", "disable", "anna"]);
        assert_eq!(second.get("/").status, 303);
        assert_eq!(Browser::new(&server).log_in("anna", PASSWORD).status, 401);

        // Nothing secret in the request log.
        let log = server.logged().join("\n");
        assert!(log.contains("POST /login 303"), "{log}");
        // Each request's line ends in its duration with the unit: `GET / 200 0.4 ms`.
        let requests: Vec<&str> = log.lines().filter(|l| l.starts_with("GET ") || l.starts_with("POST ")).collect();
        assert!(!requests.is_empty() && requests.iter().all(|l| l.ends_with(" ms")), "{log}");
        for secret in [PASSWORD, token.as_str(), csrf.as_str()] {
            assert!(!log.contains(secret), "the log holds a secret: {log}");
        }
    }
}

on_both_backends! {
    fn logins_are_throttled_and_say_nothing_of_which_field(db: TestDb) {
        shop(&db);
        let server = Server::start(&db, &[]);
        let mut browser = Browser::new(&server);
        let wrong_name = browser.log_in("nobody", PASSWORD);
        let wrong_password = browser.log_in("anna", "not the password");
        assert_eq!((wrong_name.status, wrong_password.status), (401, 401));
        let said = |answer: &Answer| {
            let text = answer.text();
            text[text.find("role=\"alert\"").unwrap()..].split('<').next().unwrap().to_string()
        };
        assert_eq!(said(&wrong_name), said(&wrong_password), "the same words either way");
        for _ in 0..4 {
            assert_eq!(browser.log_in("anna", "still wrong!").status, 401);
        }
        // Five failures: now even the right password is refused, for this username only.
        assert_eq!(browser.log_in("anna", PASSWORD).status, 429);
        assert_eq!(browser.log_in("ben", PASSWORD).status, 303);
    }
}

on_both_backends! {
    fn pages_escape_what_users_typed_and_carry_the_security_headers(db: TestDb) {
        ok(&db, &["stringer", "add", "anna", "--timezone", "Europe/Zurich"]);
        account(&db, "anna", "anna", "owner");
        let script = "<script>alert(1)</script>";
        let order = ok(&db, &["order", "add", "--customer", script, "--racket", "<b>x</b>"]);
        let server = Server::start(&db, &[]);
        let mut anna = Browser::new(&server);
        anna.log_in("anna", PASSWORD);
        for path in ["/".to_string(), format!("/orders/{order}")] {
            let page = anna.get(&path);
            let text = page.text();
            assert!(!text.contains(script) && !text.contains("<b>x</b>"), "{path}: {text}");
            // Shown, as escaped text (numeric or named entities alike).
            assert!(text.contains("script&#62;alert(1)&#60;") || text.contains("script&gt;alert(1)&lt;"), "{path}: {text}");
            let csp = page.headers.get("content-security-policy").unwrap().to_str().unwrap();
            for rule in ["script-src 'self'", "object-src 'none'", "frame-ancestors 'none'"] {
                assert!(csp.contains(rule), "{csp}");
            }
            assert_eq!(page.headers.get("x-content-type-options").unwrap(), "nosniff");
            assert_eq!(page.headers.get("referrer-policy").unwrap(), "same-origin");
            for inline in ["<script>", "onclick=", "onsubmit=", "onload="] {
                assert!(!text.contains(inline), "{path}: no inline script or handler: {inline}");
            }
        }
        // A body over 10 MiB, announced: refused before it is read.
        let address = server.base.trim_start_matches("http://");
        let mut stream = std::net::TcpStream::connect(address).unwrap();
        use std::io::{Read, Write};
        write!(
            stream,
            "POST /login HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/x-www-form-urlencoded\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\nusername=anna&password=",
            11 * 1024 * 1024
        )
        .unwrap();
        let mut head = [0u8; 12];
        stream.read_exact(&mut head).unwrap();
        assert_eq!(&head, b"HTTP/1.1 413");
        assert_eq!(Browser::new(&server).get("/healthz").status, 200);
        // The icon every browser asks for: nothing, and no 404 page.
        let icon = Browser::new(&server).get("/favicon.ico");
        assert_eq!((icon.status, icon.body.len()), (204, 0));
    }
}

/// A DBA's lock holds a page up no longer than the lock timeout (503, try again), and the
/// pooled connection it was refused on serves the next pages: nothing of that transaction
/// stays open on the server. When the server drops the counter's connections, a page may
/// find out (503), and then the pool has new ones.
#[test]
fn the_counter_rides_out_a_dba_lock_and_dropped_connections_on_postgres() {
    use diesel::connection::SimpleConnection;
    use diesel::Connection;
    let db = TestDb::postgres();
    shop(&db);
    let server = Server::start(&db, &["--lock-timeout", "0.2"]);
    let mut anna = Browser::new(&server);
    anna.log_in("anna", PASSWORD);
    assert_eq!(anna.get("/").status, 200);
    {
        let _lock = TableLock::hold(&db.url);
        let page = anna.get("/");
        assert_eq!(page.status, 503, "{}", page.text());
        assert!(page.text().contains("held a lock for longer than the lock timeout"), "{}", page.text());
    }
    for _ in 0..20 {
        let page = anna.get("/");
        assert_eq!(page.status, 200, "after the lock: {}", page.text());
    }
    diesel::PgConnection::establish(&db.url)
        .unwrap()
        .batch_execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE datname = current_database() AND pid <> pg_backend_pid()",
        )
        .unwrap();
    let statuses: Vec<u16> = (0..8).map(|_| anna.get("/").status).collect();
    let healed =
        statuses.iter().position(|&s| s == 200).unwrap_or_else(|| panic!("never healed: {statuses:?}"));
    assert!(statuses[..healed].iter().all(|&s| s == 503), "{statuses:?}");
    assert!(statuses[healed..].iter().all(|&s| s == 200), "{statuses:?}");
}

#[test]
fn serve_refuses_plain_http_beyond_the_loopback_and_accounts_check_their_input() {
    let db = TestDb::sqlite();
    ok(&db, &["stringer", "add", "anna", "--timezone", "Europe/Zurich"]);
    let out = run(&db, &["serve", "--listen", "0.0.0.0:0"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("--allow-http"), "{}", out.stderr);
    let short = add_account(&db, &["anna"], "short");
    assert_eq!(short.status.code(), Some(65));
    assert!(String::from_utf8_lossy(&short.stderr).contains("at least 10 characters"));
    account(&db, "anna", "anna", "staff");
    let hash = db.query_i64("SELECT count(*) FROM accounts WHERE password_hash LIKE '$argon2id$%'");
    assert_eq!(hash, Some(1), "an Argon2id PHC string, never the password");
    let listed = ok(&db, &["account", "list", "--format", "json"]);
    assert!(listed.contains("\"anna\"") && !listed.contains(PASSWORD), "{listed}");
}

on_both_backends! {
    fn an_order_taken_in_the_browser_for_a_known_customer_is_the_same_as_last_time(db: TestDb) {
        shop(&db);
        let aero = ok(
            &db,
            &["order", "add", "--stringer", "anna", "--customer", "Roger Müller", "--racket", "Pure Aero",
              "--string", "RPM Blast 1.25", "--tension", "24/23 kg", "--price", "38"],
        );
        // Another racket of his, strung later: "the same" is of the racket, not of his last visit.
        let blade = ok(&db, &["order", "add", "--stringer", "anna", "--customer", "Roger Müller", "--racket",
                              "Blade 98", "--string", "Hawk 1.20", "--tension", "22 kg", "--price", "30"]);
        for order in [&aero, &blade] {
            ok(&db, &["mint", "--order", order]);
        }
        let customers: serde_json::Value =
            serde_json::from_str(&ok(&db, &["customer", "list", "--stringer", "anna", "--format", "json"])).unwrap();
        let roger = customers.as_array().unwrap().iter().find(|c| c["name"] == "Roger Müller").unwrap()["id"]
            .as_i64()
            .unwrap();
        let server = Server::start(&db, &[]);
        let mut anna = Browser::new(&server);
        anna.log_in("anna", PASSWORD);
        let found = anna.get("/customers?q=muller");
        assert!(found.text().contains(&format!("/customers/{roger}")), "{}", found.text());
        assert!(!found.text().contains("Iga"));
        let page = anna.get(&format!("/customers/{roger}")).text();
        assert!(page.contains("RPM Blast 1.25 24/23 kg"), "{page}");
        let rackets: serde_json::Value = serde_json::from_str(&ok(
            &db,
            &["racket", "list", "--customer", &roger.to_string(), "--format", "json"],
        ))
        .unwrap();
        let racket = rackets.as_array().unwrap().iter().find(|r| r["model"] == "Pure Aero").unwrap()["id"]
            .as_i64()
            .unwrap();
        let link = format!("/orders/new?customer_id={roger}&amp;racket_id={racket}&amp;same=yes");
        assert!(page.contains(&link), "{page}");
        let form = anna.get(&link.replace("&amp;", "&"));
        assert!(form.text().contains("name=\"same\" value=\"yes\" checked"), "{}", form.text());
        let csrf = form.csrf();
        let (roger_id, racket_id) = (roger.to_string(), racket.to_string());
        let taken = anna.post(
            "/orders/new",
            &[("csrf", &csrf), ("customer_id", &roger_id), ("racket_id", &racket_id), ("same", "yes"),
              ("price", ""), ("item_text", "Overgrip"), ("item_price", "3.50"), ("item_text", ""), ("item_price", "")],
        );
        assert_eq!(taken.status, 303, "{}", taken.text());
        let id = taken.location.unwrap().trim_start_matches("/orders/").to_string();
        let new: serde_json::Value = serde_json::from_str(&ok(&db, &["order", "show", &id, "--format", "json"])).unwrap();
        assert_eq!(new["string"], "RPM Blast 1.25");
        assert_eq!(new["tension"], "24/23 kg");
        assert_eq!(new["racket"], "Pure Aero");
        assert_eq!(new["customer"], "Roger Müller");
        let his: serde_json::Value = serde_json::from_str(&ok(
            &db,
            &["order", "list", "--racket-id", &racket.to_string(), "--format", "json"],
        ))
        .unwrap();
        assert!(his.as_array().unwrap().iter().any(|o| o["id"].as_i64() == id.parse::<i64>().ok()), "linked to his racket");
        assert_eq!(new["items"][0]["text"], "Overgrip");

        // Refused: what was typed stays, why beside the field; nothing taken.
        let before = ok(&db, &["order", "list", "--format", "csv"]).lines().count();
        let refused = anna.post(
            "/orders/new",
            &[("csrf", &csrf), ("customer", "Iga <b>Ś</b>"), ("racket", "Speed MP"), ("tension", "abc")],
        );
        assert_eq!(refused.status, 422);
        let text = refused.text();
        assert!(text.contains("Speed MP"), "kept what was typed: {text}");
        assert!(!text.contains("<b>Ś</b>"), "typed text is escaped: {text}");
        let tension_field = text.find("name=\"tension\"").unwrap();
        let problem = text.find("abc&#34; is not a tension").expect("why, in the page's words");
        assert!(problem > tension_field, "the refusal follows its field");
        assert!(!text.contains("--tension"), "no flag is named to a browser user: {text}");
        assert_eq!(ok(&db, &["order", "list", "--format", "csv"]).lines().count(), before);
        // Another stringer's customer in the form: not found, nothing taken.
        let bens: serde_json::Value =
            serde_json::from_str(&ok(&db, &["customer", "list", "--stringer", "ben", "--format", "json"])).unwrap();
        let iga = bens[0]["id"].as_i64().unwrap().to_string();
        assert_eq!(anna.get(&format!("/customers/{iga}")).status, 404);
        assert_eq!(anna.get(&format!("/orders/new?customer_id={iga}")).status, 404);
        let foreign = anna.post("/orders/new", &[("csrf", &csrf), ("customer_id", &iga), ("price", "10")]);
        assert_eq!(foreign.status, 404, "{}", foreign.text());
        assert_eq!(ok(&db, &["order", "list", "--format", "csv"]).lines().count(), before);
    }
}

on_both_backends! {
    /// An order taken before promised times were kept is due when it was taken: overdue in
    /// `receipts queue`, on the web's queue and dated so on its label, all by one rule.
    fn an_order_without_a_promised_time_is_overdue_at_both_doors(db: TestDb) {
        let (order, _) = shop(&db);
        db.execute(&format!("UPDATE orders SET due_at = NULL, ordered_at = '2020-01-02 10:00:00' WHERE id = {order}"))
            .unwrap();
        let queue: serde_json::Value =
            serde_json::from_str(&ok(&db, &["queue", "--stringer", "anna", "--format", "json"])).unwrap();
        let row = queue.as_array().unwrap().iter().find(|r| r["order"] == order).expect("in the queue");
        assert_eq!(row["overdue"], true, "{row}");
        let server = Server::start(&db, &[]);
        let mut anna = Browser::new(&server);
        anna.log_in("anna", PASSWORD);
        let page = anna.get("/").text();
        assert!(page.contains(&format!("<li class=\"overdue\"><a href=\"/orders/{order}\">")), "{page}");
        let dir = tempfile::tempdir().unwrap();
        let label = dir.path().join("label.pdf");
        ok(&db, &["label", &order.to_string(), "-o", label.to_str().unwrap()]);
        let text = tool("pdftotext", &[label.to_str().unwrap(), "-"]);
        assert!(text.contains("due 2020-01-02"), "{text}");
    }
}

on_both_backends! {
    fn the_register_is_read_a_page_at_a_time_each_after_the_last(db: TestDb) {
        shop(&db);
        // 120 customers of anna, added in no particular order of their names.
        let mut names: Vec<String> = (0..120).map(|i| format!("Kunde {:03}", (i * 37) % 120)).collect();
        for name in &names {
            ok(&db, &["customer", "add", name, "--stringer", "anna"]);
        }
        names.push("Roger".into());
        names.sort();
        let server = Server::start(&db, &[]);
        let mut anna = Browser::new(&server);
        anna.log_in("anna", PASSWORD);
        let mut seen = Vec::new();
        let mut next = Some("/customers".to_string());
        while let Some(page) = next.take() {
            let text = anna.get(&page.replace("&#38;", "&")).text();
            seen.extend(text.match_indices("Kunde ").map(|(at, _)| text[at..at + 9].to_string()));
            seen.extend(text.contains(">Roger<").then(|| "Roger".to_string()));
            next = text.split("href=\"/customers?").nth(1).map(|rest| format!("/customers?{}", rest.split('"').next().unwrap()));
            assert!(next.as_deref().is_none_or(|link| link.contains("after=")), "{next:?}");
            assert!(seen.len() <= names.len(), "pages repeat: {seen:?}");
        }
        assert_eq!(seen, names, "every customer once, in order, over three pages");
        // A page after another stringer's customer: not found.
        let bens: serde_json::Value =
            serde_json::from_str(&ok(&db, &["customer", "list", "--stringer", "ben", "--format", "json"])).unwrap();
        assert_eq!(anna.get(&format!("/customers?after={}", bens[0]["id"])).status, 404);
        // Skipping a number of them still works.
        assert!(anna.get("/customers?from=119").text().contains("Kunde 119"));
    }
}

on_both_backends! {
    fn a_name_like_a_regulars_asks_before_a_new_customer_is_added(db: TestDb) {
        shop(&db);
        let meier = ok(&db, &["customer", "add", "Anna Meier", "--stringer", "anna"]);
        let server = Server::start(&db, &[]);
        let mut anna = Browser::new(&server);
        anna.log_in("anna", PASSWORD);
        let form = anna.get("/orders/new");
        let text = form.text();
        // The shop's names offered as one types (the browser's own list, no script), a date
        // and time field for the promised time with the turnaround shown, items as a
        // description and a price.
        assert!(text.contains("list=\"customer-names\"") && text.contains("<option value=\"Anna Meier\">"), "{text}");
        assert!(text.contains("type=\"datetime-local\" name=\"due\" value=\"20"), "{text}");
        assert!(text.contains("name=\"item_text\"") && text.contains("name=\"item_price\""), "{text}");
        assert!(!text.contains("TEXT=PRICE"), "{text}");
        let csrf = form.csrf();
        let customers = || ok(&db, &["customer", "list", "--stringer", "anna", "--format", "csv"]).lines().count();
        let before = (customers(), ok(&db, &["order", "list", "--format", "csv"]).lines().count());

        // "Anna Mei" for the regular Anna Meier: asked, naming her; nothing added.
        let typed = [("csrf", csrf.as_str()), ("customer", "Anna Mei"), ("price", "30"), ("item_text", "Grip"), ("item_price", "4.50")];
        let asked = anna.post("/orders/new", &typed);
        assert_eq!(asked.status, 422, "{}", asked.text());
        let text = asked.text();
        assert!(text.contains(&format!("name=\"customer_pick\" value=\"{meier}\"")) && text.contains("Anna Meier"), "{text}");
        assert!(text.contains("name=\"customer_pick\" value=\"new\""), "{text}");
        assert!(text.contains("value=\"Grip\"") && text.contains("value=\"4.50\""), "what was typed stays: {text}");
        assert_eq!((customers(), ok(&db, &["order", "list", "--format", "csv"]).lines().count()), before);

        // She is Anna Meier: the order is hers.
        let taken = anna.post("/orders/new", &[&typed[..], &[("customer_pick", meier.as_str())]].concat());
        assert_eq!(taken.status, 303, "{}", taken.text());
        let id = taken.location.unwrap().trim_start_matches("/orders/").to_string();
        let shown: serde_json::Value = serde_json::from_str(&ok(&db, &["order", "show", &id, "--format", "json"])).unwrap();
        assert_eq!((shown["customer"].as_str(), shown["items"][0]["text"].as_str(), shown["total"].as_str()), (Some("Anna Meier"), Some("Grip"), Some("34.50")));
        assert_eq!(customers(), before.0, "nobody added");

        // Confirmed as somebody new: added once, under the name typed.
        let taken = anna.post("/orders/new", &[&typed[..], &[("customer_pick", "new")]].concat());
        assert_eq!(taken.status, 303, "{}", taken.text());
        assert_eq!(customers(), before.0 + 1);
        let named: serde_json::Value = serde_json::from_str(&ok(&db, &["customer", "list", "--stringer", "anna", "--format", "json"])).unwrap();
        assert_eq!(named.as_array().unwrap().iter().filter(|c| c["name"] == "Anna Mei").count(), 1, "the new one: {named}");

        // An item as the CLI writes it, as SPEC 20 names the field, is taken too.
        let taken = anna.post("/orders/new", &[("csrf", csrf.as_str()), ("customer", "Zoe"), ("price", "30"), ("item", "Grip=4.50")]);
        assert_eq!(taken.status, 303, "{}", taken.text());
        // A price without a description, and a promised time, as a person types them.
        let refused = anna.post("/orders/new", &[("csrf", csrf.as_str()), ("customer", "Zoe"), ("price", "30"), ("item_text", ""), ("item_price", "4")]);
        assert_eq!(refused.status, 422);
        assert!(refused.text().contains("needs a description"), "{}", refused.text());
        let taken = anna.post("/orders/new", &[("csrf", csrf.as_str()), ("customer", "Zoe"), ("price", "30"), ("due", "2030-05-04T17:30")]);
        assert_eq!(taken.status, 303, "{}", taken.text());
        let id = taken.location.unwrap().trim_start_matches("/orders/").to_string();
        let shown: serde_json::Value = serde_json::from_str(&ok(&db, &["order", "show", &id, "--format", "json"])).unwrap();
        assert!(shown["due_at"].as_str().unwrap().starts_with("2030-05-04T"), "{shown}");
    }
}

on_both_backends! {
    fn pages_speak_the_accounts_language_else_the_browsers_and_idle_sessions_end(db: TestDb) {
        shop(&db);
        assert!(add_account(&db, &["chloe", "--stringer", "anna", "--language", "fr"], PASSWORD).status.success());
        let server = Server::start(&db, &["--session-idle", "60"]);
        let mut chloe = Browser::new(&server);
        chloe.language = Some("de-CH,de;q=0.9");
        chloe.log_in("chloe", PASSWORD);
        let page = chloe.get("/").text();
        assert!(page.contains(r#"<html lang="fr">"#) && page.contains("À corder"), "the account's: {page}");
        let mut anna = Browser::new(&server);
        anna.language = Some("it;q=0.5, de-CH;q=0.9, xx");
        assert!(anna.get("/login").text().contains("Anmelden"), "the browser's first of the four");
        anna.log_in("anna", PASSWORD);
        let page = anna.get("/").text();
        assert!(page.contains(r#"<html lang="de">"#) && page.contains("Zu bespannen"), "{page}");
        // A form posted with a stale token is refused in the page's language too.
        let stale = anna.post("/logout", &[("csrf", "0000")]);
        assert_eq!(stale.status, 403);
        assert!(stale.text().contains("Dieses Formular ist veraltet"), "{}", stale.text());
        // A value refused: what the input takes, in the page's language, not the parser's English.
        let csrf = anna.get("/orders/new").csrf();
        let refused = anna.post("/orders/new", &[("csrf", &csrf), ("customer", "Iga"), ("tension", "abc")]);
        assert_eq!(refused.status, 422);
        let text = refused.text();
        assert!(text.contains("Die Spannung ist ein Wert oder Längs-/Quersaiten"), "{text}");
        assert!(!text.contains("is not a tension"), "{text}");
        // Used a while ago, within --session-idle: it goes on, and its use is recorded.
        let back = |interval: &str, sqlite: &str| {
            db.execute(&format!("UPDATE sessions SET last_seen_at = created_at - INTERVAL '{interval}'"))
                .or_else(|_| db.execute(&format!("UPDATE sessions SET last_seen_at = datetime(created_at, '{sqlite}')")))
                .unwrap();
        };
        back("30 minutes", "-30 minutes");
        assert_eq!(anna.get("/").status, 200);
        let fresh = "SELECT count(*) FROM sessions WHERE last_seen_at >= created_at";
        assert_eq!(db.query_i64(fresh), Some(1), "anna's use was recorded, chloe's not yet");
        // Unused for longer than --session-idle: the session is over.
        back("2 hours", "-2 hours");
        assert_eq!((anna.get("/").status, chloe.get("/").status), (303, 303));
    }
}

on_both_backends! {
    fn notify_and_send_go_once_through_a_real_mail_server_and_only_the_owner_voids(db: TestDb) {
        let (order, _) = shop(&db);
        ok(&db, &["stringer", "edit", "anna", "--email", "shop@example.ch"]);
        ok(&db, &["order", "edit", &order.to_string(), "--email", "roger@example.com"]);
        account(&db, "olga", "anna", "owner");
        ok(&db, &["mint", "--order", &order.to_string()]);
        // A counter without a mail server offers neither; a send posted anyway is refused
        // (503) in the page's words, naming no flag.
        {
            let bare = Server::start(&db, &[]);
            let mut anna = Browser::new(&bare);
            anna.log_in("anna", PASSWORD);
            let page = anna.get(&format!("/orders/{order}"));
            assert!(!page.text().contains(">Notify</button>") && !page.text().contains(">Send</button>"), "{}", page.text());
            let refused = anna.post(&format!("/orders/{order}/send"), &[("csrf", &page.csrf())]);
            assert_eq!(refused.status, 503, "{}", refused.text());
            assert!(refused.text().contains("no mail server") && !refused.text().contains("--smtp-url"), "{}", refused.text());
        }
        let sink = support::smtp::Sink::start(support::smtp::Behaviour::Accept);
        let server = Server::start(&db, &["--smtp-url", &sink.url(None)]);
        let mut anna = Browser::new(&server);
        anna.log_in("anna", PASSWORD);
        let page = anna.get(&format!("/orders/{order}"));
        assert!(page.text().contains(">Notify</button>"), "{}", page.text());
        assert!(!page.text().contains(">Void</button>"), "staff do not void");
        let csrf = page.csrf();
        let told = anna.post(&format!("/orders/{order}/notify"), &[("csrf", &csrf)]);
        assert_eq!(told.status, 303, "{}", told.text());
        let again = anna.post(&format!("/orders/{order}/notify"), &[("csrf", &csrf)]);
        assert_eq!(again.status, 422, "told once: {}", again.text());
        assert!(!anna.get(&format!("/orders/{order}")).text().contains(">Notify</button>"), "no button that can only be refused");
        assert_eq!(sink.received().len(), 1);
        assert_eq!(journaled(&db, "notify").len(), 1);
        // The document, by e-mail, once.
        assert!(page.text().contains(">Send</button>"));
        let sent = anna.post(&format!("/orders/{order}/send"), &[("csrf", &csrf)]);
        assert_eq!(sent.status, 303, "{}", sent.text());
        assert_eq!(anna.post(&format!("/orders/{order}/send"), &[("csrf", &csrf)]).status, 422, "sent once");
        assert!(!anna.get(&format!("/orders/{order}")).text().contains(">Send</button>"), "sent: no Send");
        let received = sink.received();
        assert_eq!(received.len(), 2);
        assert_eq!(received[1].to, vec!["roger@example.com".to_string()]);
        assert!(String::from_utf8_lossy(&received[1].data).contains("application/pdf"));
        assert_eq!(journaled(&db, "send").len(), 1);

        // What the customer has by e-mail is never voided: the owner's page offers Credit.
        let mut olga = Browser::new(&server);
        olga.log_in("olga", PASSWORD);
        let page = olga.get(&format!("/orders/{order}"));
        assert!(!page.text().contains(">Void</button>") && page.text().contains(">Credit</button>"), "{}", page.text());
        let owners = page.csrf();
        let refused = olga.post(&format!("/orders/{order}/void"), &[("csrf", &owners), ("reason", "typo")]);
        assert_eq!(refused.status, 422, "{}", refused.text());
        assert!(journaled(&db, "void").is_empty());

        // Staff may not void, even by posting the form; the owner may, with a reason, what
        // never left the shop.
        let order = Shop::new(&db).order("anna", &["--customer", "Roger", "--price", "20"]);
        ok(&db, &["mint", "--order", &order]);
        let refused = anna.post(&format!("/orders/{order}/void"), &[("csrf", &csrf), ("reason", "typo")]);
        assert_eq!(refused.status, 403);
        let page = olga.get(&format!("/orders/{order}"));
        assert!(page.text().contains(">Void</button>"));
        let no_reason = olga.post(&format!("/orders/{order}/void"), &[("csrf", &owners), ("reason", " ")]);
        assert_eq!(no_reason.status, 422, "{}", no_reason.text());
        assert!(journaled(&db, "void").is_empty());
        let voided = olga.post(&format!("/orders/{order}/void"), &[("csrf", &owners), ("reason", "entered twice")]);
        assert_eq!(voided.status, 303);
        let void = journaled(&db, "void");
        assert_eq!(void.len(), 1);
        assert!(olga.get(&format!("/orders/{order}")).text().contains("entered twice"));
    }
}

on_both_backends! {
    fn the_order_page_says_what_is_still_due_as_order_show_does(db: TestDb) {
        let (order, _) = shop(&db);
        let order = order.to_string();
        ok(&db, &["mint", "--order", &order]);
        ok(&db, &["order", "pickup", &order]);
        ok(&db, &["credit", &order, "--reason", "grip not fitted", "--amount", "12.50"]);
        let shown: serde_json::Value = serde_json::from_str(&ok(&db, &["order", "show", &order, "--format", "json"])).unwrap();
        assert_eq!(shown["still_due"].as_str(), Some("22.50"));
        let server = Server::start(&db, &[]);
        let mut anna = Browser::new(&server);
        anna.log_in("anna", PASSWORD);
        let page = anna.get(&format!("/orders/{order}")).text();
        assert!(page.contains("<dt>Still due</dt><dd class=\"still-due\">22.50 CHF</dd>"), "{page}");
    }
}

on_both_backends! {
    fn a_part_is_paid_at_the_counter_and_the_rest_later_as_order_pay_takes_them(db: TestDb) {
        let (order, other) = shop(&db);
        let (order, other) = (order.to_string(), other.to_string());
        ok(&db, &["mint", "--order", &order]);
        ok(&db, &["mint", "--order", &other]);
        let server = Server::start(&db, &[]);
        let mut anna = Browser::new(&server);
        anna.log_in("anna", PASSWORD);
        let page = anna.get(&format!("/orders/{order}"));
        assert!(page.text().contains(&format!("action=\"/orders/{order}/pay\"")), "{}", page.text());
        let csrf = page.csrf();
        let pay = |browser: &mut Browser, id: &str, fields: &[(&str, &str)]| {
            browser.post(&format!("/orders/{id}/pay"), &[&[("csrf", csrf.as_str())][..], fields].concat())
        };
        let shown = |id: &str| -> serde_json::Value {
            serde_json::from_str(&ok(&db, &["order", "show", id, "--format", "json"])).unwrap()
        };
        // A part in cash: the order stays open for the rest.
        let part = pay(&mut anna, &order, &[("amount", "10"), ("paid", "cash")]);
        assert_eq!((part.status, part.location.clone()), (303, Some(format!("/orders/{order}"))));
        let now = shown(&order);
        assert_eq!((now["part_paid"].as_str(), now["still_due"].as_str()), (Some("10.00"), Some("25.00")));
        let page = anna.get(&format!("/orders/{order}")).text();
        assert!(page.contains("<dt>Paid in part</dt><dd class=\"parts\">10.00 CHF (cash)"), "{page}");
        assert!(page.contains("<dt>Still due</dt><dd class=\"still-due\">25.00 CHF</dd>"), "{page}");
        // More than is left, no method, another stringer's order, a forged form: refused,
        // nothing changes.
        let more = pay(&mut anna, &order, &[("amount", "30"), ("paid", "card")]);
        assert!(more.status == 422 && more.text().contains("it owes 25.00 CHF"), "{}", more.text());
        assert_eq!(pay(&mut anna, &order, &[("amount", "5")]).status, 422);
        assert_eq!(pay(&mut anna, &other, &[("paid", "cash")]).status, 404);
        let forged = anna.post(&format!("/orders/{order}/pay"), &[("csrf", "0"), ("paid", "cash")]);
        assert_eq!(forged.status, 403);
        assert_eq!(shown(&other)["paid_at"], serde_json::Value::Null);
        assert_eq!(db.query_i64("SELECT count(*) FROM part_payments"), Some(1));
        // The rest by card, the amount left empty: paid, and the form is gone.
        let rest = pay(&mut anna, &order, &[("amount", ""), ("paid", "card")]);
        assert_eq!(rest.status, 303, "{}", rest.text());
        let now = shown(&order);
        assert_eq!((now["status"].as_str(), now["payment_method"].as_str()), (Some("paid"), Some("card")));
        assert!(!anna.get(&format!("/orders/{order}")).text().contains("/pay\""));
        let takings = anna.get("/takings").text();
        assert!(takings.contains("<td>cash</td><td>CHF</td>") && takings.contains("10.00"), "{takings}");
        assert!(takings.contains("<td>card</td><td>CHF</td>") && takings.contains("25.00"), "{takings}");
    }
}

on_both_backends! {
    fn the_owner_credits_a_paid_order_once_however_often_the_form_is_posted(db: TestDb) {
        let (order, other) = shop(&db);
        let credit = |seq: u32| format!("C-{}-{seq:04}", db.this_year());
        account(&db, "olga", "anna", "owner");
        ok(&db, &["mint", "--order", &order.to_string()]);
        ok(&db, &["order", "pickup", &order.to_string(), "--paid", "cash"]);
        let server = Server::start(&db, &[]);
        let mut anna = Browser::new(&server);
        anna.log_in("anna", PASSWORD);
        let staff_page = anna.get(&format!("/orders/{order}"));
        assert!(!staff_page.text().contains(">Credit</button>"), "staff do not credit");
        let mut olga = Browser::new(&server);
        olga.log_in("olga", PASSWORD);
        let page = olga.get(&format!("/orders/{order}"));
        assert!(page.text().contains(">Credit</button>") && !page.text().contains(">Void</button>"), "{}", page.text());
        let (csrf, token) = (page.csrf(), page.hidden("token"));
        let form = |amount: &'static str| {
            vec![("csrf", csrf.clone()), ("token", token.clone()), ("reason", "Grip charged twice".to_string()), ("amount", amount.to_string()), ("refund", "cash".to_string())]
        };
        let post = |browser: &mut Browser, fields: Vec<(&str, String)>| {
            let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
            browser.post(&format!("/orders/{order}/credit"), &fields)
        };
        // More than is left: refused in the page's words, beside the amount, nothing issued.
        let too_much = post(&mut olga, form("500"));
        assert_eq!(too_much.status, 422, "{}", too_much.text());
        assert!(!too_much.text().contains("--amount"), "{}", too_much.text());
        // Staff posting the form anyway: 403.
        assert_eq!(post(&mut anna, form("5")).status, 403);
        // The same form posted twice (a double click): one credit note.
        for _ in 0..2 {
            let credited = post(&mut olga, form("5"));
            assert_eq!(credited.status, 303, "{}", credited.text());
        }
        assert_eq!(journaled(&db, "credit").len(), 1);
        let page = olga.get(&format!("/orders/{order}"));
        assert!(page.text().contains(&format!("href=\"/credit-notes/{}\"", credit(1))) && page.text().contains("5.00 CHF"), "{}", page.text());
        let pdf = olga.get(&format!("/credit-notes/{}", credit(1)));
        assert_eq!((pdf.status, &pdf.body[..5]), (200, &b"%PDF-"[..]));
        // A new form (a new token) credits again, with the refund said.
        let (csrf, token) = (page.csrf(), page.hidden("token"));
        let again = olga.post(&format!("/orders/{order}/credit"), &[("csrf", &csrf), ("token", &token), ("reason", "Restrung for free"), ("refund", "cash")]);
        assert_eq!(again.status, 303, "{}", again.text());
        let shown: serde_json::Value = serde_json::from_str(&ok(&db, &["order", "show", &order.to_string(), "--format", "json"])).unwrap();
        assert_eq!((shown["status"].as_str(), shown["credited_by"].as_str()), (Some("credited"), Some(format!("{}, {}", credit(1), credit(2)).as_str())));
        // Credited in full: no Credit any more. Another stringer's order or credit note: 404.
        assert!(!olga.get(&format!("/orders/{order}")).text().contains(">Credit</button>"));
        let foreign = olga.post(&format!("/orders/{other}/credit"), &[("csrf", &csrf), ("token", "x"), ("reason", "x")]);
        assert_eq!(foreign.status, 404, "{}", foreign.text());
        ok(&db, &["mint", "--order", &other.to_string()]);
        for _ in 0..3 {
            ok(&db, &["credit", &other.to_string(), "--reason", "theirs", "--amount", "1"]);
        }
        assert!(ok(&db, &["receipt", &credit(3), "--stringer", "ben"]).contains(&credit(3)));
        assert_eq!(olga.get(&format!("/credit-notes/{}", credit(3))).status, 404, "ben's third is not anna's");
        assert_eq!(olga.get("/credit-notes/not-a-number").status, 404);
        assert_eq!(journaled(&db, "credit").len(), 5);
    }
}

/// With a certificate, the counter speaks HTTPS itself, on any address, and its session
/// cookie is Secure. The certificate is made by openssl and the pages fetched by curl,
/// which checks it.
#[test]
fn the_counter_speaks_tls_with_a_certificate_and_its_cookie_is_secure() {
    let db = TestDb::sqlite();
    ok(&db, &["stringer", "add", "anna", "--timezone", "Europe/Zurich"]);
    account(&db, "anna", "anna", "staff");
    let dir = tempfile::tempdir().unwrap();
    let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    let made = Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-days",
            "2",
        ])
        .args(["-subj", "/CN=counter.test", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout"])
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .expect("openssl (scripts/test installs it)");
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let server =
        Server::start(&db, &["--tls-cert", cert.to_str().unwrap(), "--tls-key", key.to_str().unwrap()]);
    assert!(server.base.starts_with("https://127.0.0.1:"), "{}", server.base);
    let curl = |args: &[&str]| {
        let out = Command::new("curl")
            .args(["-s", "-o", "/dev/null", "-D", "-", "--cacert", cert.to_str().unwrap()])
            .args(args)
            .output()
            .expect("curl (scripts/test installs it)");
        assert!(out.status.success(), "curl {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let health = curl(&[&format!("{}/healthz", server.base)]);
    assert!(health.starts_with("HTTP/1.1 200") || health.starts_with("HTTP/2 200"), "{health}");
    let set_cookie = |answer: &str| {
        answer
            .lines()
            .find(|l| l.to_ascii_lowercase().starts_with("set-cookie:"))
            .unwrap_or_default()
            .to_string()
    };
    // The login form's token comes in its cookie (the same value as in the form).
    let form = curl(&[&format!("{}/login", server.base)]);
    let login_cookie = set_cookie(&form);
    assert!(login_cookie.contains("; Secure") && login_cookie.contains("HttpOnly"), "{form}");
    let token = login_cookie.split(';').next().unwrap().split_once('=').unwrap().1.trim().to_string();
    let login = curl(&[
        "-b",
        &format!("receipts_login={token}"),
        "-d",
        &format!("csrf={token}"),
        "-d",
        "username=anna",
        "-d",
        &format!("password={PASSWORD}"),
        &format!("{}/login", server.base),
    ]);
    let cookie = set_cookie(&login);
    assert!(
        cookie.contains("receipts_session=") && cookie.contains("; Secure") && cookie.contains("HttpOnly"),
        "{login}"
    );
    // Plain HTTP to the TLS port is no way in.
    let plain = Command::new("curl")
        .args(["-s", "-o", "/dev/null", "-w", "%{http_code}", &server.base.replace("https://", "http://")])
        .output()
        .unwrap();
    assert_ne!(String::from_utf8_lossy(&plain.stdout), "200");
}

on_both_backends! {
    fn many_clients_pressing_strung_at_once_give_every_order_one_number_gapless(db: TestDb) {
        shop(&db);
        let mut orders = Vec::new();
        for i in 0..12 {
            for stringer in ["anna", "ben"] {
                let id = ok(&db, &["order", "add", "--stringer", stringer, "--customer", &format!("C{i}"), "--price", "30"]);
                orders.push((stringer, id));
            }
        }
        let server = Server::start(&db, &[]);
        // Eight clients, four per stringer, each with a session of its own, each pressing
        // Strung on every order of its stringer, twice, in an order of its own.
        let clients: Vec<_> = (0..8)
            .map(|client| {
                let stringer = if client % 2 == 0 { "anna" } else { "ben" };
                let mut browser = Browser::new(&server);
                assert_eq!(browser.log_in(stringer, PASSWORD).status, 303);
                let csrf = browser.get("/orders/new").csrf();
                let mut mine: Vec<String> =
                    orders.iter().filter(|(s, _)| *s == stringer).map(|(_, id)| id.clone()).collect();
                let turn = client * 3 % mine.len();
                mine.rotate_left(turn);
                if client % 4 < 2 {
                    mine.reverse();
                }
                std::thread::spawn(move || {
                    let mut statuses = Vec::new();
                    for id in mine.iter().chain(mine.iter()) {
                        statuses.push(browser.post(&format!("/orders/{id}/strung"), &[("csrf", &csrf)]).status);
                    }
                    statuses
                })
            })
            .collect();
        for client in clients {
            let statuses = client.join().unwrap();
            assert!(statuses.iter().all(|s| *s == 303), "every press answered: {statuses:?}");
        }
        for stringer in ["anna", "ben"] {
            let listed: serde_json::Value = serde_json::from_str(&ok(
                &db,
                &["order", "list", "--stringer", stringer, "--format", "json"],
            ))
            .unwrap();
            let mut seqs: Vec<i64> = listed
                .as_array()
                .unwrap()
                .iter()
                .filter(|o| o["customer"].as_str().is_some_and(|c| c.starts_with('C')))
                .map(|o| o["receipt_number"].as_str().expect("numbered")[5..].parse().unwrap())
                .collect();
            seqs.sort_unstable();
            assert_eq!(seqs, (1..=12).collect::<Vec<i64>>(), "{stringer}: each order one number, 1..12");
        }
        assert_eq!(journaled(&db, "mint").len(), 24, "one mint per order");
        let audit = run(&db, &["audit"]);
        assert_eq!(audit.code, 0, "{}", audit.stderr);
    }
}

/// A `multipart/form-data` body of text fields and one file, and its content type.
fn multipart(fields: &[(&str, &str)], file: (&str, &[u8])) -> (String, Vec<u8>) {
    let boundary = "receipts-test-boundary-7d41";
    let mut body = Vec::new();
    for (name, value) in fields {
        body.extend(
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n")
                .bytes(),
        );
    }
    body.extend(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{}\"\r\nContent-Type: text/xml\r\n\r\n",
            file.0
        )
        .bytes(),
    );
    body.extend_from_slice(file.1);
    body.extend(format!("\r\n--{boundary}--\r\n").bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

impl Browser {
    fn upload(&mut self, path: &str, fields: &[(&str, &str)], file: (&str, &[u8])) -> Answer {
        let (content_type, body) = multipart(fields, file);
        let mut request =
            self.agent.post(format!("{}{path}", self.base)).header("content-type", content_type);
        if !self.cookies.is_empty() {
            request = request.header("cookie", self.cookies.join("; "));
        }
        let response = request.send(&body[..]);
        self.answer(response)
    }
}

on_both_backends! {
    fn the_owner_imports_a_bank_file_and_sees_the_clis_report(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        use support::camt::{self, Entry, Message, Tx, Version};
        let orders = Shop::new(&db).stefan_with_invoices(&["30.00", "31.00"]);
        let stefan = stringer_id(&db, "stefan");
        account(&db, "olga", "stefan", "owner");
        account(&db, "sam", "stefan", "staff");
        let tx = Tx::paying(&qrr(stefan, 2026, 1), 3000, "CHF", "T1");
        let xml = camt::file(Message::Notification, Version::V08, &[Entry::booked("2026-03-30", "E1", vec![tx])]);
        let server = Server::start(&db, &[]);

        let mut sam = Browser::new(&server);
        sam.log_in("sam", PASSWORD);
        assert!(!sam.get("/").text().contains("href=\"/payments/import\""), "staff are not offered the bank file");
        assert_eq!(sam.get("/payments/import").status, 403, "staff do not import bank files");
        let csrf = sam.get("/").csrf();
        assert_eq!(sam.upload("/payments/import", &[("csrf", &csrf)], ("bank.xml", xml.as_bytes())).status, 403);

        let mut olga = Browser::new(&server);
        olga.log_in("olga", PASSWORD);
        assert!(olga.get("/").text().contains("href=\"/payments/import\""), "the owner's navigation offers it");
        let csrf = olga.get("/payments/import").csrf();
        // Not a bank file, or one cut off: the CLI's refusal, nothing applied.
        let cut = &xml.as_bytes()[..xml.len() / 2];
        for (name, bytes) in [("notes.txt", &b"hello"[..]), ("bank.xml", cut)] {
            let refused = olga.upload("/payments/import", &[("csrf", &csrf)], (name, bytes));
            assert_eq!(refused.status, 422, "{name}: {}", refused.text());
            assert!(refused.text().contains(name), "names the file: {}", refused.text());
        }
        // No token: 403, nothing applied.
        assert_eq!(olga.upload("/payments/import", &[], ("bank.xml", xml.as_bytes())).status, 403);
        let paid = |order: &str| {
            let shown: serde_json::Value =
                serde_json::from_str(&ok(&db, &["order", "show", order, "--format", "json"])).unwrap();
            shown["paid_at"].is_string()
        };
        assert!(!paid(&orders[0]));
        let dry = olga.upload("/payments/import", &[("csrf", &csrf), ("dry_run", "yes")], ("bank.xml", xml.as_bytes()));
        assert!(dry.text().contains("1 would be applied"), "{}", dry.text());
        assert!(!paid(&orders[0]), "a dry run applies nothing");
        let applied = olga.upload("/payments/import", &[("csrf", &csrf)], ("bank.xml", xml.as_bytes()));
        assert_eq!(applied.status, 200);
        let text = applied.text();
        assert!(text.contains("bank.xml (camt.054.001.08): 1 transaction, 1 applied"), "{text}");
        assert!(paid(&orders[0]) && !paid(&orders[1]));
        let again = olga.upload("/payments/import", &[("csrf", &csrf)], ("bank.xml", xml.as_bytes()));
        assert!(again.text().contains("1 applied by an earlier import"), "{}", again.text());
    }
}

on_both_backends! {
    fn every_request_gets_its_line_in_the_log(db: TestDb) {
        shop(&db);
        // A fresh server: its pool is still connecting when the first requests come.
        let server = Server::start(&db, &[]);
        for path in ["/healthz", "/login", "/healthz", "/nowhere", "/healthz"] {
            let status = Browser::new(&server).get(path).status;
            let line = format!("GET {path} {status} ");
            server.logged_until(|logged| logged.starts_with(&line));
        }
    }

    fn serve_closes_yesterday_after_the_first_request_of_a_day(db: TestDb) {
        let keys = tempfile::tempdir().unwrap();
        Shop::new(&db).stringer("stefan", "Stefan Muster", &[]).stringer("keyless", "No Key", &[]);
        // Midday yesterday in Zurich.
        let yesterday = (db.today() - chrono::Duration::days(1)).format("%Y-%m-%d 11:00:00").to_string();
        ok_at(&db, keys.path(), &yesterday, &["key", "init", "--stringer", "stefan"]);
        let order = ok(&db, &["order", "add", "--stringer", "stefan", "--customer", "Roger", "--price", "30"]);
        ok_at(&db, keys.path(), &yesterday, &["mint", "--order", &order]);
        let other = ok(&db, &["order", "add", "--stringer", "keyless", "--customer", "Anna", "--price", "20"]);
        ok_at(&db, keys.path(), &yesterday, &["mint", "--order", &other]);
        assert_eq!(db.query_i64("SELECT count(*) FROM closures"), Some(0));

        let server = Server::start(&db, &["--key-dir", keys.path().to_str().unwrap()]);
        let mut browser = Browser::new(&server);
        assert_eq!(browser.get("/login").status, 200);
        // The closing is logged once the page was answered, for each stringer.
        let mut closing = Vec::new();
        let log = server.logged_until(|line| {
            if line.starts_with("closing ") {
                closing.push(line.to_string());
            }
            closing.len() == 2
        });
        let stefan = closing.iter().find(|l| l.contains(" of stefan: ")).unwrap_or_else(|| panic!("{log:?}"));
        assert!(stefan.contains(": closure 1 of "), "{stefan}");
        let keyless = closing.iter().find(|l| l.contains(" of keyless: ")).unwrap_or_else(|| panic!("{log:?}"));
        assert!(keyless.contains("skipped, no key at"), "{keyless}");
        let answered = log.iter().position(|l| l.starts_with("GET /login 200")).expect("the request was answered");
        let closed = log.iter().position(|l| l.contains(" of stefan: ")).unwrap();
        assert!(answered < closed, "the page is answered first: {log:?}");
        assert_eq!(db.query_i64("SELECT count(*) FROM closures"), Some(1));
        // Later requests of the day close nothing more: a closing the first of them began
        // would be logged before the answer to the one after it is read.
        assert_eq!(browser.get("/login").status, 200);
        let mut more = server.logged_until(|line| line.starts_with("GET /login"));
        assert_eq!(browser.get("/login").status, 200);
        more.extend(server.logged_until(|line| line.starts_with("GET /login")));
        assert!(more.iter().all(|l| !l.starts_with("closing ")), "{more:?}");
        assert_eq!(run(&db, &["audit", "--verify"]).code, 0);
    }

    fn serve_closes_a_stringers_day_at_midnight_in_the_stringers_zone(db: TestDb) {
        // New Year's Eve in Zurich, an hour before it is over in UTC.
        let db = db.with_clock_at("2026-12-31 08:00");
        let keys = tempfile::tempdir().unwrap();
        Shop::new(&db).stringer("stefan", "Stefan Muster", &[]);
        ok_at(&db, keys.path(), "2026-12-31 08:00:00", &["key", "init", "--stringer", "stefan"]);
        let order = ok(&db, &["order", "add", "--stringer", "stefan", "--customer", "Roger", "--price", "30"]);
        ok_at(&db, keys.path(), "2026-12-31 12:00:00", &["mint", "--order", &order]);

        // The counter runs from 23:58 in Zurich on a clock thirty times as fast.
        let mut serve = receipts(&db);
        clock_started_at(&mut serve, "2026-12-31 22:58:00 x30");
        let server = Server::spawn(&mut serve, &["--key-dir", keys.path().to_str().unwrap()]);
        let mut browser = Browser::new(&server);
        let date = |answer: &Answer| {
            let date = answer.headers.get("date").expect("a Date header").to_str().unwrap();
            chrono::DateTime::parse_from_rfc2822(date).unwrap().naive_utc()
        };
        let first = browser.get("/login");
        let midnight = utc("2026-12-31 23:00");
        assert!(date(&first) < midnight, "the first request comes before midnight in Zurich");
        let log = server.logged_until(|line| line.starts_with("closing "));
        assert!(log.last().unwrap().starts_with("closing 2026-12-30 of stefan: nothing new to close"), "{log:?}");
        // Requests until one is answered after midnight in Zurich (still 2026 in UTC), each
        // once its line is logged.
        loop {
            let answer = browser.get("/login");
            server.logged_until(|line| line.starts_with("GET /login"));
            if date(&answer) >= midnight {
                assert!(date(&answer) < utc("2026-12-31 23:30"), "{:?}", date(&answer));
                break;
            }
        }
        let log = server.logged_until(|line| line.starts_with("closing "));
        assert!(log.last().unwrap().starts_with("closing 2026-12-31 of stefan: closure 1 of 2026-12-31 made"), "{log:?}");
        assert_eq!(db.query_text("SELECT CAST(day AS TEXT) FROM closures"), Some("2026-12-31".to_string()));
    }
}

on_both_backends! {
    fn the_pickup_form_offers_only_what_the_countrys_till_law_allows(db: TestDb) {
        let shop = Shop::new(&db);
        shop.stringer("hans", "Hans Saiten", &["--country", "DE", "--currency", "EUR"]);
        shop.account("hans", "hans", "staff");
        let order = shop.order("hans", &["--customer", "Iga", "--price", "30"]);
        ok(&db, &["mint", "--order", &order]);
        let server = Server::start(&db, &[]);
        let mut hans = Browser::new(&server);
        hans.log_in("hans", PASSWORD);
        let page = hans.get(&format!("/orders/{order}"));
        let text = page.text();
        for offered in ["value=\"card\"", "value=\"twint\"", "value=\"till\"", "value=\"transfer\""] {
            assert!(text.contains(offered), "{offered} in {text}");
        }
        for kept in ["value=\"cash\"", "value=\"other\""] {
            assert!(!text.contains(kept), "{kept} is offered in Germany: {text}");
        }
        // Cash posted anyway (a forged form) is refused, and nothing changes.
        let csrf = page.csrf();
        let forged = hans.post(&format!("/orders/{order}/pickup"), &[("csrf", &csrf), ("paid", "cash")]);
        assert_eq!(forged.status, 422, "{}", forged.text());
        assert!(forged.text().contains("certified till"), "{}", forged.text());
        let shown: serde_json::Value = serde_json::from_str(&ok(&db, &["order", "show", &order, "--format", "json"])).unwrap();
        assert!(shown["returned_at"].is_null() && shown["paid_at"].is_null(), "{shown}");
        let taken = hans.post(&format!("/orders/{order}/pickup"), &[("csrf", &csrf), ("paid", "till")]);
        assert_eq!(taken.status, 303);
        let takings = hans.get("/takings").text();
        assert!(takings.contains("Ladenkasse") || takings.contains("till"), "{takings}");
        // In Italy (and for a VAT-registered French shop) nothing but the till at the counter,
        // not even a transfer said to have arrived: that one comes with the bank file.
        shop.stringer("gino", "Gino Corde", &["--country", "IT", "--currency", "EUR"]);
        shop.account("gino", "gino", "staff");
        let order = shop.order("gino", &["--customer", "Iga", "--price", "30"]);
        ok(&db, &["mint", "--order", &order]);
        let mut gino = Browser::new(&server);
        gino.log_in("gino", PASSWORD);
        let page = gino.get(&format!("/orders/{order}"));
        let text = page.text();
        assert!(text.contains("value=\"till\""), "{text}");
        for kept in ["cash", "card", "twint", "transfer", "other"] {
            assert!(!text.contains(&format!("value=\"{kept}\"")), "{kept} is offered in Italy: {text}");
        }
        let forged = gino.post(&format!("/orders/{order}/pickup"), &[("csrf", &page.csrf()), ("paid", "transfer")]);
        assert_eq!(forged.status, 422, "{}", forged.text());
    }
}

on_both_backends! {
    fn the_owner_sees_what_reminders_are_due_and_reminds_once(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let shop = Shop::new(&db);
        shop.stringer("anna", "Anna Muster", &["--email", "shop@example.ch", "--iban", "CH93 0076 2011 6238 5295 7", "--postcode", "8001", "--town", "Zürich", "--country", "CH"]);
        shop.stringer("ben", "ben", &[]);
        shop.account("olga", "anna", "owner").account("anna", "anna", "staff").account("ben", "ben", "owner");
        let mailed = shop.minted("anna", &["--customer", "Roger <script>", "--price", "55", "--email", "roger@example.com"], "2026-03-02 10:00");
        let posted = shop.minted("anna", &["--customer", "Iga", "--price", "40"], "2026-03-03 10:00");
        for order in [&mailed, &posted] {
            ok(&db, &["order", "pickup", order]);
        }
        let sink = support::smtp::Sink::start(support::smtp::Behaviour::Accept);
        let server = Server::start(&db, &["--smtp-url", &sink.url(None)]);

        // Staff do not see the owner's page.
        let mut anna = Browser::new(&server);
        anna.log_in("anna", PASSWORD);
        assert_eq!(anna.get("/reminders").status, 403);

        let mut olga = Browser::new(&server);
        olga.log_in("olga", PASSWORD);
        let page = olga.get("/reminders");
        assert_eq!(page.status, 200, "{}", page.text());
        let text = page.text();
        assert!(text.contains("2026-0001") && text.contains("roger@example.com") && text.contains("55.00 CHF"), "{text}");
        assert!(text.contains("Roger &#60;script&#62;") && !text.contains("<script>"), "escaped: {text}");
        assert!(text.contains("2026-0002") && text.contains("by post"), "{text}");
        assert!(text.contains("No bank file was imported yet"), "{text}");
        assert_eq!(text.matches(">Remind</button>").count(), 2, "{text}");
        let csrf = page.csrf();

        // A forged post (no token) and another stringer's owner change nothing.
        assert_eq!(olga.post(&format!("/reminders/{mailed}"), &[]).status, 403);
        let mut ben = Browser::new(&server);
        ben.log_in("ben", PASSWORD);
        let bens = ben.get("/reminders").csrf();
        assert_eq!(ben.post(&format!("/reminders/{mailed}"), &[("csrf", &bens)]).status, 404);
        assert_eq!(db.query_i64("SELECT count(*) FROM reminders"), Some(0));

        // Remind: e-mailed once; posted again, refused saying what was sent when.
        let sent = olga.post(&format!("/reminders/{mailed}"), &[("csrf", &csrf)]);
        assert_eq!(sent.status, 303, "{}", sent.text());
        assert_eq!(sink.received().len(), 1);
        let again = olga.post(&format!("/reminders/{mailed}"), &[("csrf", &csrf)]);
        assert_eq!(again.status, 422, "{}", again.text());
        assert!(again.text().contains("Reminder 1 was sent to roger@example.com on "), "{}", again.text());
        // For the post: issued, and its PDF comes back to print.
        let printed = olga.post(&format!("/reminders/{posted}"), &[("csrf", &csrf)]);
        assert_eq!(printed.status, 200, "{}", printed.text());
        assert!(printed.body.starts_with(b"%PDF"), "a PDF to print");
        assert_eq!(db.query_i64("SELECT count(*) FROM reminders WHERE printed_at IS NOT NULL"), Some(1));
        let page = olga.get("/reminders").text();
        assert!(!page.contains(">Remind</button>"), "nothing due any more: {page}");
        assert_eq!(journaled(&db, "reminder").len(), 2);
    }
}

/// The rows of the counter's `/takings` table: (payments, amount, VAT), totals included.
fn takings_rows(page: &str) -> Vec<(String, String, String)> {
    page.split("<tr")
        .skip(2)
        .map(|row| {
            let cells: Vec<&str> = row
                .split("<td")
                .skip(1)
                .map(|cell| cell.split('>').nth(1).unwrap().split('<').next().unwrap())
                .collect();
            (cells[3].to_string(), cells[4].to_string(), cells[5].to_string())
        })
        .collect()
}

on_both_backends! {
    fn a_days_money_is_summed_alike_by_takings_the_counter_the_closure_and_the_auditors_export(db: TestDb) {
        use support::camt::{self, Entry, Message, Tx, Version};
        // The 30th of November in Zurich: invoices of March, reminded in November.
        let db = db.with_clock_at(TESTS_DAY);
        let shop = Shop::new(&db);
        shop.stringer("stefan", "Stefan Muster Bespannungen", &[
            "--iban", "CH44 3199 9123 0008 8901 2", "--postcode", "8001", "--town", "Zürich", "--country", "CH",
            "--vat-number", "CHE-116.281.710 MWST", "--vat-rate", "8.1", "--vat-from", "2024-01-01", "--reminder-fee", "2=5",
        ]);
        let orders = shop.invoices("stefan", "CHF", &["90.00", "40.00", "35.00", "20.00"]);
        account(&db, "olga", "stefan", "owner");
        let [credited, refunded, reminded, till] = [0, 1, 2, 3].map(|i| orders[i].clone());
        let keys = tempfile::tempdir().unwrap();
        ok(&db, &["order", "pickup", &reminded]);
        let post = tempfile::tempdir().unwrap();
        let post = post.path().to_str().unwrap();
        ok_at(&db, keys.path(), "2026-11-10 09:00:00", &["remind", &reminded, "--out-dir", post]);
        ok_at(&db, keys.path(), "2026-11-25 09:00:00", &["remind", &reminded, "--out-dir", post]);
        ok_at(&db, keys.path(), "2026-11-30 08:00:00", &["key", "init"]);

        // The day: 90.00 credited by 30.00, then paid by card; 40.00 paid in cash and 10.00 of
        // it paid back at the counter; 35.00 with the reminder's 5.00 by the bank; 20.00
        // through the shop's certified till.
        ok(&db, &["order", "pickup", &credited]);
        ok(&db, &["credit", &credited, "--reason", "no overgrip", "--amount", "30"]);
        // (A second on: the time is written to the second, the credit note's to the microsecond.)
        let paid = (db.now() + chrono::Duration::seconds(1)).format("%Y-%m-%dT%H:%M:%SZ").to_string();
        ok(&db, &["order", "edit", &credited, "--paid-at", &paid, "--method", "card"]);
        ok(&db, &["order", "pickup", &refunded, "--paid", "cash"]);
        ok(&db, &["credit", &refunded, "--reason", "grip charged twice", "--amount", "10", "--refund", "cash"]);
        let stefan = stringer_id(&db, "stefan");
        let bank = tempfile::tempdir().unwrap();
        let file = bank.path().join("camt.xml");
        let tx = Tx::paying(&qrr(stefan, 2026, 3), 4000, "CHF", "BANK-1");
        std::fs::write(&file, camt::file(Message::Notification, Version::V08, &[Entry::booked("2026-11-30", "E1", vec![tx])])).unwrap();
        ok(&db, &["payments", "import", file.to_str().unwrap()]);
        ok(&db, &["order", "pickup", &till, "--paid", "till"]);

        // 1. takings: per method, and the program's total without the till's.
        let takings: serde_json::Value = serde_json::from_str(&ok(&db, &["takings", "--format", "json"])).unwrap();
        let lines: Vec<(String, String, String)> = takings.as_array().unwrap().iter()
            .map(|l| (l["payments"].to_string(), l["amount"].as_str().unwrap().to_string(), l["vat"].as_str().unwrap().to_string()))
            .collect();
        let mut net: std::collections::BTreeMap<String, i64> = std::collections::BTreeMap::new();
        for line in takings.as_array().unwrap() {
            let method = line["method"].as_str().unwrap().trim_end_matches(" refund").to_string();
            let cents = |amount: &str| (amount.parse::<f64>().unwrap() * 100.0).round() as i64;
            *net.entry(method).or_default() += cents(line["amount"].as_str().unwrap());
        }
        let expected: std::collections::BTreeMap<String, i64> =
            [("card", 6000), ("cash", 3000), ("till", 2000), ("total", 13000), ("transfer", 4000)]
                .into_iter().map(|(m, a)| (m.to_string(), a)).collect();
        assert_eq!(net, expected, "{takings}");

        // 2. The counter's /takings: the same lines.
        let server = Server::start(&db, &[]);
        let mut olga = Browser::new(&server);
        olga.log_in("olga", PASSWORD);
        assert_eq!(takings_rows(&olga.get("/takings").text()), lines);

        // 3. The day's closure: payments per method, the till's apart.
        let closed: serde_json::Value = serde_json::from_str(&ok_at(&db, keys.path(), &db.now().format("%Y-%m-%d %H:%M:%S").to_string(), &["close", "--format", "json"])).unwrap();
        let totals = &closed[0]["totals"];
        let closed_net: std::collections::BTreeMap<String, i64> = ["payments", "till"]
            .iter()
            .flat_map(|book| totals[book].as_object().unwrap().iter())
            .map(|(key, sum)| (key.trim_end_matches(" CHF").to_string(), sum["amount_minor"].as_str().unwrap().parse().unwrap()))
            .collect();
        let without_total: std::collections::BTreeMap<String, i64> = expected.iter().filter(|(m, _)| *m != "total").map(|(m, a)| (m.clone(), *a)).collect();
        assert_eq!(closed_net, without_total, "{totals}");

        // 4. The auditor's export: its payments, per method.
        let audit = tempfile::tempdir().unwrap();
        ok(&db, &["export", "--auditor", "--year", "2026", "--out-dir", audit.path().to_str().unwrap()]);
        let mut exported: std::collections::BTreeMap<String, i64> = std::collections::BTreeMap::new();
        let payments = std::fs::read_to_string(audit.path().join("payments.csv")).unwrap();
        for row in payments.lines() {
            let cells: Vec<&str> = row.split(';').collect();
            let amount = cells[3].parse::<f64>().unwrap_or_else(|e| panic!("{row}: {e}"));
            *exported.entry(cells[2].to_string()).or_default() += (amount * 100.0).round() as i64;
        }
        assert_eq!(exported, without_total, "{payments}");

        // The closure carries the day's VAT: per series and rate, the sum of its documents'
        // own VAT as the export lists them.
        let documents = std::fs::read_to_string(audit.path().join("documents.csv")).unwrap();
        let vat_of = |kind: &str| -> i64 {
            documents.lines().map(|row| row.split(';').collect::<Vec<_>>()).filter(|cells| cells[1] == kind)
                .map(|cells| (cells[10].parse::<f64>().unwrap() * 100.0).round() as i64).sum()
        };
        let document = |key: &str| (totals["documents"][key]["amount_minor"].as_str().map(str::to_string), totals["documents"][key]["vat_minor"].as_str().map(str::to_string));
        assert_eq!(document("receipts CHF 810"), (Some("18500".into()), Some(vat_of("receipt").to_string())), "{totals}");
        assert_eq!(document("credits CHF 810"), (Some("-4000".into()), Some(vat_of("credit_note").to_string())), "{totals}");
        assert_eq!(vat_of("receipt"), 674 + 300 + 262 + 150, "each document's VAT rounded on its own");
        let shown = ok_at(&db, keys.path(), &db.now().format("%Y-%m-%d %H:%M:%S").to_string(), &["close"]);
        assert!(shown.contains("documents receipts CHF 8.1 %: 4 × 185.00, VAT 13.86"), "{shown}");
        assert!(shown.contains("grand total credits CHF 8.1 %: 2 × -40.00, VAT -3.00"), "{shown}");
        assert_eq!(run(&db, &["audit", "--verify"]).code, 0);
    }
}

on_both_backends! {
    /// `receipts setup --link` renews the code: the one the server logged stops working, the
    /// new one opens the form; a shop with an account logs no code and answers 404.
    fn a_new_setup_link_replaces_the_logged_code(db: TestDb) {
        let server = Server::start(&db, &[]);
        let logged = server.logged_until(|line| line.contains("/setup?code="));
        let code = |line: &str| line.split("/setup?code=").nth(1).unwrap().split_whitespace().next().unwrap().to_string();
        let logged_code = code(logged.last().unwrap());
        assert!(logged_code.len() >= 32, "at least 128 bits");
        let mut browser = Browser::new(&server);
        assert_eq!(browser.get(&format!("/setup?code={logged_code}")).status, 200);
        let renewed = code(&ok(&db, &["setup", "--link"]));
        assert_eq!(browser.get(&format!("/setup?code={logged_code}")).status, 404);
        let form = browser.get(&format!("/setup?code={renewed}"));
        assert_eq!(form.status, 200);
        // A post with another code is a page that does not exist; with the code but a refused
        // answer, the form again: nothing written either way.
        let whole = [("name", "Mallory"), ("handle", "mallory"), ("country", "CH"), ("timezone", "UTC"), ("owner", "mallory"), ("password", "correct horse battery")];
        let wrong = Browser::new(&server).post("/setup", &[&[("code", logged_code.as_str())], &whole[..]].concat());
        assert_eq!(wrong.status, 404);
        let refused = Browser::new(&server).post("/setup", &[("code", renewed.as_str()), ("language", "en"), ("handle", "mallory")]);
        assert_eq!(refused.status, 422);
        assert_eq!(db.query_i64("SELECT count(*) FROM stringers"), Some(0));
        drop(server);

        shop(&db);
        let server = Server::start(&db, &[]);
        let mut browser = Browser::new(&server);
        assert_eq!(browser.get(&format!("/setup?code={renewed}")).status, 404);
        assert!(!browser.get("/login").text().contains("not set up"));
        assert!(server.logged().iter().all(|line| !line.contains("/setup?code=")));
    }
}

on_both_backends! {
    fn the_counter_hands_out_e_invoices_and_takes_the_customers_business_ids(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let profile = [
            "--vat-number", "DE123456788", "--vat-rate", "19", "--vat-from", "2024-01-01", "--iban",
            "DE89370400440532013000", "--street", "Hauptstrasse", "--postcode", "10115", "--town", "Berlin",
            "--country", "DE", "--currency", "EUR", "--language", "de",
        ];
        Shop::new(&db).stringer("anna", "Anna Cordes", &profile).stringer("ben", "ben", &[]);
        Shop::new(&db).account("anna", "anna", "staff").account("ben", "ben", "staff");
        let address = ["--street", "Sportweg", "--postcode", "80331", "--town", "München", "--country", "DE"];
        let club = ok(&db, &[&["customer", "add", "Tennisclub", "--stringer", "anna"][..], &address].concat());
        let server = Server::start(&db, &[]);
        let mut anna = Browser::new(&server);
        anna.language = Some("de");
        anna.log_in("anna", PASSWORD);

        // A VAT ID the German tax office would refuse: the form again, in German, the value
        // kept and the field marked; nothing saved.
        let page = anna.get(&format!("/customers/{club}"));
        assert!(page.text().contains("USt-IdNr."), "{}", page.text());
        let csrf = page.csrf();
        let refused = anna.post(&format!("/customers/{club}"), &[("csrf", &csrf), ("vat_id", "DE12345678"), ("buyer_reference", "<b>PO</b>")]);
        assert_eq!(refused.status, 422, "{}", refused.text());
        assert!(refused.text().contains("Die USt-IdNr. beginnt mit dem Ländercode"), "{}", refused.text());
        assert!(refused.text().contains(r#"name="vat_id" value="DE12345678" aria-invalid="true""#), "{}", refused.text());
        assert!(refused.text().contains(r#"value="&#60;b&#62;PO&#60;/b&#62;""#), "what was typed is escaped: {}", refused.text());
        assert_eq!(db.query_text(&format!("SELECT business FROM customers WHERE id = {club}")), None);
        let saved = anna.post(&format!("/customers/{club}"), &[("csrf", &csrf), ("vat_id", "DE 811 907 980"), ("buyer_reference", "PO-4711")]);
        assert_eq!((saved.status, saved.location.clone()), (303, Some(format!("/customers/{club}"))));
        assert!(anna.get(&format!("/customers/{club}")).text().contains(r#"name="vat_id" value="DE811907980""#));

        // Its order's document: the hybrid by default (a buyer with a VAT ID), and the
        // e-invoice on its own link; both journaled, and listed on the page.
        let order = Shop::new(&db).minted("anna", &["--customer-id", &club, "--price", "35"], "2026-03-02 10:00");
        let pdf = anna.get(&format!("/orders/{order}/receipt.pdf"));
        assert_eq!(pdf.status, 200);
        assert!(String::from_utf8_lossy(&pdf.body).contains("factur-x.xml"), "the default makes it the hybrid");
        let einvoice = anna.get(&format!("/orders/{order}/einvoice"));
        assert_eq!(einvoice.status, 200);
        assert_eq!(einvoice.headers.get("content-type").unwrap(), "application/pdf");
        assert_eq!(einvoice.body, pdf.body, "the same frozen document");
        assert_eq!(journaled(&db, "einvoice").len(), 2);
        let page = anna.get(&format!("/orders/{order}")).text();
        assert!(page.contains(&format!(r#"href="/orders/{order}/einvoice">E-Rechnung</a>"#)), "{page}");
        assert!(page.contains("2026-0001 facturx_pdf"), "{page}");

        // A document that cannot be one says why, in the page's language.
        let roger = Shop::new(&db).minted("anna", &["--customer", "Roger", "--price", "20"], "2026-03-03 10:00");
        let refused = anna.get(&format!("/orders/{roger}/einvoice"));
        assert_eq!(refused.status, 422);
        assert!(refused.text().contains("kann keine E-Rechnung sein"), "{}", refused.text());
        assert!(!refused.text().contains("receipts "), "no command is named to the browser: {}", refused.text());

        // Another stringer's order is not there.
        let mut ben = Browser::new(&server);
        ben.log_in("ben", PASSWORD);
        assert_eq!(ben.get(&format!("/orders/{order}/einvoice")).status, 404);
        let csrf = ben.get("/").csrf();
        assert_eq!(ben.post(&format!("/customers/{club}"), &[("csrf", &csrf), ("vat_id", "")]).status, 404);
        assert_eq!(journaled(&db, "einvoice").len(), 2);

        // An Italian shop's e-invoice is the FatturaPA file, to save and send to SdI.
        let profile = [
            "--street", "Via Roma", "--postcode", "00184", "--town", "Roma", "--country", "IT", "--currency", "EUR",
            "--vat-number", "IT01234567897", "--regime", "RF19",
        ];
        Shop::new(&db).stringer("giulia", "Giulia Corde", &profile).account("giulia", "giulia", "staff");
        let roman = ["--street", "Via dei Monti", "--postcode", "00197", "--town", "Roma", "--country", "IT"];
        let ids = ["--vat-id", "IT12345678903", "--sdi-code", "ABC1234"];
        let circolo = ok(&db, &[&["customer", "add", "Circolo", "--stringer", "giulia"][..], &roman, &ids].concat());
        let italian = Shop::new(&db).minted("giulia", &["--customer-id", &circolo, "--price", "90"], "2026-03-02 10:00");
        let mut giulia = Browser::new(&server);
        giulia.log_in("giulia", PASSWORD);
        let file = giulia.get(&format!("/orders/{italian}/einvoice"));
        assert_eq!(file.status, 200, "{}", file.text());
        assert_eq!(file.headers.get("content-type").unwrap(), "application/xml");
        let disposition = file.headers.get("content-disposition").unwrap().to_str().unwrap().to_string();
        assert!(disposition.starts_with("attachment; filename=\"IT01234567897_") && disposition.ends_with(".xml\""), "{disposition}");
        assert!(file.text().contains("<FormatoTrasmissione>FPR12</FormatoTrasmissione>"), "{}", file.text());
        assert_eq!(journaled(&db, "einvoice").last().unwrap()["field"], "fatturapa");
    }
}
