//! Reminders of an unpaid invoice (SPEC 22): three levels, when each is due, and which fee
//! the law of the stringer's country lets a reminder ask.

use super::{OrderId, ReceiptNumber};
use chrono::{Days, NaiveDate};

/// A reminder's level: 1 a payment reminder, 2 the second, 3 the final one; never a fourth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Level(u8);

impl Level {
    pub const FIRST: Level = Level(1);
    pub const LAST: Level = Level(3);
    pub const ALL: [Level; 3] = [Level(1), Level(2), Level(3)];

    /// The level stored as `n`; None outside 1-3.
    pub fn new(n: i32) -> Option<Level> {
        u8::try_from(n).ok().filter(|n| (1..=3).contains(n)).map(Level)
    }

    pub fn get(self) -> i32 {
        i32::from(self.0)
    }

    /// The level after this one; None after the final reminder.
    pub fn next(self) -> Option<Level> {
        Level::new(self.get() + 1)
    }
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl std::str::FromStr for Level {
    type Err = String;

    fn from_str(text: &str) -> Result<Level, String> {
        text.trim()
            .parse::<i32>()
            .ok()
            .and_then(Level::new)
            .ok_or_else(|| format!("the level is {text}: a reminder's level is 1, 2 or 3"))
    }
}

/// The days a reminder gives to pay: its new due date is this many days after its issue.
pub const DAYS_TO_PAY: u64 = 10;

/// The last day to pay a reminder issued on `on`.
pub fn reminder_due(on: NaiveDate) -> NaiveDate {
    on + Days::new(DAYS_TO_PAY)
}

/// Why the law of a business in `country` (ISO 3166) lets a reminder of `level` ask no fee
/// of a consumer, if it does not: in Germany and Austria the first reminder is the one that
/// puts the customer in default, so its costs are the creditor's; in France recovery costs
/// without a court title stay with the creditor.
pub fn fee_forbidden(country: Option<&str>, level: Level) -> Option<&'static str> {
    match country? {
        "DE" if level == Level::FIRST => {
            Some("in Germany the first reminder puts the customer in default, so it asks no fee (§ 286 BGB)")
        }
        "AT" if level == Level::FIRST => Some(
            "in Austria the first reminder asks no fee (§ 1333 ABGB: only proportionate costs of default)",
        ),
        "FR" => Some("in France a reminder asks no fee of a consumer (L111-8 CPCE)"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_one_to_three() {
        assert_eq!("2".parse::<Level>(), Ok(Level(2)));
        assert!("0".parse::<Level>().is_err());
        assert!("4".parse::<Level>().is_err());
        assert!("x".parse::<Level>().is_err());
        assert_eq!(Level::FIRST.next(), Some(Level(2)));
        assert_eq!(Level::LAST.next(), None);
    }

    #[test]
    fn fees_follow_the_country() {
        let forbidden = |country, level| fee_forbidden(Some(country), Level(level)).is_some();
        assert!(forbidden("DE", 1) && !forbidden("DE", 2) && !forbidden("DE", 3));
        assert!(forbidden("AT", 1) && !forbidden("AT", 2));
        assert!(forbidden("FR", 1) && forbidden("FR", 2) && forbidden("FR", 3));
        assert!(!forbidden("CH", 1) && !forbidden("IT", 1));
        assert_eq!(fee_forbidden(None, Level::FIRST), None);
    }
}

/// Why an order gets no reminder now: each reason with what it needs to be said. The command
/// line words it (`error.rs`, with the commands that help); the counter words it in the
/// page's language, naming no command (`web::problem`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoReminder {
    /// No receipt number: no invoice was issued.
    NotNumbered,
    Void {
        number: ReceiptNumber,
        reason: String,
    },
    /// The stringer's own racket asks for no money.
    OwnRacket {
        number: ReceiptNumber,
    },
    Paid {
        number: ReceiptNumber,
        on: NaiveDate,
    },
    CreditedInFull {
        number: ReceiptNumber,
        by: Vec<String>,
    },
    AsksNothing {
        number: ReceiptNumber,
    },
    /// Brought in by `migrate-v1`: the old system's invoices are chased by hand.
    FromV1 {
        number: ReceiptNumber,
    },
    /// A bank transaction naming it waits for somebody to handle it.
    BankPaymentWaits {
        number: ReceiptNumber,
        amount: String,
        booked_on: NaiveDate,
    },
    /// Numbered before the stringer's `remind-from` day: chased by hand.
    BeforeRemindFrom {
        number: ReceiptNumber,
        from: NaiveDate,
    },
    /// The racket waits for pickup and the invoice was never sent: the customer has not got it.
    NotDelivered {
        number: ReceiptNumber,
        order: OrderId,
    },
    FinalReached {
        number: ReceiptNumber,
        on: NaiveDate,
    },
    /// The invoice (or its last reminder, `last`) gives until `until`.
    NotOverdue {
        number: ReceiptNumber,
        last: Option<Level>,
        until: NaiveDate,
    },
    /// In a run: the next level is due on `on`.
    NotDueYet {
        number: ReceiptNumber,
        level: Level,
        on: NaiveDate,
    },
    /// Another run issued this level meanwhile.
    IssuedMeanwhile {
        number: ReceiptNumber,
        level: Level,
    },
    /// No reminder of this level was issued.
    NoSuchLevel {
        level: Level,
    },
    /// `again` asked of an invoice never reminded.
    NoneToSendAgain {
        number: ReceiptNumber,
    },
    /// A customer without e-mail address, and no way to the post was given.
    NoAddress {
        order: OrderId,
    },
}

/// The last reminder that went, said before why no next one goes: its level, how, and when
/// (local time).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastReminder {
    pub level: Level,
    /// The address it was e-mailed to; None: written for the post, or e-mailed to an address
    /// no longer known.
    pub to: Option<String>,
    pub sent: bool,
    pub on: String,
}
