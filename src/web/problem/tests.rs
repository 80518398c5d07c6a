//! The counter's refusals: each class's status, and words that name no command.

use super::*;
use crate::domain::{Language, OrderId};
use crate::error::Busy;
use strum::VariantArray;

/// Every class has its status, and the words a browser user reads name no command.
#[test]
fn each_class_answers_its_status_in_the_pages_words() {
    let cases = [
        (Error::NoSuchOrder { order: OrderId(7), stringer: None }, 404),
        (Error::PickedUp { order: OrderId(7), on: "2026-11-27".into(), what: "nothing changes" }, 422),
        (Error::NoPrice { order: OrderId(7) }, 422),
        (Error::NoEmailToSend { order: OrderId(7) }, 422),
        (Error::NoSender { stringer: "otto".into() }, 422),
        (Error::NoStructuredAddress { stringer: "otto".into() }, 422),
        (Error::ReasonRequired { order: OrderId(7) }, 400),
        (Error::WhoseUnsaid, 400),
        (
            Error::TillRequired {
                method: "cash".into(),
                country: "Germany",
                law: "§ 146a AO, a certified TSE",
                way: "paid",
            },
            422,
        ),
        (Error::Invalid { field: "tension", problem: "\"abc\" is not a tension".into() }, 422),
        (Error::Usage("no such option".into()), 400),
        (Error::OutputExists { path: "a.pdf".into(), what: "receipts" }, 409),
        (Error::MailUnreachable { server: "smtp://x".into(), reason: "refused".into() }, 503),
        (Error::NoMailServer, 503),
        (Error::Busy(Busy::LockTimeout), 503),
        (Error::NotDurable, 503),
        (Error::NotMigrated, 500),
        (Error::Internal { what: "x", detail: "y".into() }, 500),
    ];
    for &language in Language::VARIANTS {
        let w = Words::of(language);
        for (error, expected) in &cases {
            assert_eq!(status(error.class()).as_u16(), *expected, "{error}");
            let said = explain(error, w);
            assert!(!said.contains("receipts ") && !said.contains("--"), "{language:?}: {said}");
        }
    }
    assert!(explain(&Error::NoPrice { order: OrderId(7) }, Words::of(Language::De)).contains("keinen Preis"));
    // The command line words the same refusals with the flags that help.
    for (error, flag) in [
        (Error::NoEmailToSend { order: OrderId(7) }, "--to"),
        (Error::NoSender { stringer: "otto".into() }, "--email"),
        (Error::NoStructuredAddress { stringer: "otto".into() }, "--postcode"),
        (Error::ReasonRequired { order: OrderId(7) }, "--reason"),
        (Error::WhoseUnsaid, "--stringer"),
    ] {
        assert!(error.to_string().contains(flag), "{error}");
    }
}

/// A value refused on a page in German, French or Italian says what its input takes in
/// that language; the parser's exact English words are for English pages.
#[test]
fn a_refused_value_is_said_in_the_pages_language() {
    let fallback = expected("");
    for field in [
        "tension",
        "price",
        "amount",
        "item",
        "due",
        "date",
        "customer_postcode",
        "customer_town",
        "customer_country",
        "customer",
        "racket",
        "string",
        "customer_pick",
        "customer_id",
        "racket_id",
        "same",
        "paid",
        "refund",
        "reason",
        "file",
    ] {
        assert_ne!(expected(field), fallback, "{field} has words of its own");
        let error = Error::Invalid { field, problem: "\"x\" is not it".into() };
        assert_eq!(explain(&error, Words::of(Language::En)), "\"x\" is not it");
        for language in [Language::De, Language::Fr, Language::It] {
            let said = explain(&error, Words::of(language));
            assert!(!said.contains("is not") && !said.contains("--"), "{field} {language:?}: {said}");
        }
    }
    let tension = Error::Invalid { field: "tension", problem: "\"abc\" is not a tension".into() };
    assert!(explain(&tension, Words::of(Language::It)).starts_with("La tensione"));
}

/// Each reason an order gets no reminder, in each language, naming no command; the
/// command line's words name what helps.
#[test]
fn every_reason_for_no_reminder_is_said_in_the_pages_words() {
    use crate::domain::Level;
    let number = ReceiptNumber::new(2026, 4);
    let day = chrono::NaiveDate::from_ymd_opt(2026, 12, 1).unwrap();
    let order = OrderId(7);
    let reasons = [
        NoReminder::NotNumbered,
        NoReminder::Void { number, reason: "cracked".into() },
        NoReminder::OwnRacket { number },
        NoReminder::Paid { number, on: day },
        NoReminder::CreditedInFull { number, by: vec!["C-2026-0001".into()] },
        NoReminder::AsksNothing { number },
        NoReminder::FromV1 { number },
        NoReminder::BankPaymentWaits { number, amount: "CHF 20.00".into(), booked_on: day },
        NoReminder::BeforeRemindFrom { number, from: day },
        NoReminder::NotDelivered { number, order },
        NoReminder::FinalReached { number, on: day },
        NoReminder::NotOverdue { number, last: Some(Level::FIRST), until: day },
        NoReminder::NotDueYet { number, level: Level::FIRST, on: day },
        NoReminder::IssuedMeanwhile { number, level: Level::FIRST },
        NoReminder::NoSuchLevel { level: Level::FIRST },
        NoReminder::NoneToSendAgain { number },
        NoReminder::NoAddress { order },
    ];
    for why in &reasons {
        let error = Error::NotRemindable { order, last: None, why: why.clone() };
        let mut said = std::collections::BTreeSet::new();
        for &language in Language::VARIANTS {
            let page = explain(&error, Words::of(language));
            assert!(!page.contains("receipts ") && !page.contains("--") && !page.contains('`'), "{page}");
            assert!(!page.contains('{'), "every blank filled: {page}");
            said.insert(page);
        }
        assert_eq!(said.len(), 4, "four languages: {said:?}");
    }
    let cli = Error::NotRemindable { order, last: None, why: NoReminder::NoAddress { order } }.to_string();
    assert!(cli.contains("--out-dir") && cli.contains("receipts order edit 7 --email"), "{cli}");
}
