//! The day's closure (SPEC 23): `receipts key init/rotate` and `receipts close`, days gone by
//! closed in order, summed, signed and chained; and `audit --verify` naming a closure that was
//! changed, re-signed or removed by whoever owns the database. The days are lived through
//! with the clock set back for the program alone (`faketime`), as a shop lives them.

use super::*;
use crate::on_both_backends;
use serde_json::Value;
use std::path::Path;

/// The sum of a closure's totals under `key` (`count`, `amount_minor`), or zeros.
fn sum(totals: &Value, part: &str, key: &str) -> (i64, i64) {
    let sum = &totals[part][key];
    let number = |v: &Value| v.as_str().map_or(0, |s| s.parse().unwrap());
    (number(&sum["count"]), number(&sum["amount_minor"]))
}

/// Stefan in Zurich with a key made on 20 November 2026, and two days of work: the 20th (a
/// racket paid in cash at pickup, an invoice) and the 22nd (a racket voided, a part of the
/// invoice credited, a racket paid by card). Returns the public key.
fn two_days(db: &TestDb, keys: &Path) -> String {
    Shop::new(db).stringer("stefan", "Stefan Muster", &[]);
    ok_at(db, keys, "2026-11-20 07:55:00", &["stringer", "edit", "stefan", "--country", "CH"]);
    let public = ok_at(db, keys, "2026-11-20 08:00:00", &["key", "init"]);
    let order = |price: &str| ok(db, &["order", "add", "--customer", "Roger", "--price", price]);
    let (a, b, c, d) = (order("30.00"), order("45.00"), order("20.00"), order("50.00"));
    ok_at(db, keys, "2026-11-20 09:00:00", &["mint", "--order", &a]);
    ok_at(db, keys, "2026-11-20 09:05:00", &["order", "pickup", &a, "--paid", "cash"]);
    ok_at(db, keys, "2026-11-20 10:00:00", &["mint", "--order", &b]);
    ok_at(db, keys, "2026-11-22 09:00:00", &["mint", "--order", &c]);
    ok_at(db, keys, "2026-11-22 09:10:00", &["void", "--order", &c, "--reason", "strung the wrong racket"]);
    ok_at(db, keys, "2026-11-22 10:00:00", &["credit", &b, "--reason", "no overgrip", "--amount", "10"]);
    ok_at(db, keys, "2026-11-22 11:00:00", &["mint", "--order", &d]);
    ok_at(db, keys, "2026-11-22 11:05:00", &["order", "pickup", &d, "--paid", "card"]);
    public
}

fn closures(db: &TestDb) -> Option<i64> {
    db.query_i64("SELECT count(*) FROM closures")
}

