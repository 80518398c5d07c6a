//! Credit notes (SPEC 21): why an order cannot be taken back by one.

use super::ReceiptNumber;

/// Why an order cannot be credited: each reason with what it needs to be said. The command
/// line words it (`error.rs`); the counter words it in the page's language (`web::problem`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoCredit {
    /// No receipt number: no document was issued to take back.
    NotNumbered,
    /// A void number's document never left the shop.
    Void {
        number: ReceiptNumber,
        reason: String,
    },
    /// The stringer's own racket: its document asks for no money.
    OwnRacket {
        number: ReceiptNumber,
    },
    AsksNothing {
        number: ReceiptNumber,
    },
    CreditedInFull {
        number: ReceiptNumber,
        by: Vec<String>,
    },
}
