//! `receipts send` (SPEC section 14) against a real SMTP server on loopback
//! (`support::smtp`): what arrives is parsed (mail-parser) and checked, the attachment byte
//! for byte against `receipts receipt -o`; the journal records only what the server accepted.

use super::*;
use crate::on_both_backends;
use mail_parser::{MessageParser, MimeHeaders};
use support::smtp::{Behaviour, Sink};

/// A Zurich shop that sends from stefan@example.ch, with an invoice to Roger Müller.
fn mailing_shop(db: &TestDb) -> String {
    Shop::new(db).stringer(
        "stefan",
        "Stefan Müller Bespannungen",
        &[
            "--email",
            "stefan@example.ch",
            "--iban",
            "CH93 0076 2011 6238 5295 7",
            "--postcode",
            "8001",
            "--town",
            "Zürich",
            "--country",
            "CH",
            "--language",
            "de",
        ],
    );
    let order = Shop::new(db).order(
        "stefan",
        &[
            "--customer",
            "Roger Müller",
            "--racket",
            "Pro Staff",
            "--price",
            "35.50",
            "--email",
            "roger@example.com",
        ],
    );
    ok(db, &["mint", "--order", &order, "--at", "2026-03-02 10:00"]);
    order
}

/// A second order of the shop, to Anna at anna@example.com (not strung yet).
fn anna_order(db: &TestDb) -> String {
    ok(
        db,
        &[
            "order",
            "add",
            "--stringer",
            "stefan",
            "--customer",
            "Anna",
            "--price",
            "20",
            "--email",
            "anna@example.com",
        ],
    )
}

fn send(db: &TestDb, url: &str, args: &[&str]) -> Output {
    let mut cmd = receipts(db);
    cmd.env("RECEIPTS_SMTP_URL", url).arg("send").args(args);
    cmd.output().unwrap().into()
}

/// The journal's `send` entries: (numbers, field, new value = recipient, reason = Message-ID).
fn sends(db: &TestDb) -> Vec<(String, String, String)> {
    journaled(db, "send")
        .iter()
        .map(|e| {
            (
                e["numbers"].as_str().unwrap().into(),
                e["new"].as_str().unwrap().into(),
                e["reason"].as_str().unwrap().into(),
            )
        })
        .collect()
}