on_both_backends! {
    fn past_days_are_closed_in_order_summed_signed_and_chained(db: TestDb) {
        let keys = tempfile::tempdir().unwrap();
        let public = two_days(&db, keys.path());
        assert_eq!(public.len(), 64, "the public key is printed: {public}");
        let file = keys.path().join("stefan.ed25519");
        let mode = std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&file).unwrap().permissions());
        assert_eq!(mode & 0o777, 0o600, "the key is its owner's alone");
        assert_eq!(db.query_i64(&format!("SELECT count(*) FROM receipt_events WHERE kind = 'key' AND new_value = '{public}'")), Some(1));

        // Closing the 22nd the next morning closes the 20th first; the 21st had nothing.
        let shown: Value = serde_json::from_str(&ok_at(&db, keys.path(), "2026-11-23 07:00:00", &["close", "--date", "2026-11-22", "--format", "json"])).unwrap();
        assert_eq!(shown.as_array().unwrap().len(), 2, "{shown}");
        assert_eq!((shown[0]["seq"].as_i64(), shown[0]["day"].as_str()), (Some(1), Some("2026-11-20")));
        assert_eq!((shown[1]["seq"].as_i64(), shown[1]["day"].as_str()), (Some(2), Some("2026-11-22")));

        // The sums, as the test did the work: the 20th, two receipts (30 + 45), 30 in cash.
        let first = &shown[0]["totals"];
        assert_eq!(sum(first, "documents", "receipts CHF -"), (2, 7_500));
        assert_eq!(sum(first, "payments", "cash CHF"), (1, 3_000));
        assert_eq!(first["voids"], serde_json::json!({}));
        // The 22nd: two receipts (20 + 50), one voided, 10 credited, 50 by card.
        let second = &shown[1]["totals"];
        assert_eq!(sum(second, "documents", "receipts CHF -"), (2, 7_000));
        assert_eq!(sum(second, "documents", "credits CHF -"), (1, -1_000));
        assert_eq!(sum(second, "voids", "receipts"), (1, 0));
        assert_eq!(sum(second, "payments", "card CHF"), (1, 5_000));
        // The grand totals never reset.
        let grand = &shown[1]["grand_totals"];
        assert_eq!(sum(grand, "documents", "receipts CHF -"), (4, 14_500));
        assert_eq!(sum(grand, "payments", "cash CHF"), (1, 3_000));
        // Each closure covers the events after the one before, and is an event itself.
        assert_eq!((shown[0]["first_event_seq"].as_i64(), shown[1]["first_event_seq"].as_i64()), (Some(1), Some(shown[0]["event_seq"].as_i64().unwrap() + 1)));
        assert_eq!(db.query_i64("SELECT count(*) FROM receipt_events WHERE kind = 'closure'"), Some(2));
        assert!(shown.as_array().unwrap().iter().all(|c| c["public_key"] == public.as_str()));

        // Closing a closed day with nothing new prints the same closure.
        let again = at(&db, keys.path(), "2026-11-23 07:30:00", &["close", "--date", "2026-11-22"]);
        assert_eq!(again.code, 0, "{}", again.stderr);
        assert!(again.stdout.contains(shown[1]["digest"].as_str().unwrap()), "{}", again.stdout);
        assert!(again.stderr.contains("2026-11-22 was closed already and nothing is new since"), "{}", again.stderr);
        assert_eq!(closures(&db), Some(2));

        // The evening cash-up closes today; later events go into the next closure of the day.
        ok_at(&db, keys.path(), "2026-11-23 09:00:00", &["order", "add", "--customer", "Anna", "--price", "25"]);
        let e = db.query_i64("SELECT max(id) FROM orders").unwrap().to_string();
        ok_at(&db, keys.path(), "2026-11-23 09:30:00", &["mint", "--order", &e]);
        let evening = ok_at(&db, keys.path(), "2026-11-23 17:00:00", &["close"]);
        assert!(evening.starts_with("closure 3 of 2026-11-23"), "{evening}");
        ok_at(&db, keys.path(), "2026-11-23 17:30:00", &["order", "pickup", &e, "--paid", "twint"]);
        let later = ok_at(&db, keys.path(), "2026-11-23 18:00:00", &["close"]);
        assert!(later.starts_with("closure 4 of 2026-11-23"), "{later}");
        assert!(later.contains("payments twint CHF: 1 × 25.00"), "{later}");
        let nothing = at(&db, keys.path(), "2026-11-25 12:00:00", &["close", "--date", "2026-11-24"]);
        assert!(nothing.code == 0 && nothing.stderr.contains("nothing to close"), "{}", nothing.stderr);

        // The whole journal verifies against the key and a digest kept outside.
        let digest = shown[1]["digest"].as_str().unwrap();
        let verified = run(&db, &["audit", "--verify", "--public-key", &public, "--anchor", digest]);
        assert_eq!(verified.code, 0, "{}", verified.stderr);
        assert!(verified.stderr.contains("stefan: 4 closures signed and summed again"), "{}", verified.stderr);
        assert!(verified.stderr.contains("anchors used: the public key"), "{}", verified.stderr);
        let last = verified.stderr.trim_end().lines().last().unwrap();
        assert!(last.starts_with("anchors used: the public key ") && last.contains(" and 1 closure digest; not proven: "), "{last}");
        assert!(last.ends_with("events after the last closure whose digest left the database can be removed without a trace"), "{last}");
        let unknown = "0".repeat(64);
        let missing = run(&db, &["audit", "--verify", "--anchor", &unknown]);
        assert_eq!(missing.code, 1, "{}", missing.stderr);
        assert!(missing.stderr.contains(&format!("the anchor {unknown} is not the digest of any closure")), "{}", missing.stderr);
    }

    fn the_key_is_made_once_kept_outside_and_handed_over_by_rotation(db: TestDb) {
        let keys = tempfile::tempdir().unwrap();
        Shop::new(&db).stringer("stefan", "Stefan Muster", &[]);
        let none = at(&db, keys.path(), "2026-11-20 08:00:00", &["close"]);
        assert_eq!(none.code, 66, "{}", none.stderr);
        assert!(none.stderr.contains("cannot read the signing key") && none.stderr.contains("receipts key init"), "{}", none.stderr);
        let public = ok_at(&db, keys.path(), "2026-11-20 08:00:00", &["key", "init"]);
        // A second key is refused, and no file is written.
        let other = keys.path().join("other.ed25519");
        let twice = at(&db, keys.path(), "2026-11-20 08:01:00", &["key", "init", "--key-file", other.to_str().unwrap()]);
        assert_eq!(twice.code, 1, "{}", twice.stderr);
        assert!(twice.stderr.contains("has a signing key already") && twice.stderr.contains("key rotate"), "{}", twice.stderr);
        assert!(!other.exists());
        // A key file that is not the one recorded signs nothing.
        let stranger = receipts::signing::SigningKey::create(&other).unwrap();
        let wrong = at(&db, keys.path(), "2026-11-20 08:02:00", &["close", "--key-file", other.to_str().unwrap()]);
        assert_eq!(wrong.code, 1, "{}", wrong.stderr);
        assert!(wrong.stderr.contains("is not the signing key recorded for stefan"), "{}", wrong.stderr);
        assert_eq!(closures(&db), Some(0));
        // A day in the future is not closed.
        let future = at(&db, keys.path(), "2026-11-20 08:03:00", &["close", "--date", "2026-11-21"]);
        assert_eq!(future.code, 65, "{}", future.stderr);

        ok_at(&db, keys.path(), "2026-11-20 09:00:00", &["close"]);
        let new = ok_at(&db, keys.path(), "2026-11-21 09:00:00", &["key", "rotate"]);
        assert_ne!(new, public);
        let retired = std::fs::read_dir(keys.path()).unwrap().filter_map(Result::ok)
            .filter(|f| f.file_name().to_string_lossy().starts_with("stefan.retired-")).count();
        assert_eq!(retired, 1, "the old key file is kept");
        let shown: Value = serde_json::from_str(&ok_at(&db, keys.path(), "2026-11-21 18:00:00", &["close", "--format", "json"])).unwrap();
        assert_eq!(shown[0]["public_key"], new.as_str());
        // The first key, kept outside, vouches for the closures its successor signed.
        let verified = run(&db, &["audit", "--verify", "--public-key", &public]);
        assert_eq!(verified.code, 0, "{}", verified.stderr);
        // A key that was never recorded: the keys were replaced.
        let replaced = run(&db, &["audit", "--verify", "--public-key", &stranger.public_hex()]);
        assert_eq!(replaced.code, 1, "{}", replaced.stderr);
        assert!(replaced.stderr.contains("was never recorded for stefan: its keys were replaced"), "{}", replaced.stderr);
    }

    fn a_closure_changed_resigned_or_removed_is_named(db: TestDb) {
        let unguarded = |db: &TestDb, sql: &str| {
            let drop = match db.backend {
                Backend::Postgres => "ALTER TABLE closures DISABLE TRIGGER USER;".to_string(),
                Backend::Sqlite => "DROP TRIGGER closures_append_only_on_update; DROP TRIGGER closures_append_only_on_delete;".to_string(),
            };
            db.execute(&format!("{drop} {sql}")).unwrap_or_else(|e| panic!("{sql}: {e}"));
        };
        // Each case on a fresh shop of two closed days.
        let shop = || {
            let db = TestDb::new(db.backend);
            let keys = tempfile::tempdir().unwrap();
            two_days(&db, keys.path());
            ok_at(&db, keys.path(), "2026-11-23 07:00:00", &["close", "--date", "2026-11-22"]);
            assert_eq!(run(&db, &["audit", "--verify"]).code, 0);
            (db, keys)
        };
        let verify_names = |db: &TestDb, named: &str| {
            let out = run(db, &["audit", "--verify"]);
            assert_eq!(out.code, 1, "{named}: {}", out.stderr);
            assert!(out.stderr.contains(named), "wanted {named:?} in:\n{}", out.stderr);
        };

        // The totals edited: the digest no longer matches.
        let (db1, _keys) = shop();
        unguarded(&db1, "UPDATE closures SET totals = replace(totals, '\"7500\"', '\"6500\"') WHERE seq = 1");
        verify_names(&db1, "closure 1: its content does not match its digest");

        // The totals edited and re-signed with the stringer's own key (someone who holds the
        // database and the key): the sums recomputed from the journal do not agree.
        let (db2, keys) = shop();
        let key = receipts::signing::SigningKey::load(&keys.path().join("stefan.ed25519")).unwrap();
        let mut conn = db2.connect();
        let stefan = conn.read(|c| receipts::db::Tenant::load(c, "stefan")).unwrap();
        let first = conn.read(|c| Ok(receipts::db::closures::all(c, &stefan)?)).unwrap().remove(0);
        let forged = receipts::db::closures::Closure { totals: first.totals.replace("\"7500\"", "\"6500\""), ..first };
        let canonical = forged.canonical();
        let (digest, signature) = (receipts::domain::journal::sha256_hex(&canonical), key.sign_hex(canonical.as_bytes()));
        unguarded(&db2, &format!("UPDATE closures SET totals = '{}', digest = '{digest}', signature = '{signature}' WHERE seq = 1", forged.totals));
        verify_names(&db2, "closure 1: its totals are not the sum of the documents and voids it covers");

        // Its VAT edited and re-signed: the documents' own VAT, summed again, disagrees.
        let (db8, keys) = shop();
        let key = receipts::signing::SigningKey::load(&keys.path().join("stefan.ed25519")).unwrap();
        let mut conn = db8.connect();
        let first = conn.read(|c| Ok(receipts::db::closures::all(c, &stefan)?)).unwrap().remove(0);
        assert!(first.totals.contains("\"vat_minor\":\"0\""), "{}", first.totals);
        let forged = receipts::db::closures::Closure { totals: first.totals.replacen("\"vat_minor\":\"0\"", "\"vat_minor\":\"599\"", 1), ..first };
        let canonical = forged.canonical();
        let (digest, signature) = (receipts::domain::journal::sha256_hex(&canonical), key.sign_hex(canonical.as_bytes()));
        unguarded(&db8, &format!("UPDATE closures SET totals = '{}', digest = '{digest}', signature = '{signature}' WHERE seq = 1", forged.totals));
        verify_names(&db8, "closure 1: its totals are not the sum of the documents and voids it covers");

        // Re-signed with another key: not the key recorded for it.
        let (db3, keys) = shop();
        let other = receipts::signing::SigningKey::create(&keys.path().join("other.ed25519")).unwrap();
        let mut conn = db3.connect();
        let first = conn.read(|c| Ok(receipts::db::closures::all(c, &stefan)?)).unwrap().remove(0);
        let forged = receipts::db::closures::Closure { public_key: other.public_hex(), ..first };
        let canonical = forged.canonical();
        let (digest, signature) = (receipts::domain::journal::sha256_hex(&canonical), other.sign_hex(canonical.as_bytes()));
        unguarded(&db3, &format!("UPDATE closures SET public_key = '{}', digest = '{digest}', signature = '{signature}' WHERE seq = 1", other.public_hex()));
        verify_names(&db3, "closure 1: it is not signed by the key recorded for it");

        // The last closure removed: the journal still records it.
        let (db4, _keys) = shop();
        unguarded(&db4, "DELETE FROM closures WHERE seq = 2");
        verify_names(&db4, "closure 2: the journal records it, but it is not among the closures (removed)");

        // The signature alone changed.
        let (db5, _keys) = shop();
        // (Its first hex digit turned into another, whatever it was: a replace that can
        // find nothing to replace leaves a valid signature one run in 256.)
        unguarded(&db5, "UPDATE closures SET signature = (CASE WHEN substr(signature, 1, 1) = '0' THEN '1' ELSE '0' END) || substr(signature, 2) WHERE seq = 2");
        verify_names(&db5, "closure 2: its signature does not verify");

        // A credit note's frozen reason rewritten: its event no longer matches it.
        let (db7, _keys) = shop();
        let unguard = match db7.backend {
            Backend::Postgres => "ALTER TABLE credit_notes DISABLE TRIGGER USER;",
            Backend::Sqlite => "DROP TRIGGER credit_notes_append_only_on_update;",
        };
        db7.execute(&format!("{unguard} UPDATE credit_notes SET reason = 'goodwill'")).unwrap();
        verify_names(&db7, "the document it issued (credit note C-2026-0001) no longer matches its content hash");

        // Without the triggers' consent, a closure cannot change or go.
        let (db6, _keys) = shop();
        assert!(db6.execute("UPDATE closures SET totals = '{}' WHERE seq = 1").is_err());
        assert!(db6.execute("DELETE FROM closures WHERE seq = 2").is_err());
        assert_eq!(closures(&db6), Some(2));
    }
}

