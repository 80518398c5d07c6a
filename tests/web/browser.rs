//! The counter in a real browser (SPEC 20): headless Chromium driven over WebDriver by
//! chromedriver, through the pages as a person at the counter uses them, on a phone's
//! 360 px and at a desk. Debian's `chromium` and `chromium-driver` must be installed
//! (scripts/test installs them); without them these tests fail, never pass.
//!
//! With `RECEIPTS_SCREENSHOTS=DIR` they also leave the pictures of the README in DIR
//! (scripts/screenshots).

use super::web::Server;
use super::*;
use crate::on_both_backends;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};

/// How wide the browser is, and how it says so.
#[derive(Clone, Copy)]
enum Screen {
    /// A phone: 360 CSS px, touch, the viewport meta tag honoured.
    Phone,
    Desk,
}

impl Screen {
    fn width(self) -> i64 {
        match self {
            Screen::Phone => 360,
            Screen::Desk => 1280,
        }
    }

    fn chrome_options(self) -> Value {
        let mut args = vec![
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            // The test machines have no network beyond loopback: no calls home.
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--lang=en-US",
        ];
        match self {
            Screen::Phone => json!({
                "args": args,
                "mobileEmulation": {"deviceMetrics": {"width": 360, "height": 740, "pixelRatio": 2.0, "touch": true}},
            }),
            Screen::Desk => {
                args.push("--window-size=1280,900");
                json!({ "args": args })
            }
        }
    }
}

/// A chromedriver process with one headless Chromium session, both ended when dropped.
struct Chrome {
    driver: Child,
    client: Option<Client>,
}

impl Chrome {
    async fn start(screen: Screen) -> Chrome {
        let (driver, port) = Chrome::driver();
        let mut capabilities = serde_json::Map::new();
        capabilities.insert("goog:chromeOptions".into(), screen.chrome_options());
        let client = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(capabilities)
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
            .unwrap_or_else(|e| panic!("Chromium does not start under chromedriver: {e}"));
        Chrome { driver, client: Some(client) }
    }

    /// A chromedriver on a port of its choosing, and that port. Now and then it exits at once
    /// with "bind() failed: Address already in use" (seen with other test programs busy on
    /// the machine): then a new one picks another port.
    fn driver() -> (Child, u16) {
        let mut taken = Vec::new();
        for _ in 0..5 {
            // What it says when it cannot start goes to a file, for the failure to show.
            let said = tempfile::NamedTempFile::new().unwrap();
            let mut driver = real_clock(&mut std::process::Command::new("chromedriver"))
                .arg("--port=0")
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(said.reopen().unwrap())
                .spawn()
                .unwrap_or_else(|e| {
                    panic!("chromedriver cannot start ({e}): install Debian's chromium and chromium-driver (scripts/test does)")
                });
            // It says on which port it listens once it does: no waiting by the clock.
            let mut lines = BufReader::new(driver.stdout.take().unwrap()).lines();
            let port = lines.by_ref().map_while(Result::ok).find_map(|line| {
                let (_, rest) = line.split_once("started successfully on port ")?;
                rest.trim_end_matches('.').parse::<u16>().ok()
            });
            if let Some(port) = port {
                std::thread::spawn(move || lines.for_each(drop));
                return (driver, port);
            }
            let status = driver.wait().ok();
            let said = std::fs::read_to_string(said.path()).unwrap_or_default();
            assert!(
                said.contains("Address already in use"),
                "chromedriver did not start ({status:?}): {said}"
            );
            taken.push(said);
        }
        panic!("chromedriver found no free port: {taken:?}")
    }

    fn client(&self) -> &Client {
        self.client.as_ref().unwrap()
    }

    /// Ends the browser's session (the browser with it).
    async fn close(mut self) {
        self.client.take().unwrap().close().await.unwrap();
    }
}

