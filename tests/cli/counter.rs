//! The day at the counter (SPEC section 19) through the binary: promised times and the
//! queue across midnight in the stringer's zone, ready notices through a real SMTP server,
//! pickup and payment on the spot with the till's count, labels measured on the page and
//! decoded by a real QR decoder, string stock, and items in every figure that uses the total.

use super::*;
use crate::on_both_backends;
use chrono::{Duration, TimeZone, Timelike, Utc};
use chrono_tz::Tz;
use support::smtp::{Behaviour, Sink};

/// A zone where it is now between 08:00 and 16:00, so that "later today" exists and
/// "tomorrow" starts at a midnight of the stringer's own (a few hours from UTC's).
fn daytime_zone() -> Tz {
    let now = Utc::now();
    [
        "Pacific/Auckland",
        "Asia/Tokyo",
        "Asia/Kolkata",
        "Europe/Zurich",
        "America/New_York",
        "America/Los_Angeles",
        "Pacific/Honolulu",
    ]
    .iter()
    .map(|name| name.parse::<Tz>().unwrap())
    .find(|zone| (8..16).contains(&now.with_timezone(zone).hour()))
    .expect("one of the zones is in its working day")
}

/// Local wall-clock time in `zone`, `days` from today, at `hh:mm`, as `order add` takes it.
fn local(zone: Tz, days: i64, hm: (u32, u32)) -> String {
    let day = Utc::now().with_timezone(&zone).date_naive() + Duration::days(days);
    let at = zone.from_local_datetime(&day.and_hms_opt(hm.0, hm.1, 0).unwrap()).earliest().unwrap();
    at.format("%Y-%m-%d %H:%M").to_string()
}

fn json(db: &TestDb, args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&ok(db, args)).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

/// A stringer of the shop, who sends from shop@example.ch.
fn stringer(db: &TestDb, handle: &str, zone: &str) {
    ok(db, &["stringer", "add", handle, "--name", "Stefan Muster Bespannungen", "--timezone", zone]);
    ok(db, &["stringer", "edit", handle, "--email", "shop@example.ch"]);
}

fn add(db: &TestDb, args: &[&str]) -> String {
    let mut all = vec!["order", "add"];
    all.extend_from_slice(args);
    ok(db, &all)
}