on_both_backends! {
    fn the_auditors_export_describes_the_year_in_gdpdu_and_says_whether_it_verifies(db: TestDb) {
        let keys = tempfile::tempdir().unwrap();
        two_days(&db, keys.path());
        ok_at(&db, keys.path(), "2026-11-23 07:00:00", &["close", "--date", "2026-11-22"]);
        let out = tempfile::tempdir().unwrap();
        let dir = out.path().join("audit-2026");
        let dir_text = dir.to_str().unwrap();
        let exported = run(&db, &["export", "--auditor", "--year", "2026", "--out-dir", dir_text]);
        assert_eq!(exported.code, 0, "{}", exported.stderr);
        assert!(exported.stderr.contains("2 closures signed and summed again"), "{}", exported.stderr);

        // The index is valid against the standard's document type, with a real validator.
        let validated = Command::new("xmllint")
            .args(["--noout", "--dtdvalid"])
            .arg(dir.join("gdpdu-01-09-2004.dtd"))
            .arg(dir.join("index.xml"))
            .output()
            .expect("xmllint runs (Debian's libxml2-utils; the test command installs it)");
        assert!(validated.status.success(), "{}", String::from_utf8_lossy(&validated.stderr));
        let index = std::fs::read_to_string(dir.join("index.xml")).unwrap();
        for table in ["documents.csv", "document_lines.csv", "document_vat.csv", "payments.csv", "reminders.csv", "journal.csv", "closures.csv"] {
            assert!(index.contains(&format!("<URL>{table}</URL>")), "{table} in {index}");
            assert!(dir.join(table).exists(), "{table}");
        }

        // The rows, as the index describes them: `;`, CRLF, no header.
        let read = |file: &str| -> Vec<Vec<String>> {
            let text = std::fs::read_to_string(dir.join(file)).unwrap();
            assert!(text.is_empty() || text.ends_with("\r\n"), "{file}: CRLF records");
            csv::ReaderBuilder::new().delimiter(b';').has_headers(false).from_reader(text.as_bytes())
                .records().map(|r| r.unwrap().iter().map(str::to_string).collect()).collect()
        };
        let documents = read("documents.csv");
        let summary: Vec<(&str, &str, &str, &str)> = documents.iter().map(|d| (d[0].as_str(), d[1].as_str(), d[2].as_str(), d[8].as_str())).collect();
        assert_eq!(summary, [
            ("2026-0001", "receipt", "issued", "30.00"),
            ("2026-0002", "receipt", "issued", "45.00"),
            ("2026-0003", "receipt", "void", "20.00"),
            ("2026-0004", "receipt", "issued", "50.00"),
            ("C-2026-0001", "credit_note", "issued", "-10.00"),
        ]);
        assert_eq!(documents[4][15], "2026-0002", "the credit note names its original");
        assert!(documents.iter().all(|d| d[17].len() == 14), "every document's check value: {documents:?}");
        assert_eq!(documents[0][3], "20.11.2026");
        let payments = read("payments.csv");
        let paid: Vec<(&str, &str, &str)> = payments.iter().map(|p| (p[0].as_str(), p[2].as_str(), p[3].as_str())).collect();
        assert_eq!(paid, [("2026-0001", "cash", "30.00"), ("2026-0004", "card", "50.00")]);
        let journal = read("journal.csv");
        assert_eq!(journal.len() as i64, db.query_i64("SELECT count(*) FROM receipt_events").unwrap());
        assert!(journal.windows(2).all(|w| w[1][14] == w[0][15]), "each event names its predecessor's hash");
        assert_eq!(read("closures.csv").len(), 2);
        let report = std::fs::read_to_string(dir.join("verify.txt")).unwrap();
        assert!(report.contains("stefan: 2 closures signed and summed again") && report.contains("not proven:"), "{report}");

        // The same export again writes the same bytes; a different one never overwrites.
        assert_eq!(run(&db, &["export", "--auditor", "--year", "2026", "--out-dir", dir_text]).code, 0);
        let e = ok(&db, &["order", "add", "--customer", "Anna", "--price", "25"]);
        ok(&db, &["mint", "--order", &e]);
        let refused = run(&db, &["export", "--auditor", "--year", "2026", "--out-dir", dir_text]);
        assert_eq!(refused.code, 73, "{}", refused.stderr);

        // A journal tampered with: the export is written, and says it does not verify.
        let drop = match db.backend {
            Backend::Postgres => "ALTER TABLE receipt_events DISABLE TRIGGER USER;",
            Backend::Sqlite => "DROP TRIGGER receipt_events_append_only_on_update;",
        };
        db.execute(&format!("{drop} UPDATE receipt_events SET reason = 'quiet' WHERE seq = 3")).unwrap();
        let tampered = out.path().join("tampered");
        let broken = run(&db, &["export", "--auditor", "--year", "2026", "--out-dir", tampered.to_str().unwrap()]);
        assert_eq!(broken.code, 1, "{}", broken.stderr);
        assert!(broken.stderr.contains("the export is written, but the journal does not verify"), "{}", broken.stderr);
        let report = std::fs::read_to_string(tampered.join("verify.txt")).unwrap();
        assert!(report.contains("the journal is broken at event 3"), "{report}");
        assert!(tampered.join("index.xml").exists());
    }
}