on_both_backends! {
    fn a_document_arrives_as_a_message_with_its_pdf(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let order = mailing_shop(&db);
        let sink = Sink::start(Behaviour::Accept);
        let out = send(&db, &sink.url(None), &[&order]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let received = sink.received();
        assert_eq!(received.len(), 1);
        assert_eq!((received[0].from.as_str(), received[0].to.as_slice()), ("stefan@example.ch", &["roger@example.com".to_string()][..]));
        let message = MessageParser::default().parse(&received[0].data).unwrap();
        assert_eq!(message.subject(), Some("Rechnung 2026-0001 – Stefan Müller Bespannungen"));
        let raw = String::from_utf8_lossy(&received[0].data);
        assert!(raw.contains("Subject: Rechnung 2026-0001 =?utf-8?"), "the subject is encoded (RFC 2047):\n{raw}");
        let from = message.from().unwrap().first().unwrap();
        assert_eq!((from.name(), from.address()), (Some("Stefan Müller Bespannungen"), Some("stefan@example.ch")));
        assert_eq!(message.to().unwrap().first().unwrap().address(), Some("roger@example.com"));
        assert!(message.date().is_some() && message.message_id().is_some());
        let body = message.body_text(0).unwrap();
        for said in ["Guten Tag Roger Müller", "Rechnung 2026-0001", "Pro Staff", "CHF 35.50", "1. April 2026",
                     "CH93 0076 2011 6238 5295 7", "RF"] {
            assert!(body.contains(said), "{said:?}:\n{body}");
        }
        let attachment = message.attachment(0).unwrap();
        assert_eq!(attachment.attachment_name(), Some("stefan-2026-0001.pdf"));
        assert_eq!(attachment.content_type().map(|c| (c.ctype(), c.subtype())), Some(("application", Some("pdf"))));
        let dir = tempfile::tempdir().unwrap();
        let pdf = dir.path().join("r.pdf");
        ok(&db, &["receipt", &order, "-o", pdf.to_str().unwrap()]);
        assert_eq!(attachment.contents(), std::fs::read(&pdf).unwrap().as_slice(), "the attachment is the document");
        // Journaled with the recipient and the Message-ID the server received.
        let journaled = sends(&db);
        assert_eq!(journaled.len(), 1);
        assert_eq!((journaled[0].0.as_str(), journaled[0].1.as_str()), ("2026-0001", "roger@example.com"));
        assert_eq!(journaled[0].2, format!("<{}>", message.message_id().unwrap()));
        // Once, unless asked again.
        let again = send(&db, &sink.url(None), &[&order]);
        assert_eq!(again.code, 1, "{}", again.stderr);
        assert!(again.stderr.contains("receipt 2026-0001 (order 1) was sent on ") && again.stderr.contains("to roger@example.com: pass --again"), "{}", again.stderr);
        assert_eq!(send(&db, &sink.url(None), &[&order, "--again", "--to", "roger.m@example.com"]).code, 0);
        assert_eq!(sink.received().len(), 2);
        assert_eq!(sends(&db).len(), 2);
    }

    fn nothing_is_journaled_when_the_server_does_not_take_it(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let order = mailing_shop(&db);
        // The recipient refused: exit 1, named.
        let refusing = Sink::start(Behaviour::RefuseRecipient("roger@example.com".into()));
        let out = send(&db, &refusing.url(None), &[&order]);
        assert_eq!(out.code, 1, "{}", out.stderr);
        assert!(out.stderr.contains("refused the message") && out.stderr.contains("No such user"), "{}", out.stderr);
        // No server at all: exit 69.
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let out = send(&db, &format!("smtp://127.0.0.1:{port}"), &[&order]);
        assert_eq!(out.code, 69, "{}", out.stderr);
        assert!(out.stderr.contains("cannot reach the mail server smtp://127.0.0.1:"), "{}", out.stderr);
        assert!(sends(&db).is_empty());
        // Running it again once the server takes it is safe.
        let sink = Sink::start(Behaviour::Accept);
        assert_eq!(send(&db, &sink.url(None), &[&order]).code, 0);
        assert_eq!(sends(&db).len(), 1);
    }
}

#[test]
fn a_password_is_used_and_never_shown() {
    let db = TestDb::sqlite().with_clock_at(TESTS_DAY);
    let order = mailing_shop(&db);
    let sink = Sink::start(Behaviour::Login { user: "stefan".into(), password: "S3cret-pw".into() });
    let wrong = send(&db, &sink.url(Some(("stefan", "Wr0ng-pw"))), &[&order]);
    assert_eq!(wrong.code, 1, "{}", wrong.stderr);
    assert!(wrong.stderr.contains("smtp://stefan:***@127.0.0.1:"), "{}", wrong.stderr);
    assert!(!wrong.stderr.contains("Wr0ng-pw") && !wrong.stdout.contains("Wr0ng-pw"));
    let right = send(&db, &sink.url(Some(("stefan", "S3cret-pw"))), &[&order]);
    assert_eq!(right.code, 0, "{}", right.stderr);
    assert!(!right.stderr.contains("S3cret-pw") && !right.stdout.contains("S3cret-pw"));
    assert_eq!(sink.received().len(), 1);
}

#[test]
fn a_server_that_never_answers_is_given_up_on() {
    let db = TestDb::sqlite().with_clock_at(TESTS_DAY);
    let order = mailing_shop(&db);
    let silent = Sink::start(Behaviour::Silent);
    let started = std::time::Instant::now();
    let out = send(&db, &silent.url(None), &[&order]);
    assert_eq!(out.code, 69, "{}", out.stderr);
    assert!(started.elapsed() < std::time::Duration::from_secs(30), "bounded: {:?}", started.elapsed());
    assert!(sends(&db).is_empty());
}

#[test]
fn the_batch_goes_on_past_a_failure_and_its_rerun_sends_the_rest() {
    let db = TestDb::postgres().with_clock_at(TESTS_DAY);
    mailing_shop(&db);
    for (customer, email) in [("Anna", "anna@example.com"), ("Boris", "boris@example.com")] {
        let order = ok(
            &db,
            &[
                "order",
                "add",
                "--stringer",
                "stefan",
                "--customer",
                customer,
                "--price",
                "20",
                "--email",
                email,
            ],
        );
        ok(&db, &["mint", "--order", &order, "--at", "2026-03-03 10:00"]);
    }
    let without = ok(&db, &["order", "add", "--stringer", "stefan", "--price", "20"]);
    ok(&db, &["mint", "--order", &without, "--at", "2026-03-04 10:00"]);
    let refusing = Sink::start(Behaviour::RefuseRecipient("anna@example.com".into()));
    let out = send(&db, &refusing.url(None), &["--unsent", "--year", "2026"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("2 messages sent, 1 failed, 1 skipped without a customer e-mail address"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("order 2 of stefan was not sent"), "{}", out.stderr);
    assert_eq!(refusing.received().len(), 2);
    // Again, with a server that takes it: only the one that failed goes out.
    let sink = Sink::start(Behaviour::Accept);
    let out = send(&db, &sink.url(None), &["--unsent"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(sink.received().iter().map(|r| r.to[0].as_str()).collect::<Vec<_>>(), ["anna@example.com"]);
    assert!(out.stderr.contains("1 message sent, 0 failed, 1 skipped"), "{}", out.stderr);
}

/// The batches follow the rule of `remind --due`: a mail server gone half-way stops the run
/// (the rest would fail alike) and what was not sent goes with the next.
#[test]
fn a_server_gone_half_way_stops_a_batch_and_the_rest_goes_with_the_next_run() {
    let db = TestDb::sqlite().with_clock_at(TESTS_DAY);
    mailing_shop(&db);
    let order = anna_order(&db);
    ok(&db, &["mint", "--order", &order, "--at", "2026-03-03 10:00"]);
    let notify = |url: &str| -> Output {
        receipts(&db).env("RECEIPTS_SMTP_URL", url).args(["notify", "--pending"]).output().unwrap().into()
    };
    // It answers the check, takes the first message, and never says whether it accepted it.
    let stalling = Sink::start(Behaviour::StallAfterData);
    for out in [send(&db, &stalling.url(None), &["--unsent"]), notify(&stalling.url(None))] {
        assert_eq!(out.code, 69, "{}", out.stderr);
        assert!(
            out.stderr.contains("the run stopped: what was not sent goes with the next run"),
            "{}",
            out.stderr
        );
        assert_eq!(out.stderr.matches("error: order").count(), 1, "stopped at the first: {}", out.stderr);
    }
    assert!(sends(&db).is_empty());
    let sink = Sink::start(Behaviour::Accept);
    assert_eq!(send(&db, &sink.url(None), &["--unsent"]).code, 0);
    assert_eq!(notify(&sink.url(None)).code, 0);
    assert_eq!((sink.received().len(), sends(&db).len()), (4, 2), "both documents and both notices");
}

#[test]
fn a_dry_run_shows_the_message_and_sends_nothing() {
    let db = TestDb::sqlite().with_clock_at(TESTS_DAY);
    let order = mailing_shop(&db);
    let eml = ok(&db, &["send", &order, "--dry-run"]);
    let message = MessageParser::default().parse(eml.as_bytes()).unwrap();
    assert_eq!(message.subject(), Some("Rechnung 2026-0001 – Stefan Müller Bespannungen"));
    assert_eq!(message.attachment(0).unwrap().attachment_name(), Some("stefan-2026-0001.pdf"));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("message.eml");
    ok(&db, &["send", &order, "--dry-run", "-o", file.to_str().unwrap()]);
    assert!(std::fs::read_to_string(&file).unwrap().contains("Subject: Rechnung 2026-0001"));
    // A message is new every time (its Message-ID and date): the file is not overwritten.
    std::fs::write(&file, "something else").unwrap();
    assert!(fails(&db, 73, &["send", &order, "--dry-run", "-o", file.to_str().unwrap()])
        .contains("never overwrites"));
    assert!(sends(&db).is_empty());
}

#[test]
fn what_cannot_be_sent_says_why() {
    let db = TestDb::sqlite().with_clock_at(TESTS_DAY);
    ok(&db, &["stringer", "add", "stefan", "--timezone", "Europe/Zurich"]);
    let order = ok(&db, &["order", "add", "--stringer", "stefan", "--price", "30"]);
    let sink = Sink::start(Behaviour::Accept);
    let out = send(&db, &sink.url(None), &[&order]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("no receipt number yet, so there is no document to send"), "{}", out.stderr);
    ok(&db, &["mint", "--order", &order, "--at", "2026-03-02 10:00"]);
    let out = send(&db, &sink.url(None), &[&order]);
    assert_eq!(out.code, 65);
    assert!(out.stderr.contains("has no customer e-mail address: pass --to ADDRESS"), "{}", out.stderr);
    let out = send(&db, &sink.url(None), &[&order, "--to", "roger@example.com"]);
    assert_eq!(out.code, 65);
    assert!(
        out.stderr.contains(
            "has no e-mail address to send from: set it with `receipts stringer edit stefan --email"
        ),
        "{}",
        out.stderr
    );
    assert!(fails(&db, 65, &["order", "edit", &order, "--email", "not-an-email"])
        .contains("is not an e-mail address"));
    assert_eq!(run(&db, &["send", &order]).code, 2, "no mail server named");
    assert!(sink.received().is_empty());
}

#[test]
fn a_v1_file_may_carry_the_customers_e_mail_address() {
    let db = TestDb::sqlite();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("v1.csv");
    std::fs::write(&file, "v1_id,kind,stringer,customer,price,strung_at,email\n1,client,stefan,Roger,35,2025-03-01,roger@example.com\n2,client,stefan,Anna,35,2025-03-02,\n").unwrap();
    ok(&db, &["migrate-v1", file.to_str().unwrap(), "--timezone", "Europe/Zurich"]);
    assert_eq!(
        db.query_i64("SELECT count(*) FROM orders WHERE v1_id = 1 AND email = 'roger@example.com'"),
        Some(1)
    );
    assert_eq!(db.query_i64("SELECT count(*) FROM orders WHERE v1_id = 2 AND email IS NULL"), Some(1));
    std::fs::write(&file, "v1_id,kind,stringer,email\n3,client,stefan,not-an-email\n").unwrap();
    assert!(fails(&db, 65, &["migrate-v1", file.to_str().unwrap()])
        .contains("line 2, email: \"not-an-email\" is not an e-mail address"));
}

/// `send --unsent --dry-run` lists what would go out, and sends and records nothing.
#[test]
fn a_dry_run_of_the_unsent_lists_them_and_sends_nothing() {
    let db = TestDb::sqlite().with_clock_at(TESTS_DAY);
    let first = mailing_shop(&db);
    let second = anna_order(&db);
    ok(&db, &["mint", "--order", &second, "--at", "2026-03-03 10:00"]);
    let without = ok(&db, &["order", "add", "--stringer", "stefan", "--price", "20"]);
    ok(&db, &["mint", "--order", &without, "--at", "2026-03-04 10:00"]);
    let sink = Sink::start(Behaviour::Accept);
    let out = send(&db, &sink.url(None), &["--unsent", "--dry-run", "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let planned: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let rows: Vec<(i64, &str, &str, &str)> = planned
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["order"].as_i64().unwrap(),
                p["receipt"].as_str().unwrap(),
                p["to"].as_str().unwrap(),
                p["subject"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (
                first.parse().unwrap(),
                "2026-0001",
                "roger@example.com",
                "Rechnung 2026-0001 – Stefan Müller Bespannungen"
            ),
            (
                second.parse().unwrap(),
                "2026-0002",
                "anna@example.com",
                "Rechnung 2026-0002 – Stefan Müller Bespannungen"
            ),
        ]
    );
    assert!(out.stderr.contains("dry run: 2 messages would be sent, 1 skipped without a customer e-mail address; nothing was sent"), "{}", out.stderr);
    assert!(sink.received().is_empty() && sends(&db).is_empty());
    // Nor does it need a mail server.
    let table = ok(&db, &["send", "--unsent", "--dry-run"]);
    assert!(table.contains("roger@example.com") && table.contains("subject"), "{table}");
}

/// A void document's mail says it is void, in its subject and its body; French mail writes
/// as French is written.
#[test]
fn a_void_documents_mail_says_so_and_french_mail_reads_french() {
    let db = TestDb::sqlite().with_clock_at(TESTS_DAY);
    let order = mailing_shop(&db);
    ok(&db, &["void", "--order", &order, "--reason", "Schläger zurückgegeben"]);
    let eml = ok(&db, &["send", &order, "--dry-run"]);
    let message = MessageParser::default().parse(eml.as_bytes()).unwrap();
    assert_eq!(message.subject(), Some("STORNIERT: Rechnung 2026-0001 – Stefan Müller Bespannungen"));
    assert!(
        message.body_text(0).unwrap().contains("Dieses Dokument ist storniert: Schläger zurückgegeben."),
        "{}",
        message.body_text(0).unwrap()
    );
    let fresh = ok(
        &db,
        &[
            "order",
            "add",
            "--stringer",
            "stefan",
            "--customer",
            "Jean",
            "--price",
            "35.50",
            "--email",
            "jean@example.com",
        ],
    );
    ok(&db, &["mint", "--order", &fresh, "--at", "2026-03-05 10:00"]);
    let eml = ok(&db, &["send", &fresh, "--dry-run", "--lang", "fr"]);
    let message = MessageParser::default().parse(eml.as_bytes()).unwrap();
    let body = message.body_text(0).unwrap();
    assert!(
        body.contains("Montant : CHF 35.50") && body.lines().any(|l| l.trim() == "Cordialement"),
        "{body}"
    );
    assert!(!body.contains("Meilleures salutations"), "{body}");
}

/// A server that takes the message and then never says whether it accepted it is given up
/// on within the one bound of a message (10 s), not after a wait per step; nothing is
/// journaled.
#[test]
fn a_server_that_takes_the_message_and_never_answers_is_given_up_on_in_time() {
    let db = TestDb::sqlite().with_clock_at(TESTS_DAY);
    let order = mailing_shop(&db);
    let stalling = Sink::start(Behaviour::StallAfterData);
    let started = std::time::Instant::now();
    let out = send(&db, &stalling.url(None), &[&order]);
    let took = started.elapsed();
    assert_eq!(out.code, 69, "{}", out.stderr);
    assert!(out.stderr.contains("no answer within 10 s"), "{}", out.stderr);
    assert_eq!(stalling.received().len(), 1, "the server had the message");
    assert!(took < std::time::Duration::from_secs(14), "one bound of 10 s, not one per step: {took:?}");
    assert!(sends(&db).is_empty());
}

on_both_backends! {
    /// Ctrl-C while `send --unsent` hands a message to a server that never confirms it: the
    /// command stops as interrupted (130, also when started with SIGINT ignored) once that
    /// step has ended (the server's time is up), nothing unconfirmed is journaled as sent,
    /// and the next run sends them all.
    fn ctrl_c_stops_a_batch_of_sends_and_journals_nothing_unconfirmed(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        mailing_shop(&db);
        let second = anna_order(&db);
        ok(&db, &["mint", "--order", &second, "--at", "2026-03-03 10:00"]);
        let stalling = Sink::start(Behaviour::StallAfterData);
        let url = stalling.url(None);
        let mut child = super::files::spawn_as_a_background_job(&db, &["send", "--unsent", "--smtp-url", &url]);
        let started = std::time::Instant::now();
        while stalling.received().is_empty() {
            assert!(started.elapsed() < std::time::Duration::from_secs(30), "the first message reaches the server");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let killed = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
        assert!(killed.success());
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(130));
        assert_eq!(stalling.received().len(), 1, "the batch went no further");
        assert!(journaled(&db, "send").is_empty(), "nothing unconfirmed is journaled");
        let sink = Sink::start(Behaviour::Accept);
        let out = send(&db, &sink.url(None), &["--unsent"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!((sink.received().len(), journaled(&db, "send").len()), (2, 2));
    }
}

on_both_backends! {
    fn a_credit_note_is_delivered_by_credit_send_and_by_send_c_and_order_show_says_so(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let order = mailing_shop(&db);
        let sink = Sink::start(Behaviour::Accept);
        // Without a mail server, --send is refused before anything is issued.
        let refused = fails(&db, 2, &["credit", &order, "--reason", "Falsche Saite", "--amount", "5", "--send"]);
        assert!(refused.contains("--smtp-url"), "{refused}");
        assert_eq!(db.query_i64("SELECT count(*) FROM credit_notes"), Some(0));
        let mut credit = receipts(&db);
        credit.env("RECEIPTS_SMTP_URL", sink.url(None)).args(["credit", &order, "--reason", "Falsche Saite", "--amount", "5", "--send"]);
        let out: Output = credit.output().unwrap().into();
        assert_eq!((out.code, out.stdout.as_str()), (0, "C-2026-0001\n"), "{}", out.stderr);
        let received = sink.received();
        assert_eq!(received.len(), 1);
        let message = MessageParser::default().parse(&received[0].data).unwrap();
        assert_eq!(message.subject(), Some("Gutschrift C-2026-0001 – Stefan Müller Bespannungen"));
        let body = message.body_text(0).unwrap();
        assert!(body.contains("die Gutschrift C-2026-0001") && body.contains("CHF -5.00"), "{body}");
        assert!(!body.contains("IBAN"), "nothing to pay: {body}");
        let attachment = message.attachment(0).unwrap();
        assert_eq!(attachment.attachment_name(), Some("stefan-C-2026-0001.pdf"));
        let dir = tempfile::tempdir().unwrap();
        let pdf = dir.path().join("c.pdf");
        ok(&db, &["receipt", "C-2026-0001", "-o", pdf.to_str().unwrap()]);
        assert_eq!(attachment.contents(), std::fs::read(&pdf).unwrap().as_slice(), "the attachment is the credit note");
        // Journaled apart from the invoice's own sending; order show says it was delivered.
        assert_eq!(sends(&db).iter().map(|s| (s.0.as_str(), s.1.as_str())).collect::<Vec<_>>(), [("C-2026-0001", "roger@example.com")]);
        let shown = ok(&db, &["order", "show", &order]);
        assert!(shown.contains("credit note  C-2026-0001 5.00 CHF, sent ") && shown.contains("to roger@example.com"), "{shown}");
        // The invoice itself was never sent: send still sends it.
        assert_eq!(send(&db, &sink.url(None), &[&order]).code, 0);
        // Once, unless asked again.
        let again = send(&db, &sink.url(None), &["C-2026-0001"]);
        assert_eq!(again.code, 1, "{}", again.stderr);
        assert!(again.stderr.contains("credit note C-2026-0001 was sent on"), "{}", again.stderr);
        let out = send(&db, &sink.url(None), &["C-2026-0001", "--again", "--to", "office@example.com"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!(sink.received().len(), 3);
        assert_eq!(send(&db, &sink.url(None), &["C-2026-0009"]).code, 1, "no such credit note");
    }
}