on_both_backends! {
    fn the_queue_shows_the_days_work_by_promised_time_then_the_rackets_waiting(db: TestDb) {
        let zone = daytime_zone();
        stringer(&db, "stefan", zone.name());
        let late = add(&db, &["--customer", "Late", "--ordered-at", &local(zone, -3, (9, 0)), "--due", "+2d"]);
        // Promised for 00:30 tomorrow of the stringer's calendar: not today, whatever UTC's date.
        let tomorrow = add(&db, &["--customer", "Tomorrow", "--due", &local(zone, 1, (0, 30))]);
        let tonight = add(&db, &["--customer", "Tonight", "--due", &local(zone, 0, (23, 45))]);
        let later = add(&db, &["--customer", "Later", "--due", &local(zone, 3, (10, 0))]);
        // Without --due: the stringer's turnaround after drop-off.
        ok(&db, &["stringer", "edit", "stefan", "--turnaround", "48"]);
        let turnaround = add(&db, &["--customer", "Default", "--ordered-at", &local(zone, 0, (7, 0))]);
        let shown = json(&db, &["order", "show", &turnaround, "--format", "json"]);
        let ordered = chrono::DateTime::parse_from_rfc3339(shown["ordered_at"].as_str().unwrap()).unwrap();
        let due = chrono::DateTime::parse_from_rfc3339(shown["due_at"].as_str().unwrap()).unwrap();
        assert_eq!(due - ordered, Duration::hours(48));
        // Strung three local days ago, and long ago; one picked up; the stringer's own.
        // (Minted in the order they were strung: numbers follow time.)
        let forgotten = add(&db, &["--customer", "Forgotten", "--price", "30"]);
        ok(&db, &["mint", "--order", &forgotten, "--at", &local(zone, -70, (11, 0))]);
        let waiting = add(&db, &["--customer", "Waiting", "--price", "30"]);
        ok(&db, &["mint", "--order", &waiting, "--at", &local(zone, -3, (11, 0))]);
        let collected = add(&db, &["--customer", "Collected", "--price", "30"]);
        ok(&db, &["mint", "--order", &collected, "--at", &local(zone, -2, (11, 0))]);
        ok(&db, &["order", "pickup", &collected]);
        let own = add(&db, &["--kind", "self", "--customer", "Me"]);
        ok(&db, &["mint", "--order", &own, "--at", &local(zone, -1, (11, 0))]);

        let queue = json(&db, &["queue", "--format", "json"]);
        let rows: Vec<(String, String, String)> = queue
            .as_array()
            .unwrap()
            .iter()
            .map(|row| {
                let text = |key: &str| row[key].as_str().unwrap_or_default().to_string();
                (text("section"), row["order"].to_string(), text("due"))
            })
            .collect();
        let expected = [
            ("open", &late, "overdue".to_string()),
            ("open", &tonight, "today".to_string()),
            ("open", &tomorrow, "tomorrow".to_string()),
            ("open", &turnaround, local(zone, 2, (7, 0))[..10].to_string()),
            ("open", &later, local(zone, 3, (10, 0))[..10].to_string()),
        ];
        let expected: Vec<(String, String, String)> =
            expected.iter().map(|(s, o, d)| (s.to_string(), o.to_string(), d.clone())).collect();
        assert_eq!(rows[..5], expected[..], "{queue:#}");
        assert_eq!(rows[5..].iter().map(|r| (r.0.as_str(), r.1.as_str())).collect::<Vec<_>>(), [("waiting", waiting.as_str())]);
        let row = &queue[5];
        assert_eq!((row["days_waiting"].as_i64(), row["notified"].as_bool(), row["paid"].as_str()), (Some(3), Some(false), Some("unpaid")));
        assert!(queue[0]["overdue"].as_bool().unwrap() && !queue[1]["overdue"].as_bool().unwrap());
        // The table says the same for people.
        let table = ok(&db, &["queue"]);
        assert!(table.starts_with("to string (5)"), "{table}");
        assert!(table.contains("OVERDUE") && table.contains("waiting for pickup (1)"), "{table}");
        // Older rackets waiting are in the order list.
        let listed = json(&db, &["order", "list", "--status", "waiting", "--format", "json"]);
        let ids: Vec<String> = listed.as_array().unwrap().iter().map(|o| o["id"].to_string()).collect();
        assert_eq!(ids, [forgotten.clone(), waiting.clone()]);
    }

    fn a_racket_picked_up_and_paid_on_the_spot_is_counted_in_the_till(db: TestDb) {
        stringer(&db, "stefan", "Europe/Zurich");
        ok(&db, &["stringer", "edit", "stefan", "--vat-number", "CHE-123.456.788 MWST", "--vat-rate", "8.1", "--vat-from", "2026-01-01"]);
        let mut orders = Vec::new();
        for (price, currency) in [("30", "CHF"), ("45.50", "CHF"), ("20", "EUR"), ("25", "CHF")] {
            let order = add(&db, &["--customer", "Roger", "--price", price, "--currency", currency]);
            ok(&db, &["mint", "--order", &order]);
            orders.push(order);
        }
        let today = ok(&db, &["queue", "--format", "csv"]);
        assert!(today.lines().count() == 5, "{today}");
        ok(&db, &["order", "pickup", &orders[0], "--paid", "cash"]);
        ok(&db, &["order", "pickup", &orders[1], "--paid", "card"]);
        ok(&db, &["order", "pickup", &orders[2], "--paid", "cash"]);
        // Picked up without paying: the invoice stands.
        let out = run(&db, &["order", "pickup", &orders[3]]);
        assert!(out.stderr.contains("not paid yet"), "{}", out.stderr);
        let shown = json(&db, &["order", "show", &orders[0], "--format", "json"]);
        assert_eq!((shown["status"].as_str(), shown["payment_method"].as_str()), (Some("paid"), Some("cash")));
        assert_eq!(shown["paid_at"], shown["returned_at"]);
        let unpaid = json(&db, &["order", "show", &orders[3], "--format", "json"]);
        assert!(unpaid["returned_at"].is_string() && unpaid["paid_at"].is_null());
        // Journaled: four pickups, three payments with their method.
        assert_eq!(journaled(&db, "pickup").len(), 4);
        let payments: Vec<String> =
            journaled(&db, "payment").iter().map(|e| e["reason"].as_str().unwrap().to_string()).collect();
        assert_eq!(payments, ["paid at pickup: cash", "paid at pickup: card", "paid at pickup: cash"]);
        // Nobody waits any more.
        assert_eq!(json(&db, &["order", "list", "--status", "waiting", "--format", "json"]), serde_json::json!([]));
        // The evening count: per method and currency, VAT per rate beside it.
        let takings = json(&db, &["takings", "--format", "json"]);
        let lines: Vec<(String, String, String, String, String)> = takings
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                let text = |key: &str| l[key].as_str().unwrap().to_string();
                (text("method"), text("currency"), text("vat_rate"), text("amount"), text("vat"))
            })
            .collect();
        let line = |m: &str, c: &str, r: &str, a: &str, v: &str| (m.into(), c.into(), r.into(), a.into(), v.into());
        assert_eq!(
            lines,
            [
                line("card", "CHF", "8.1", "45.50", "3.41"),
                line("cash", "CHF", "8.1", "30.00", "2.25"),
                line("cash", "EUR", "8.1", "20.00", "1.50"),
                line("total", "CHF", "", "75.50", "5.66"),
                line("total", "EUR", "", "20.00", "1.50"),
            ]
        );
        // Another day has none.
        let yesterday = (Utc::now().with_timezone(&chrono_tz::Europe::Zurich).date_naive() - Duration::days(1)).to_string();
        assert_eq!(json(&db, &["takings", "--date", &yesterday, "--format", "json"]), serde_json::json!([]));
    }

    fn what_cannot_be_picked_up_says_why_and_changes_nothing(db: TestDb) {
        stringer(&db, "stefan", "Europe/Zurich");
        let open = add(&db, &["--customer", "Roger", "--price", "30"]);
        let message = fails(&db, 1, &["order", "pickup", &open]);
        assert!(message.contains("is not strung, so its racket is not ready"), "{message}");
        let paid = add(&db, &["--customer", "Anna", "--price", "30"]);
        ok(&db, &["mint", "--order", &paid]);
        ok(&db, &["order", "edit", &paid, "--paid-at", &local(chrono_tz::Europe::Zurich, 0, (0, 0))]);
        let message = fails(&db, 1, &["order", "pickup", &paid, "--paid", "cash"]);
        assert!(message.contains("was paid on") && message.contains("pick it up without --paid"), "{message}");
        ok(&db, &["order", "pickup", &paid]);
        let message = fails(&db, 1, &["order", "pickup", &paid]);
        assert!(message.contains("was picked up on") && message.contains("picked up once"), "{message}");
        let void = add(&db, &["--customer", "Void", "--price", "30"]);
        ok(&db, &["mint", "--order", &void]);
        ok(&db, &["void", "--order", &void, "--reason", "wrong racket"]);
        let message = fails(&db, 1, &["order", "pickup", &void, "--paid", "cash"]);
        assert!(message.contains("is void"), "{message}");
        let strung = add(&db, &["--customer", "Boris", "--price", "30"]);
        ok(&db, &["mint", "--order", &strung]);
        let message = fails(&db, 2, &["order", "pickup", &strung, "--paid", "bitcoin"]);
        assert!(message.contains("bitcoin"), "{message}");
        let message = fails(&db, 65, &["order", "pickup", &strung, "--at", &local(chrono_tz::Europe::Zurich, 2, (10, 0))]);
        assert!(message.contains("before it happens"), "{message}");
        let message = fails(&db, 65, &["order", "pickup", &strung, "--at", "2019-05-01 10:00"]);
        assert!(message.contains("--backdate"), "{message}");
        // Nothing of that was written.
        let shown = json(&db, &["order", "show", &strung, "--format", "json"]);
        assert!(shown["returned_at"].is_null() && shown["paid_at"].is_null());
        assert_eq!(journaled(&db, "pickup").len(), 1);
        // A promise before the order was taken.
        let message = fails(&db, 65, &["order", "add", "--customer", "X", "--ordered-at", "2026-03-02 10:00", "--due", "2026-03-01 10:00"]);
        assert!(message.contains("lies before the order was taken"), "{message}");
        // Once picked up, the promise is history.
        let message = fails(&db, 1, &["order", "edit", &paid, "--due", "+3d"]);
        assert!(message.contains("its promised time is history"), "{message}");
    }
}