/// A SQLite file restored from a backup made before the last closure: `resync-counters
/// --last-closure` declares the closure known outside, the next is numbered above it, and
/// `audit --verify` says what the restore lost instead of calling it tampering.
#[test]
fn closures_lost_in_a_declared_restore_keep_their_numbers() {
    let db = TestDb::sqlite();
    let keys = tempfile::tempdir().unwrap();
    two_days(&db, keys.path());
    ok_at(&db, keys.path(), "2026-11-21 07:00:00", &["close", "--date", "2026-11-20"]);
    let backup = keys.path().join("backup.db");
    ok_at(&db, keys.path(), "2026-11-21 07:10:00", &["backup", backup.to_str().unwrap()]);
    let lost: Value = serde_json::from_str(&ok_at(
        &db,
        keys.path(),
        "2026-11-23 07:00:00",
        &["close", "--date", "2026-11-22", "--format", "json"],
    ))
    .unwrap();
    assert_eq!(lost[0]["seq"], 2);
    let lost_digest = lost[0]["digest"].as_str().unwrap().to_string();

    // The disk dies; the backup comes back. Without a declaration the closure kept outside is
    // simply not found.
    std::fs::copy(&backup, &db.url).unwrap();
    let missing = run(&db, &["audit", "--verify", "--anchor", &lost_digest]);
    assert_eq!(missing.code, 1, "{}", missing.stderr);
    let declared = run(&db, &["resync-counters", "--last-closure", "2", "--stringer", "stefan"]);
    assert_eq!(declared.code, 0, "{}", declared.stderr);
    let next = ok_at(&db, keys.path(), "2026-11-24 18:00:00", &["close"]);
    assert!(next.starts_with("closure 3 of "), "numbered above the lost one: {next}");
    let verified = run(&db, &["audit", "--verify"]);
    assert_eq!(verified.code, 0, "{}", verified.stderr);
    assert!(
        verified.stderr.contains("stefan: closures 2..2 were lost in the restore declared at event"),
        "{}",
        verified.stderr
    );
    // --last-closure names one stringer.
    let unnamed = run(&db, &["resync-counters", "--last-closure", "3"]);
    assert_eq!(unnamed.code, 2, "{}", unnamed.stderr);
}

