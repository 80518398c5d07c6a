//! The reasons a reminder or a credit note is refused, as the command line words them: with
//! the commands that help (the counter words them in the page's language, `web::problem`).

use crate::domain::{LastReminder, NoCredit, NoReminder};

/// Why no reminder goes, as the command line says it: with the commands that help.
impl std::fmt::Display for NoReminder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use NoReminder::*;
        match self {
            NotNumbered => write!(f, "it has no receipt number, so no invoice was issued"),
            Void { number, reason } => write!(f, "{number} is void ({reason})"),
            OwnRacket { number } => write!(f, "{number} is the stringer's own racket, which asks for no money"),
            Paid { number, on } => write!(f, "{number} is paid (on {on})"),
            CreditedInFull { number, by } => {
                write!(f, "{number} is credited in full (by {}), so nothing is owed", by.join(", "))
            }
            AsksNothing { number } => write!(f, "{number} asks for no money"),
            FromV1 { number } => {
                write!(f, "{number} was brought in by migrate-v1, and the old system's invoices are chased by hand")
            }
            BankPaymentWaits { number, amount, booked_on } => write!(
                f,
                "a bank transaction of {amount} booked on {booked_on} names invoice {number} and waits in \
                 `receipts payments list --open`: settle it first"
            ),
            BeforeRemindFrom { number, from } => write!(
                f,
                "invoice {number} was numbered before the stringer's --remind-from {from}, and is chased by hand"
            ),
            NotDelivered { number, order } => write!(
                f,
                "the customer has not got invoice {number}: the racket waits for pickup and the invoice was never \
                 sent (send it: `receipts send {order}`)"
            ),
            FinalReached { number, on } => write!(
                f,
                "invoice {number} had its final reminder on {on}: there is no fourth (collection is by hand)"
            ),
            NotOverdue { number, last: None, until } => {
                write!(f, "invoice {number} is due on {until}: not overdue yet")
            }
            NotOverdue { number, last: Some(level), until } => {
                write!(f, "reminder {level} of invoice {number} gives until {until}: not overdue yet")
            }
            NotDueYet { number, level, on } => write!(f, "reminder {level} of invoice {number} is due on {on}"),
            IssuedMeanwhile { number, level } => {
                write!(f, "reminder {level} of invoice {number} was issued meanwhile")
            }
            NoSuchLevel { level } => write!(f, "it has no reminder {level}"),
            NoneToSendAgain { number } => write!(f, "invoice {number} has no reminder yet to send again"),
            NoAddress { order } => write!(
                f,
                "its customer has no e-mail address: pass --out-dir DIR to write the reminder for the post, or \
                 set the address (`receipts order edit {order} --email ...`)"
            ),
        }
    }
}

impl std::fmt::Display for LastReminder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let how = match (self.sent, &self.to) {
            (true, Some(to)) => format!("sent to {to}"),
            (true, None) => "sent".to_string(),
            (false, _) => "written for the post".to_string(),
        };
        write!(f, "reminder {} was {how} on {}", self.level, self.on)
    }
}

/// Why no credit note can be issued, as the command line says it.
impl std::fmt::Display for NoCredit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoCredit::NotNumbered => {
                write!(
                    f,
                    "it has no receipt number, so no document was issued to take back (edit or delete it)"
                )
            }
            NoCredit::Void { number, reason } => {
                write!(f, "{number} is void ({reason}): a void number's document never left the shop")
            }
            NoCredit::OwnRacket { number } => {
                write!(f, "{number} is the stringer's own racket, whose document asks for no money")
            }
            NoCredit::AsksNothing { number } => {
                write!(f, "{number} asks for no money, so there is nothing to credit")
            }
            NoCredit::CreditedInFull { number, by } => write!(
                f,
                "{number} is credited in full already (by {}): nothing is left to credit",
                by.join(", ")
            ),
        }
    }
}