impl Drop for Chrome {
    fn drop(&mut self) {
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// The page's text as a person reads it.
async fn text(c: &Client) -> String {
    c.find(Locator::Css("body")).await.unwrap().text().await.unwrap()
}

/// The button labelled `label`.
async fn button(c: &Client, label: &str) -> fantoccini::elements::Element {
    c.find(Locator::XPath(&format!("//button[normalize-space()='{label}']")))
        .await
        .unwrap_or_else(|e| panic!("no button {label:?}: {e}"))
}

/// Clicks and waits for the next page to have `ready` (a CSS selector).
async fn click_to(c: &Client, element: fantoccini::elements::Element, ready: &str) {
    element.click().await.unwrap();
    c.wait()
        .for_element(Locator::Css(ready))
        .await
        .unwrap_or_else(|e| panic!("no {ready} after a click: {e}"));
}

/// The page is as wide as the screen and no wider: nothing scrolls sideways.
async fn fits(c: &Client, screen: Screen, page: &str) {
    let widths =
        c.execute("return [window.innerWidth, document.documentElement.scrollWidth]", vec![]).await.unwrap();
    let (inner, scroll) = (widths[0].as_i64().unwrap(), widths[1].as_i64().unwrap());
    assert_eq!(inner, screen.width(), "{page} is laid out for {} px", screen.width());
    assert!(scroll <= inner, "{page} scrolls sideways at {inner} px: {scroll} px wide");
}

/// What the browser gets at `href` with its session: (status, content type, first bytes).
async fn fetched(c: &Client, href: &str) -> (i64, String, String) {
    let got = c
        .execute_async(
            "const [href, done] = arguments;
             fetch(href).then(r => r.arrayBuffer().then(b => done([r.status,
                 r.headers.get('content-type'), String.fromCharCode(...new Uint8Array(b.slice(0, 5)))])))
               .catch(e => done([0, String(e), '']));",
            vec![json!(href)],
        )
        .await
        .unwrap();
    (got[0].as_i64().unwrap(), got[1].as_str().unwrap_or_default().into(), got[2].as_str().unwrap().into())
}

/// Leaves a picture of the page for the README when asked to (scripts/screenshots).
async fn picture(c: &Client, db: &TestDb, name: &str) {
    let Ok(dir) = std::env::var("RECEIPTS_SCREENSHOTS") else { return };
    if db.url.starts_with("postgres") {
        return;
    }
    let png = c.screenshot().await.unwrap();
    std::fs::write(std::path::Path::new(&dir).join(format!("{name}.png")), png).unwrap();
}

/// A stringer with an account, and a customer whose racket was strung once before.
fn shop_with_a_regular(db: &TestDb) {
    let shop = Shop::new(db);
    shop.stringer("anna", "anna", &[]).account("anna", "anna", "staff").account("olga", "anna", "owner");
    let order = |customer, racket, string, tension, price| {
        let flags = ["--customer", customer, "--racket", racket, "--string", string, "--tension", tension];
        shop.order("anna", &[&flags[..], &["--price", price]].concat())
    };
    let before = order("Roger Müller", "Pure Aero", "RPM Blast 1.25", "24/23 kg", "38");
    ok(db, &["mint", "--order", &before]);
    order("Iga Nowak", "Blade 98", "Hawk 1.20", "22 kg", "30");
}

/// Log in, take an order for a known customer "same as last time", Strung (pressed in two
/// tabs: one number, shown in both), the receipt and the label, pickup paid in cash, the
/// takings; the owner credits part of it, the form posted twice: one credit note.
async fn a_day_at_the_counter(db: &TestDb, screen: Screen) {
    shop_with_a_regular(db);
    let server = Server::start(db, &[]);
    let chrome = Chrome::start(screen).await;
    let c = chrome.client();

    c.goto(&format!("{}/", server.base)).await.unwrap();
    assert_eq!(c.current_url().await.unwrap().path(), "/login", "no session: the login page");
    fits(c, screen, "the login page").await;
    c.find(Locator::Css("input[name=username]")).await.unwrap().send_keys("anna").await.unwrap();
    c.find(Locator::Css("input[name=password]")).await.unwrap().send_keys(PASSWORD).await.unwrap();
    click_to(c, button(c, "Log in").await, "nav").await;
    assert!(text(c).await.contains("Iga Nowak"), "the queue: {}", text(c).await);
    fits(c, screen, "the queue").await;

    click_to(c, c.find(Locator::LinkText("Customers")).await.unwrap(), "form.search").await;
    c.find(Locator::Css("input[name=q]")).await.unwrap().send_keys("muller").await.unwrap();
    // The results' page says what was searched (the first page lists everyone, him too).
    click_to(c, button(c, "Search").await, "input[name=q][value=muller]").await;
    fits(c, screen, "the customers").await;
    let roger = c.find(Locator::XPath("//a[contains(., 'Roger Müller')]")).await.unwrap();
    click_to(c, roger, "h2").await;
    assert!(text(c).await.contains("RPM Blast 1.25 24/23 kg"), "last time's: {}", text(c).await);
    fits(c, screen, "the customer").await;
    let racket = c.find(Locator::XPath("//a[contains(., 'Pure Aero')]")).await.unwrap();
    click_to(c, racket, "input[name=same]").await;
    let same = c.find(Locator::Css("input[name=same]")).await.unwrap();
    assert!(same.is_selected().await.unwrap(), "same as last time, ticked");
    fits(c, screen, "the new order").await;
    c.find(Locator::Css("input[name=price]")).await.unwrap().send_keys("38").await.unwrap();
    click_to(c, button(c, "Take the order").await, "div.actions").await;
    let page = text(c).await;
    assert!(page.contains("RPM Blast 1.25") && page.contains("24/23 kg"), "the same as last time: {page}");
    let order = c.current_url().await.unwrap().path().trim_start_matches("/orders/").to_string();
    order.parse::<i64>().unwrap_or_else(|_| panic!("the order's page, not {order}"));

    // The same page open twice (a second tab, a second device): Strung pressed in both.
    let first = c.window().await.unwrap();
    let second = c.new_window(true).await.unwrap().handle;
    c.switch_to_window(second.clone()).await.unwrap();
    c.goto(&format!("{}/orders/{order}", server.base)).await.unwrap();
    let mut shown = Vec::new();
    for tab in [first, second] {
        c.switch_to_window(tab).await.unwrap();
        click_to(c, button(c, "Strung").await, "span.number").await;
        shown.push(c.find(Locator::Css("span.number")).await.unwrap().text().await.unwrap());
    }
    // Both presses reached the server (its log says so), each answered with the page.
    let pressed = format!("POST /orders/{order}/strung 303");
    let mut presses = 0;
    server.logged_until(|line| {
        presses += usize::from(line.starts_with(&pressed));
        presses == 2
    });
    let json: Value = serde_json::from_str(&ok(db, &["order", "show", &order, "--format", "json"])).unwrap();
    let number = json["receipt_number"].as_str().unwrap();
    assert_eq!(shown, [number, number], "both show the one number minted");
    assert!(number.ends_with("-0002"), "the next number after last time's: {number}");
    assert_eq!(journaled(db, "mint").len(), 2, "pressed twice, minted once");
    c.close_window().await.unwrap();
    c.switch_to_window(c.windows().await.unwrap()[0].clone()).await.unwrap();
    fits(c, screen, "the strung order").await;
    if let Screen::Phone = screen {
        picture(c, db, "counter-phone").await;
    }

    for (link, kind) in [("Receipt", "receipt"), ("Label", "label")] {
        let href = c.find(Locator::LinkText(link)).await.unwrap().attr("href").await.unwrap().unwrap();
        let (status, content_type, head) = fetched(c, &href).await;
        assert_eq!(
            (status, content_type.as_str(), head.as_str()),
            (200, "application/pdf", "%PDF-"),
            "the {kind}"
        );
    }

    c.find(Locator::Css("select[name=paid]")).await.unwrap().select_by_value("cash").await.unwrap();
    button(c, "Picked up").await.click().await.unwrap();
    c.wait().for_element(Locator::XPath("//dt[normalize-space()='Picked up']")).await.unwrap();
    let json: Value = serde_json::from_str(&ok(db, &["order", "show", &order, "--format", "json"])).unwrap();
    assert_eq!(json["payment_method"], "cash");

    click_to(c, c.find(Locator::LinkText("Takings")).await.unwrap(), "table").await;
    let row =
        c.find(Locator::XPath("//tr[td[1][normalize-space()='cash']]")).await.unwrap().text().await.unwrap();
    assert!(row.contains("CHF") && row.contains("38.00"), "the day's cash: {row}");
    fits(c, screen, "the takings").await;

    // The regular's name typed short at the counter: asked once which customer it is (the
    // regular offered), never a near-duplicate added without a word.
    click_to(c, c.find(Locator::LinkText("New order")).await.unwrap(), "input[type=datetime-local]").await;
    fits(c, screen, "the new order form").await;
    c.find(Locator::Css("input[name=customer]")).await.unwrap().send_keys("Roger Mül").await.unwrap();
    c.find(Locator::Css("input[name=price]")).await.unwrap().send_keys("20").await.unwrap();
    click_to(c, button(c, "Take the order").await, "fieldset.choices").await;
    fits(c, screen, "the customers offered").await;
    let regular = "//label[contains(., 'Roger Müller')]/input[@name='customer_pick']";
    c.find(Locator::XPath(regular)).await.unwrap().click().await.unwrap();
    click_to(c, button(c, "Take the order").await, "div.actions").await;
    let taken = c.current_url().await.unwrap().path().trim_start_matches("/orders/").to_string();
    let json: Value = serde_json::from_str(&ok(db, &["order", "show", &taken, "--format", "json"])).unwrap();
    assert_eq!(json["customer"], "Roger Müller", "the regular's order");
    let customers: Value = serde_json::from_str(&ok(db, &["customer", "list", "--format", "json"])).unwrap();
    assert_eq!(customers.as_array().unwrap().len(), 2, "nobody added");

    click_to(c, c.find(Locator::LinkText("Queue")).await.unwrap(), "ul.orders").await;
    if let Screen::Desk = screen {
        picture(c, db, "queue-desk").await;
    }

    // The owner takes back part of the paid order: the form, filled in, posted twice at once
    // (a double click): one credit note, which the page then names and links.
    click_to(c, button(c, "Log out").await, "input[name=username]").await;
    c.find(Locator::Css("input[name=username]")).await.unwrap().send_keys("olga").await.unwrap();
    c.find(Locator::Css("input[name=password]")).await.unwrap().send_keys(PASSWORD).await.unwrap();
    click_to(c, button(c, "Log in").await, "nav").await;
    c.goto(&format!("{}/orders/{order}", server.base)).await.unwrap();
    assert!(c.find(Locator::XPath("//button[normalize-space()='Void']")).await.is_err(), "paid: no Void");
    assert!(c.find(Locator::Css("form.credit")).await.is_ok(), "the owner's Credit: {}", text(c).await);
    c.find(Locator::Css("form.credit input[name=reason]"))
        .await
        .unwrap()
        .send_keys("Grip charged twice")
        .await
        .unwrap();
    c.find(Locator::Css("form.credit input[name=amount]")).await.unwrap().send_keys("5").await.unwrap();
    c.find(Locator::Css("form.credit select[name=refund]"))
        .await
        .unwrap()
        .select_by_value("cash")
        .await
        .unwrap();
    fits(c, screen, "the credit form").await;
    let statuses = c
        .execute_async(
            "const done = arguments[0];
             const form = document.querySelector('form.credit');
             const post = () => fetch(form.action, { method: 'POST', body: new URLSearchParams(new FormData(form)), redirect: 'manual' });
             Promise.all([post(), post()]).then(rs => done(rs.map(r => r.type))).catch(e => done([String(e)]));",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(
        statuses,
        json!(["opaqueredirect", "opaqueredirect"]),
        "both posts answered with the order's page"
    );
    c.refresh().await.unwrap();
    let link = c.find(Locator::Css("a.credit-note")).await.unwrap();
    assert_eq!(link.text().await.unwrap(), format!("C-{}-0001", db.this_year()));
    assert_eq!(journaled(db, "credit").len(), 1, "posted twice, one credit note");
    let href = link.attr("href").await.unwrap().unwrap();
    let (status, content_type, head) = fetched(c, &href).await;
    assert_eq!((status, content_type.as_str(), head.as_str()), (200, "application/pdf", "%PDF-"));
    let json: Value = serde_json::from_str(&ok(db, &["takings", "--format", "json"])).unwrap();
    assert!(
        json.as_array().unwrap().iter().any(|l| l["method"] == "cash refund" && l["amount"] == "-5.00"),
        "{json}"
    );
    chrome.close().await;
}

fn in_the_browser(db: TestDb, screen: Screen) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(a_day_at_the_counter(&db, screen));
}

on_both_backends! {
    fn a_day_at_the_counter_on_a_phone(db: TestDb) {
        in_the_browser(db, Screen::Phone);
    }

    fn a_day_at_the_counter_at_a_desk(db: TestDb) {
        in_the_browser(db, Screen::Desk);
    }
}

/// The owner's reminders on a phone: an overdue invoice listed with its amount and the
/// customer's address, **Remind** pressed, the message at the mail server, and nothing due
/// any more.
async fn reminding_on_a_phone(db: &TestDb) {
    let shop = Shop::new(db);
    shop.stringer("anna", "Anna Muster", &["--email", "shop@example.ch"]).account("olga", "anna", "owner");
    let flags = [
        "--customer",
        "Roger Müller",
        "--racket",
        "Pure Aero",
        "--price",
        "38",
        "--email",
        "roger@example.com",
    ];
    let order = shop.minted("anna", &flags, "2026-03-02 10:00");
    ok(db, &["order", "pickup", &order]);
    let sink = support::smtp::Sink::start(support::smtp::Behaviour::Accept);
    let server = Server::start(db, &["--smtp-url", &sink.url(None)]);
    let chrome = Chrome::start(Screen::Phone).await;
    let c = chrome.client();
    c.goto(&format!("{}/login", server.base)).await.unwrap();
    c.find(Locator::Css("input[name=username]")).await.unwrap().send_keys("olga").await.unwrap();
    c.find(Locator::Css("input[name=password]")).await.unwrap().send_keys(PASSWORD).await.unwrap();
    click_to(c, button(c, "Log in").await, "nav").await;
    click_to(c, c.find(Locator::LinkText("Reminders")).await.unwrap(), "table").await;
    let row = c
        .find(Locator::XPath("//tr[td[2][normalize-space()='Roger Müller']]"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        row.contains("2026-0001") && row.contains("38.00 CHF") && row.contains("roger@example.com"),
        "{row}"
    );
    fits(c, Screen::Phone, "the reminders").await;
    button(c, "Remind").await.click().await.unwrap();
    // Back on the list, which has nothing due any more.
    c.wait().for_element(Locator::XPath("//p[normalize-space()='Nothing here.']")).await.unwrap();
    assert!(
        c.find(Locator::XPath("//button[normalize-space()='Remind']")).await.is_err(),
        "sent: {}",
        text(c).await
    );
    assert_eq!(sink.received().len(), 1);
    assert_eq!(sink.received()[0].to, ["roger@example.com"]);
    assert_eq!(journaled(db, "reminder").len(), 1);
    chrome.close().await;
}

on_both_backends! {
    fn the_owner_reminds_an_overdue_invoice_on_a_phone(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(reminding_on_a_phone(&db));
    }
}

/// The first run in the browser on a phone, as the shop's owner meets it: the login page
/// says the shop is not set up; `/setup` is 404 without the code the server logged; with
/// it, the questions, a refused answer shown with the form kept, then the owner signed in
/// at the queue; the code used up.
async fn setting_up_on_a_phone(db: &TestDb) {
    let keys = tempfile::tempdir().unwrap();
    let server = Server::start(db, &["--key-dir", keys.path().to_str().unwrap()]);
    let logged = server.logged_until(|line| line.contains("/setup?code="));
    let address =
        logged.last().unwrap().split_whitespace().find(|w| w.contains("/setup?code=")).unwrap().to_string();
    assert!(address.starts_with(&format!("{}/setup?code=", server.base)), "{address}");
    let chrome = Chrome::start(Screen::Phone).await;
    let c = chrome.client();

    c.goto(&format!("{}/login", server.base)).await.unwrap();
    assert!(text(c).await.contains("This shop is not set up yet"), "{}", text(c).await);
    assert_eq!(fetched(c, "/setup").await.0, 404);
    assert_eq!(fetched(c, "/setup?code=0123456789abcdef0123456789abcdef").await.0, 404);

    c.goto(&address).await.unwrap();
    fits(c, Screen::Phone, "the setup").await;
    let fill = |name: &'static str, value: &'static str| async move {
        let input = c.find(Locator::Css(&format!("input[name={name}]"))).await.unwrap();
        input.clear().await.unwrap();
        input.send_keys(value).await.unwrap();
    };
    fill("name", "Saitenwerk Muster").await;
    fill("handle", "stefan").await;
    fill("country", "XX").await;
    fill("timezone", "Europe/Zurich").await;
    fill("address", "Bahnhofstrasse 1, 8001 Zürich").await;
    fill("iban", "CH93 0076 2011 6238 5295 7").await;
    fill("owner", "stefan").await;
    fill("password", "correct horse battery").await;
    click_to(c, button(c, "Set up the shop").await, "input[name=country][aria-invalid=true]").await;
    assert!(text(c).await.contains("\"XX\" is not a country code"), "{}", text(c).await);
    let kept = c.find(Locator::Css("input[name=name]")).await.unwrap().prop("value").await.unwrap();
    assert_eq!(kept.as_deref(), Some("Saitenwerk Muster"), "what was typed is kept");
    fill("country", "CH").await;
    fill("password", "correct horse battery").await;
    click_to(c, button(c, "Set up the shop").await, "nav").await;
    assert_eq!(c.current_url().await.unwrap().path(), "/", "signed in, at the queue");

    // Used up: 404 for everyone, whatever code.
    assert_eq!(fetched(c, &address).await.0, 404);
    let shown: Value =
        serde_json::from_str(&ok(db, &["stringer", "show", "stefan", "--format", "json"])).unwrap();
    assert_eq!(
        (shown["name"].as_str(), shown["currency"].as_str()),
        (Some("Saitenwerk Muster"), Some("CHF"))
    );
    assert_eq!(shown["language"], "en", "the browser's language");
    assert!(keys.path().join("stefan.ed25519").exists(), "the closures' signing key was made");
    chrome.close().await;
}

on_both_backends! {
    fn the_shop_is_set_up_in_the_browser_with_the_logged_code_once(db: TestDb) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(setting_up_on_a_phone(&db));
    }
}

/// A business customer on a phone, in German: the VAT ID typed wrong is refused with the
/// form kept and the field marked, typed right it is saved; the order's page then offers the
/// e-invoice, which the browser fetches as the hybrid PDF.
async fn a_business_customer_on_a_phone(db: &TestDb) {
    let profile = [
        "--vat-number",
        "DE123456788",
        "--vat-rate",
        "19",
        "--vat-from",
        "2024-01-01",
        "--street",
        "Hauptstrasse",
        "--postcode",
        "10115",
        "--town",
        "Berlin",
        "--country",
        "DE",
        "--currency",
        "EUR",
        "--language",
        "de",
    ];
    Shop::new(db).stringer("anna", "Anna Cordes", &profile);
    let added =
        add_account(db, &["anna", "--stringer", "anna", "--role", "staff", "--language", "de"], PASSWORD);
    assert!(added.status.success(), "{}", String::from_utf8_lossy(&added.stderr));
    let address = ["--street", "Sportweg", "--postcode", "80331", "--town", "München", "--country", "DE"];
    let club =
        ok(db, &[&["customer", "add", "Tennisclub Blau-Weiss", "--stringer", "anna"][..], &address].concat());
    let server = Server::start(db, &[]);
    let chrome = Chrome::start(Screen::Phone).await;
    let c = chrome.client();
    c.goto(&format!("{}/login", server.base)).await.unwrap();
    c.find(Locator::Css("input[name=username]")).await.unwrap().send_keys("anna").await.unwrap();
    c.find(Locator::Css("input[name=password]")).await.unwrap().send_keys(PASSWORD).await.unwrap();
    click_to(c, button(c, "Log in").await, "nav").await;
    c.goto(&format!("{}/customers/{club}", server.base)).await.unwrap();
    fits(c, Screen::Phone, "the customer").await;
    let vat = c.find(Locator::Css("input[name=vat_id]")).await.unwrap();
    vat.send_keys("DE12345678").await.unwrap();
    click_to(c, button(c, "Speichern").await, "p.problem").await;
    assert!(text(c).await.contains("Die USt-IdNr. beginnt mit dem Ländercode"), "{}", text(c).await);
    let vat = c.find(Locator::Css("input[name=vat_id][aria-invalid=true]")).await.unwrap();
    assert_eq!(vat.prop("value").await.unwrap().as_deref(), Some("DE12345678"), "what was typed is kept");
    vat.clear().await.unwrap();
    vat.send_keys("DE811907980").await.unwrap();
    click_to(c, button(c, "Speichern").await, "form.business").await;
    assert!(c.find(Locator::Css("p.problem")).await.is_err(), "{}", text(c).await);
    assert_eq!(
        db.query_text(&format!("SELECT business FROM customers WHERE id = {club}")).as_deref(),
        Some("DE811907980\n\n\n\n")
    );
    let order = Shop::new(db).minted("anna", &["--customer-id", &club, "--price", "35"], "2026-03-02 10:00");
    c.goto(&format!("{}/orders/{order}", server.base)).await.unwrap();
    let link = c.find(Locator::LinkText("E-Rechnung")).await.unwrap();
    let href = link.attr("href").await.unwrap().unwrap();
    assert_eq!(fetched(c, &href).await, (200, "application/pdf".to_string(), "%PDF-".to_string()));
    assert_eq!(journaled(db, "einvoice").len(), 1);
    // A part paid at the counter: the page lists it and asks for the rest.
    fits(c, Screen::Phone, "the order").await;
    c.find(Locator::Css("form.pay input[name=amount]")).await.unwrap().send_keys("10").await.unwrap();
    click_to(c, button(c, "Zahlung erfassen").await, "dd.parts").await;
    let page = text(c).await;
    assert!(page.contains("Teilzahlungen") && page.contains("10.00 EUR"), "{page}");
    let due = c.find(Locator::Css("dd.still-due")).await.unwrap().text().await.unwrap();
    assert_eq!(due, "25.00 EUR");
    let shown: serde_json::Value =
        serde_json::from_str(&ok(db, &["order", "show", &order, "--format", "json"])).unwrap();
    assert_eq!((shown["part_paid"].as_str(), shown["still_due"].as_str()), (Some("10.00"), Some("25.00")));
    chrome.close().await;
}

on_both_backends! {
    fn a_business_customer_gets_an_e_invoice_on_a_phone(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(a_business_customer_on_a_phone(&db));
    }
}