on_both_backends! {
    fn close_mail_sends_the_digests_to_the_stringer_through_a_real_mail_server(db: TestDb) {
        let keys = tempfile::tempdir().unwrap();
        two_days(&db, keys.path());
        ok_at(&db, keys.path(), "2026-11-23 06:00:00", &["stringer", "edit", "stefan", "--email", "stefan@example.com"]);
        let sink = support::smtp::Sink::start(support::smtp::Behaviour::Accept);
        let url = sink.url(None);
        let out = at(&db, keys.path(), "2026-11-23 07:00:00", &["close", "--date", "2026-11-22", "--mail", "--smtp-url", &url, "--format", "json"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(out.stderr.contains("the digests were e-mailed to stefan@example.com"), "{}", out.stderr);
        let shown: Value = serde_json::from_str(&out.stdout).unwrap();
        let received = sink.received();
        assert_eq!(received.len(), 1);
        assert_eq!(received[0].to, ["stefan@example.com"]);
        let message = String::from_utf8_lossy(&received[0].data).to_string();
        for closure in shown.as_array().unwrap() {
            assert!(message.contains(closure["digest"].as_str().unwrap()), "{message}");
        }
        // With no mail server there, the closure stands and the command says how to send it.
        let url = "smtp://127.0.0.1:1";
        ok_at(&db, keys.path(), "2026-11-23 09:00:00", &["order", "add", "--customer", "Iga", "--price", "20"]);
        let id = db.query_i64("SELECT max(id) FROM orders").unwrap().to_string();
        ok_at(&db, keys.path(), "2026-11-23 09:10:00", &["mint", "--order", &id]);
        let down = at(&db, keys.path(), "2026-11-23 18:00:00", &["close", "--mail", "--smtp-url", url]);
        assert_eq!(down.code, 69, "{}", down.stderr);
        assert!(down.stderr.contains("the closure stands, but its digest was not e-mailed"), "{}", down.stderr);
        assert_eq!(closures(&db), Some(3));
    }
}

on_both_backends! {
    fn personal_values_are_kept_beside_the_journal_and_forgetting_them_keeps_it_verified(db: TestDb) {
        Shop::new(&db).stringer("stefan", "Stefan Muster", &["--email", "stefan@example.ch", "--country", "CH"]);
        // (With an item, so that both backends hash a document's item lines alike.)
        let order = ok(&db, &["order", "add", "--customer", "Roger", "--price", "35", "--item", "Overgrip=3", "--email", "roger@example.com"]);
        ok(&db, &["mint", "--order", &order]);
        ok(&db, &["order", "edit", &order, "--notes", "owes us a grip"]);
        let sink = support::smtp::Sink::start(support::smtp::Behaviour::Accept);
        let mut send = receipts(&db);
        let sent: Output = send.env("RECEIPTS_SMTP_URL", sink.url(None)).args(["send", &order]).output().unwrap().into();
        assert_eq!(sent.code, 0, "{}", sent.stderr);

        // The journal shows them; the chained events hold only their salted digests.
        let values = |what: &str| -> Vec<String> {
            journaled(&db, what).iter().map(|e| e["new"].as_str().unwrap_or("").to_string()).collect()
        };
        assert_eq!(values("send"), ["roger@example.com"]);
        assert!(values("edit").contains(&"owes us a grip".to_string()), "{:?}", values("edit"));
        assert_eq!(db.query_i64("SELECT count(*) FROM receipt_events WHERE new_value LIKE '%roger%' OR new_value LIKE '%grip%'"), Some(0));
        assert_eq!(db.query_i64("SELECT count(*) FROM receipt_events WHERE new_value LIKE 'sha256:%' AND kind <> 'profile'"), Some(2));
        assert_eq!(db.query_i64("SELECT count(*) FROM event_values v JOIN receipt_events e ON e.id = v.event_id WHERE e.kind <> 'profile'"), Some(2));
        assert_eq!(run(&db, &["audit", "--verify"]).code, 0);

        // A value kept beside its event changed: the digest names the event.
        db.execute("UPDATE event_values SET new_value = 'roger@evil.example' WHERE new_value = 'roger@example.com'").unwrap();
        let changed = run(&db, &["audit", "--verify"]);
        assert_eq!(changed.code, 1, "{}", changed.stderr);
        assert!(changed.stderr.contains("a personal value kept beside it no longer matches the digest it carries"), "{}", changed.stderr);
        db.execute("UPDATE event_values SET new_value = 'roger@example.com' WHERE new_value = 'roger@evil.example'").unwrap();

        // Forgotten: the values go, the journal says so, and the chain still verifies.
        let customer = db.query_i64(&format!("SELECT customer_id FROM orders WHERE id = {order}")).unwrap().to_string();
        ok(&db, &["customer", "forget", &customer, "--reason", "asked to be forgotten"]);
        assert_eq!(db.query_i64("SELECT count(*) FROM event_values v JOIN receipt_events e ON e.id = v.event_id WHERE e.kind <> 'profile'"), Some(0), "the customer's values are gone, the shop's own stay");
        assert_eq!(values("send"), ["(forgotten)"]);
        let shown = ok(&db, &["order", "show", &order]);
        assert!(!shown.contains("roger@example.com"), "{shown}");
        let verified = run(&db, &["audit", "--verify"]);
        assert_eq!(verified.code, 0, "{}", verified.stderr);
    }
}