/// `receipts notify` against a mail server.
fn notify(db: &TestDb, url: &str, args: &[&str]) -> Output {
    let mut cmd = receipts(db);
    cmd.env("RECEIPTS_SMTP_URL", url).arg("notify").args(args);
    cmd.output().unwrap().into()
}

/// The journal's `notify` entries: (numbers, recipient, Message-ID).
fn notices(db: &TestDb) -> Vec<(String, String, String)> {
    journaled(db, "notify")
        .iter()
        .map(|e| {
            let text = |key: &str| e[key].as_str().unwrap_or_default().to_string();
            (text("numbers"), text("new"), text("reason"))
        })
        .collect()
}

/// A German-speaking shop with a racket strung for Roger Müller, who has an e-mail address.
fn ready_racket(db: &TestDb) -> String {
    stringer(db, "stefan", "Europe/Zurich");
    ok(
        db,
        &[
            "stringer",
            "edit",
            "stefan",
            "--language",
            "de",
            "--pickup-note",
            "Abholen Mo–Fr 9–18 Uhr, Seestrasse 5",
        ],
    );
    let roger = ok(db, &["customer", "add", "Roger Müller", "--email", "roger@example.com"]);
    ok(db, &["racket", "add", "--customer", &roger, "--model", "Pure Aero", "--tag", "T17"]);
    let order = add(
        db,
        &["--racket-tag", "T17", "--string", "RPM Blast 1.25", "--tension", "24/23 kg", "--price", "35.50"],
    );
    ok(db, &["mint", "--order", &order]);
    order
}

on_both_backends! {
    fn the_customer_is_told_once_that_the_racket_is_ready(db: TestDb) {
        let order = ready_racket(&db);
        let sink = Sink::start(Behaviour::Accept);
        let out = notify(&db, &sink.url(None), &[&order]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let received = sink.received();
        assert_eq!(received.len(), 1);
        assert_eq!((received[0].from.as_str(), received[0].to.as_slice()), ("shop@example.ch", &["roger@example.com".to_string()][..]));
        let message = mail_parser::MessageParser::default().parse(&received[0].data).unwrap();
        assert_eq!(message.subject(), Some("Ihr Schläger ist bereit – Stefan Muster Bespannungen"));
        assert_eq!(message.attachment_count(), 0, "a notice is not a document");
        let body = message.body_text(0).unwrap();
        for said in ["Guten Tag Roger Müller", "(Pure Aero (T17)) ist besaitet", "RPM Blast 1.25, 24/23 kg", "Zu bezahlen: CHF 35.50", "Abholen Mo–Fr 9–18 Uhr"] {
            assert!(body.contains(said), "{said:?}:\n{body}");
        }
        let journaled = notices(&db);
        assert_eq!(journaled.len(), 1);
        assert_eq!((journaled[0].0.clone(), journaled[0].1.as_str()), (format!("{}-0001", db.this_year()), "roger@example.com"));
        assert_eq!(journaled[0].2, format!("<{}>", message.message_id().unwrap()));
        let queue = json(&db, &["queue", "--format", "json"]);
        assert_eq!(queue[0]["notified"], serde_json::json!(true));
        // Once, unless asked again.
        let again = notify(&db, &sink.url(None), &[&order]);
        assert_eq!(again.code, 1, "{}", again.stderr);
        assert!(again.stderr.contains("was told on") && again.stderr.contains("(roger@example.com)") && again.stderr.contains("--again"), "{}", again.stderr);
        assert_eq!(notify(&db, &sink.url(None), &[&order, "--again"]).code, 0);
        assert_eq!((sink.received().len(), notices(&db).len()), (2, 2));
        // Paid: the notice says so.
        ok(&db, &["order", "edit", &order, "--paid-at", &local(chrono_tz::Europe::Zurich, 0, (0, 0))]);
        assert_eq!(notify(&db, &sink.url(None), &[&order, "--again"]).code, 0);
        let paid = mail_parser::MessageParser::default().parse(&sink.received()[2].data).unwrap().body_text(0).unwrap().into_owned();
        assert!(paid.contains("Bezahlt: CHF 35.50 – vielen Dank."), "{paid}");
    }

    fn nothing_is_journaled_when_the_server_does_not_take_the_notice(db: TestDb) {
        let order = ready_racket(&db);
        let refusing = Sink::start(Behaviour::RefuseRecipient("roger@example.com".into()));
        let out = notify(&db, &refusing.url(None), &[&order]);
        assert_eq!(out.code, 1, "{}", out.stderr);
        assert!(out.stderr.contains("refused the message"), "{}", out.stderr);
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let out = notify(&db, &format!("smtp://127.0.0.1:{port}"), &[&order]);
        assert_eq!(out.code, 69, "{}", out.stderr);
        assert!(notices(&db).is_empty());
        assert_eq!(json(&db, &["order", "show", &order, "--format", "json"])["notified_at"], serde_json::Value::Null);
        let sink = Sink::start(Behaviour::Accept);
        assert_eq!(notify(&db, &sink.url(None), &[&order]).code, 0);
        assert_eq!(notices(&db).len(), 1);
    }
}

#[test]
fn pending_notices_go_on_past_a_failure_and_a_rerun_sends_the_rest() {
    let db = TestDb::postgres();
    ready_racket(&db);
    for (customer, email) in [("Anna", "anna@example.com"), ("Boris", "boris@example.com")] {
        let order = add(&db, &["--customer", customer, "--price", "20", "--email", email]);
        ok(&db, &["mint", "--order", &order]);
    }
    // Not among them: no e-mail address, not strung, picked up.
    let without = add(&db, &["--customer", "Carla", "--price", "20"]);
    ok(&db, &["mint", "--order", &without]);
    add(&db, &["--customer", "Dora", "--price", "20", "--email", "dora@example.com"]);
    let gone = add(&db, &["--customer", "Emil", "--price", "20", "--email", "emil@example.com"]);
    ok(&db, &["mint", "--order", &gone]);
    ok(&db, &["order", "pickup", &gone]);
    let planned = json(&db, &["notify", "--pending", "--dry-run", "--format", "json"]);
    let to: Vec<&str> = planned.as_array().unwrap().iter().map(|p| p["to"].as_str().unwrap()).collect();
    assert_eq!(to, ["roger@example.com", "anna@example.com", "boris@example.com"]);
    let refusing = Sink::start(Behaviour::RefuseRecipient("anna@example.com".into()));
    let out = notify(&db, &refusing.url(None), &["--pending"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("2 notices sent, 1 failed"), "{}", out.stderr);
    assert_eq!(refusing.received().len(), 2);
    let sink = Sink::start(Behaviour::Accept);
    let out = notify(&db, &sink.url(None), &["--pending"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(sink.received().iter().map(|r| r.to[0].as_str()).collect::<Vec<_>>(), ["anna@example.com"]);
    assert_eq!(notices(&db).len(), 3);
}

#[test]
fn mint_notify_strings_and_tells_and_what_cannot_be_told_says_why() {
    let db = TestDb::sqlite();
    stringer(&db, "stefan", "Europe/Zurich");
    let sink = Sink::start(Behaviour::Accept);
    let order = add(
        &db,
        &["--customer", "Roger", "--racket", "Blade", "--price", "30", "--email", "roger@example.com"],
    );
    let mut cmd = receipts(&db);
    let out: Output = cmd
        .env("RECEIPTS_SMTP_URL", sink.url(None))
        .args(["mint", "--order", &order, "--notify"])
        .output()
        .unwrap()
        .into();
    let number = format!("{}-0001", db.this_year());
    assert_eq!((out.code, out.stdout.trim()), (0, number.as_str()), "{}", out.stderr);
    assert_eq!(sink.received().len(), 1);
    let received = sink.received();
    let message = mail_parser::MessageParser::default().parse(&received[0].data).unwrap();
    assert_eq!(message.subject(), Some("Your racket is ready – Stefan Muster Bespannungen"));
    // Minted again: the same number, nobody told twice.
    let mut cmd = receipts(&db);
    let again: Output = cmd
        .env("RECEIPTS_SMTP_URL", sink.url(None))
        .args(["mint", "--order", &order, "--notify"])
        .output()
        .unwrap()
        .into();
    assert_eq!((again.code, again.stdout.trim()), (0, number.as_str()), "{}", again.stderr);
    assert_eq!(sink.received().len(), 1);
    // No mail server: refused before anything is minted.
    let open = add(&db, &["--customer", "Anna", "--price", "30"]);
    assert!(fails(&db, 2, &["mint", "--order", &open, "--notify"]).contains("--smtp-url"));
    assert_eq!(
        json(&db, &["order", "show", &open, "--format", "json"])["receipt_number"],
        serde_json::Value::Null
    );
    // Not strung, no e-mail address.
    let message = notify(&db, &sink.url(None), &[&open]);
    assert_eq!(message.code, 1);
    assert!(message.stderr.contains("is not strung"), "{}", message.stderr);
    ok(&db, &["mint", "--order", &open]);
    let message = notify(&db, &sink.url(None), &[&open]);
    assert_eq!(message.code, 65);
    assert!(message.stderr.contains("has no customer e-mail address"), "{}", message.stderr);
    assert_eq!(sink.received().len(), 1);
}

/// A PDF's page count and the size of its first page in points.
fn pages(pdf: &std::path::Path) -> (usize, (f32, f32)) {
    let info = tool("pdfinfo", &[pdf.to_str().unwrap()]);
    let field = |name: &str| info.lines().find_map(|l| l.strip_prefix(name)).unwrap().trim().to_string();
    let size = field("Page size:");
    let mut numbers = size.split_whitespace().filter_map(|w| w.parse::<f32>().ok());
    (field("Pages:").parse().unwrap(), (numbers.next().unwrap(), numbers.next().unwrap()))
}

/// A word on a page and its box in points: text, left, top, right, bottom.
type Word = (String, f32, f32, f32, f32);

/// The words of a PDF with their boxes (pdftotext -bbox), and the page size.
fn words(pdf: &std::path::Path) -> (Vec<Word>, (f32, f32)) {
    let html = tool("pdftotext", &["-bbox", pdf.to_str().unwrap(), "-"]);
    let attribute = |tag: &str, name: &str| -> f32 {
        let start = tag.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
        tag[start..].split('"').next().unwrap().parse().unwrap()
    };
    let page = html.lines().find(|l| l.contains("<page ")).unwrap();
    let size = (attribute(page, "width"), attribute(page, "height"));
    let found = html
        .lines()
        .filter(|l| l.contains("<word "))
        .map(|l| {
            let text = l.split('>').nth(1).unwrap().split('<').next().unwrap().replace("&amp;", "&");
            (text, attribute(l, "xMin"), attribute(l, "yMin"), attribute(l, "xMax"), attribute(l, "yMax"))
        })
        .collect();
    (found, size)
}

on_both_backends! {
    fn a_label_is_a_page_of_the_labels_size_with_a_code_a_reader_decodes(db: TestDb) {
        let order = ready_racket(&db);
        let long = add(&db, &["--customer", "Zoé Bénédicte-Anne de la Fontaine-Schwarzenbach-Lévêque", "--racket", "Wilson Pro Staff 97 v14 Roger Federer Edition", "--string", "Luxilon Alu Power 1.25", "--cross-string", "Babolat VS Touch 1.30", "--price", "30"]);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("label.pdf");
        ok(&db, &["label", &long, "-o", path.to_str().unwrap()]);
        let (count, size) = pages(&path);
        assert_eq!(count, 1);
        assert!((size.0 - 62.0 * 72.0 / 25.4).abs() < 0.01 && (size.1 - 100.0 * 72.0 / 25.4).abs() < 0.01, "{size:?}");
        let codes = super::payment::codes(&path);
        assert_eq!(codes.iter().map(|c| c.text()).collect::<Vec<_>>(), [format!("receipts:order:{long}")]);
        let (found, page) = words(&path);
        for (text, left, top, right, bottom) in &found {
            assert!(*left >= 0.0 && *top >= 0.0 && *right <= page.0 && *bottom <= page.1, "{text:?} runs off the label: {found:?}");
        }
        let text: Vec<&str> = found.iter().map(|w| w.0.as_str()).collect();
        let text = text.join(" ");
        assert!(text.starts_with(&format!("#{long} Zoé Bénédicte-")), "{text}");
        assert!(text.contains('…'), "the long name is shortened: {text}");
        assert!(text.contains("Luxilon Alu Power 1.25 /") && text.contains("due "), "{text}");
        // An ordinary name a little too wide for the type is set smaller, never cut.
        let ordinary = add(&db, &["--customer", "Roger Federer-Muster", "--price", "30"]);
        let ordinary_path = dir.path().join("ordinary.pdf");
        ok(&db, &["label", &ordinary, "-o", ordinary_path.to_str().unwrap()]);
        let (found, _) = words(&ordinary_path);
        let name: Vec<_> = found.iter().filter(|w| w.0 == "Roger" || w.0 == "Federer-Muster").collect();
        assert_eq!(name.len(), 2, "the whole name, uncut: {found:?}");
        assert!(name.iter().all(|w| w.4 - w.2 >= 7.0), "still readable: {name:?}");
        ok(&db, &["order", "delete", &ordinary]);
        // The tag on the racket's label; the order's page with a base URL; the other size.
        let tagged = dir.path().join("tagged.pdf");
        let mut cmd = receipts(&db);
        cmd.env("RECEIPTS_BASE_URL", "https://shop.example/").args(["label", &order, "--size", "4x6in", "-o", tagged.to_str().unwrap()]);
        let out: Output = cmd.output().unwrap().into();
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!(pages(&tagged), (1, (288.0, 432.0)));
        assert_eq!(super::payment::codes(&tagged)[0].text(), format!("https://shop.example/orders/{order}"));
        assert!(words(&tagged).0.iter().any(|w| w.0 == "(T17)"), "the racket's tag, once");
        // One page per open order.
        let third = add(&db, &["--customer", "Anna", "--price", "30"]);
        let queue = dir.path().join("queue.pdf");
        ok(&db, &["label", "--queue", "-o", queue.to_str().unwrap()]);
        assert_eq!(pages(&queue).0, 2);
        let decoded: Vec<String> = super::payment::codes(&queue).iter().map(|c| c.text()).collect();
        assert_eq!(decoded, [format!("receipts:order:{long}"), format!("receipts:order:{third}")]);
        // A size not offered, another stringer's order, a file that holds something else.
        assert!(fails(&db, 2, &["label", &order, "--size", "A4", "-o", "x.pdf"]).contains("'A4'"));
        assert_eq!(fails(&db, 1, &["label", "999", "-o", "x.pdf"]), "error: there is no order 999");
        let message = fails(&db, 73, &["label", &third, "-o", path.to_str().unwrap()]);
        assert!(message.contains("never overwrites"), "{message}");
    }
}

/// `strings list` as (string, metres, rackets, low).
fn stock(db: &TestDb) -> Vec<(String, String, i64, bool)> {
    json(db, &["strings", "list", "--format", "json"])
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["string"].as_str().unwrap().into(),
                s["metres"].as_str().unwrap().into(),
                s["rackets"].as_i64().unwrap(),
                s["low"].as_bool().unwrap(),
            )
        })
        .collect()
}

on_both_backends! {
    fn strung_rackets_use_the_string_in_stock(db: TestDb) {
        stringer(&db, "stefan", "Europe/Zurich");
        assert_eq!(ok(&db, &["strings", "add", "RPM Blast 1.25", "--length", "200", "--cost", "150"]), "200");
        ok(&db, &["strings", "add", "Alu Power", "--length", "30"]);
        ok(&db, &["strings", "add", "BG 80", "--length", "100", "--low", "50"]);
        // Any case and accents name the stocked string; 12 m of tennis unless the order says.
        let mint = |args: &[&str]| {
            let mut all = vec!["--customer", "Roger", "--price", "30"];
            all.extend_from_slice(args);
            let order = add(&db, &all);
            run(&db, &["mint", "--order", &order])
        };
        assert_eq!(mint(&["--string", "rpm blast 1.25"]).code, 0);
        assert_eq!(mint(&["--string", "RPM Blast 1.25", "--string-length", "11.5"]).code, 0);
        // The customer's own reel: none from stock.
        assert_eq!(mint(&["--string", "RPM Blast 1.25", "--own-string"]).code, 0);
        // A hybrid takes half from each.
        assert_eq!(mint(&["--string", "RPM Blast 1.25", "--cross-string", "Alu Power"]).code, 0);
        // A badminton racket of the register takes 10 m.
        let anna = ok(&db, &["customer", "add", "Anna"]);
        ok(&db, &["racket", "add", "--customer", &anna, "--model", "Astrox 88", "--sport", "badminton", "--tag", "B1"]);
        let order = add(&db, &["--racket-tag", "B1", "--string", "BG 80", "--price", "25"]);
        let out = run(&db, &["mint", "--order", &order]);
        assert!(!out.stderr.contains("warning"), "{}", out.stderr);
        // A string not stocked is strung all the same.
        assert_eq!(mint(&["--string", "Unknown 1.30"]).code, 0);
        assert_eq!(
            stock(&db),
            [
                ("Alu Power".to_string(), "24".to_string(), 4, false),
                ("BG 80".to_string(), "90".to_string(), 9, false),
                ("RPM Blast 1.25".to_string(), "170.5".to_string(), 28, false),
            ]
        );
        // Below two rackets' worth (or the mark given) the mint warns, and never refuses.
        let out = mint(&["--string", "Alu Power"]);
        assert!(out.stderr.contains("warning: Alu Power is low: 12.0 m left, 1 racket "), "{}", out.stderr);
        let out = mint(&["--string", "Alu Power"]);
        assert!(out.stderr.contains("warning: Alu Power is low: 0.0 m left, 0 rackets"), "{}", out.stderr);
        let out = mint(&["--string", "Alu Power"]);
        assert_eq!(out.code, 0, "an empty reel never stops a mint: {}", out.stderr);
        assert!(out.stderr.contains("Alu Power is low: -12.0 m left"), "{}", out.stderr);
        assert!(ok(&db, &["queue"]).contains("low stock: Alu Power is low"));
        // A reel of nothing, a reel without a name.
        assert!(fails(&db, 2, &["strings", "add", "X", "--length", "0"]).contains("more than 0"));
        assert_eq!(fails(&db, 65, &["strings", "add", " ", "--length", "10"]), "error: a string needs a name: the name given is empty");
        assert_eq!(stock(&db).len(), 3);
    }

    fn items_are_on_the_document_and_in_every_figure_that_uses_the_total(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        ok(&db, &["stringer", "add", "stefan", "--name", "Stefan Muster Bespannungen", "--timezone", "Europe/Zurich"]);
        ok(&db, &["stringer", "edit", "stefan", "--iban", "CH44 3199 9123 0008 8901 2", "--street", "Bahnhofstrasse", "--house-number", "1",
                  "--postcode", "8001", "--town", "Zürich", "--country", "CH", "--vat-number", "CHE-123.456.788 MWST", "--vat-rate", "8.1", "--vat-from", "2026-01-01"]);
        let order = add(&db, &["--customer", "Roger Federer", "--price", "25", "--item", "Overgrip=3.00", "--item", "Express service=10", "--ordered-at", "2026-03-02 09:00"]);
        let shown = json(&db, &["order", "show", &order, "--format", "json"]);
        assert_eq!((shown["price"].as_str(), shown["total"].as_str()), (Some("25.00"), Some("38.00")));
        assert_eq!(shown["items"][1]["text"], "Express service");
        ok(&db, &["mint", "--order", &order, "--at", "2026-03-02 10:00"]);
        // The document lists the stringing, the items and the total, VAT of the total.
        let text = ok(&db, &["receipt", &order]);
        for line in ["Stringing", "CHF 25.00", "Overgrip", "CHF 3.00", "Express service", "CHF 10.00", "CHF 38.00", "CHF 2.85"] {
            assert!(text.contains(line), "{line:?}:\n{text}");
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("invoice.pdf");
        ok(&db, &["receipt", &order, "-o", path.to_str().unwrap()]);
        let pdf_text = tool("pdftotext", &["-layout", path.to_str().unwrap(), "-"]);
        assert!(pdf_text.contains("Overgrip") && pdf_text.contains("Express service") && pdf_text.contains("CHF 38.00"), "{pdf_text}");
        // The QR-bill asks for the total.
        let codes = super::payment::codes(&path);
        let bill = codes.iter().map(|c| c.text()).find(|t| t.starts_with("SPC")).expect("a QR-bill");
        assert_eq!(bill.lines().nth(18), Some("38.00"), "{bill}");
        // The ledger, the VAT report.
        let ledger = ok(&db, &["export", "--year", "2026", "--format", "json"]);
        let ledger: serde_json::Value = serde_json::from_str(&ledger).unwrap();
        assert_eq!((ledger[0]["amount"].as_str(), ledger[0]["vat_amount"].as_str()), (Some("38.00"), Some("2.85")));
        let report = json(&db, &["vat-report", "--year", "2026", "--format", "json"]);
        assert_eq!(report[0]["gross"].as_str(), Some("38.00"));
        // Frozen with the rest.
        let message = fails(&db, 1, &["order", "edit", &order, "--item", "Grip=12"]);
        assert!(message.contains("what its document shows (items) cannot change"), "{message}");
        assert!(fails(&db, 1, &["order", "edit", &order, "--no-items"]).contains("(items)"));
        // Paid by the bank: the total, not the stringing's price, settles it.
        let stefan = db.query_i64("SELECT id FROM stringers WHERE handle = 'stefan'").unwrap();
        let reference = qrr(stefan, 2026, 1);
        let file = dir.path().join("camt.xml");
        let partial = support::camt::file(support::camt::Message::Notification, support::camt::Version::V04,
            &[support::camt::Entry::booked("2026-03-20", "E1", vec![support::camt::Tx::paying(&reference, 2500, "CHF", "T1")])]);
        std::fs::write(&file, partial).unwrap();
        assert_eq!(run(&db, &["payments", "import", file.to_str().unwrap()]).code, 1, "25.00 of 38.00 is a part");
        let exact = support::camt::file(support::camt::Message::Notification, support::camt::Version::V04,
            &[support::camt::Entry::booked("2026-03-21", "E2", vec![support::camt::Tx::paying(&reference, 3800, "CHF", "T2")])]);
        std::fs::write(&file, exact).unwrap();
        let out = run(&db, &["payments", "import", file.to_str().unwrap()]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!(json(&db, &["order", "show", &order, "--format", "json"])["payment_method"], "transfer");
        let takings = json(&db, &["takings", "--date", "2026-03-21", "--format", "json"]);
        assert_eq!((takings[0]["method"].as_str(), takings[0]["amount"].as_str()), (Some("transfer"), Some("38.00")));
        // Items that are no items.
        assert!(fails(&db, 2, &["order", "add", "--customer", "X", "--item", "Grip="]).contains("has no price"));
        assert!(fails(&db, 2, &["order", "add", "--customer", "X", "--item", "Grip=-3"]).contains("is not a price"));
        assert!(fails(&db, 2, &["order", "add", "--customer", "X", "--item", "Grip"]).contains("TEXT=PRICE"));
    }
}
