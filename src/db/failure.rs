//! Where a database error is classified: the one function that turns what diesel reports
//! into a `Failure` the rest of the program matches on.
//!
//! Policy: decide on the kind diesel reports (the SQLSTATE class) and never on a server's
//! message, which may be in any language. PostgreSQL lock waits that ran out arrive as
//! serialization failures with a fixed English text (`receipts_begin` and the mint function
//! re-raise them so). SQLite's messages are fixed English texts, never translated, so for
//! SQLite reading them is safe. A missing PostgreSQL schema is found by asking the server
//! (`Db::explain`), since diesel has no kind for it.

use crate::error::{first_line, Busy, Error};
use diesel::result::{DatabaseErrorKind as Kind, Error as DbError};

/// What went wrong, as far as a user can act on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// Trying again may work.
    Busy(Busy),
    ConnectionLost(String),
    /// SQLite: a table of the schema is missing.
    NotMigrated,
    /// SQLite: the file or its filesystem is read-only.
    ReadOnly,
    /// SQLite: the file cannot grow.
    DiskFull,
    /// A unique index refused the row.
    UniqueViolation(Unique),
    CheckViolation,
    /// A rule the database itself enforces refused the change.
    Refused(Rule),
    /// Anything else: reported as it is.
    Other,
}

/// The rules `receipts_mint` enforces, raised with fixed English texts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// A client order without a price.
    NoPrice,
    /// A strung time before the last issued number of the year, without --backdate.
    OutOfOrder,
    /// A stringer who charges VAT, without a rate in force on the strung date.
    NoVatRate,
    /// A VAT-registered stringer's order above the small-amount limit without the
    /// customer's address.
    NoAddress,
}

/// The unique indexes the program reacts to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unique {
    /// One receipt number per stringer (`orders_receipt_number_key`).
    ReceiptNumber,
    /// One credit note number per stringer (`credit_notes_number_key`).
    CreditNumber,
    /// One stringer per handle.
    Handle,
    Other,
}

/// Classifies a diesel error.
pub fn classify(error: &DbError) -> Failure {
    let DbError::DatabaseError(kind, info) = error else {
        return Failure::Other;
    };
    let message = info.message();
    match kind {
        Kind::SerializationFailure if message == "receipts: lock timeout" => Failure::Busy(Busy::LockTimeout),
        Kind::SerializationFailure if message == "receipts: deadlock" => Failure::Busy(Busy::Deadlock),
        Kind::SerializationFailure => Failure::Busy(Busy::Collision),
        Kind::ClosedConnection | Kind::UnableToSendCommand => Failure::ConnectionLost(first_line(message)),
        // PostgreSQL: a session that began on the primary, which is a standby now.
        Kind::ReadOnlyTransaction => Failure::ConnectionLost(format!(
            "the server became a standby (a failover?): {}",
            first_line(message)
        )),
        Kind::UniqueViolation => Failure::UniqueViolation(unique_index(info.constraint_name(), message)),
        Kind::CheckViolation => Failure::CheckViolation,
        // SQLite's own texts (SQLITE_BUSY, SQLITE_LOCKED, SQLITE_READONLY, SQLITE_FULL).
        _ if message == "receipts: no price" => Failure::Refused(Rule::NoPrice),
        _ if message == "receipts: out of order" => Failure::Refused(Rule::OutOfOrder),
        _ if message == "receipts: no vat rate" => Failure::Refused(Rule::NoVatRate),
        _ if message == "receipts: no address" => Failure::Refused(Rule::NoAddress),
        _ if message == "database is locked" || message.starts_with("database table is locked") => {
            Failure::Busy(Busy::FileLocked)
        }
        _ if message.starts_with("no such table") => Failure::NotMigrated,
        _ if message.contains("readonly database") => Failure::ReadOnly,
        _ if message.contains("database or disk is full") => Failure::DiskFull,
        // SQLite reports a failed CHECK with the generic kind and a fixed text.
        _ if message.starts_with("CHECK constraint failed") => Failure::CheckViolation,
        _ => Failure::Other,
    }
}

/// Which index: PostgreSQL names it; SQLite names its columns ("UNIQUE constraint failed:
/// orders.stringer_id, orders.receipt_number").
fn unique_index(constraint: Option<&str>, message: &str) -> Unique {
    match constraint {
        Some("orders_receipt_number_key") => Unique::ReceiptNumber,
        Some("credit_notes_number_key") => Unique::CreditNumber,
        Some("stringers_handle_key") => Unique::Handle,
        Some(_) => Unique::Other,
        None if message.contains("orders.receipt_number") => Unique::ReceiptNumber,
        None if message.contains("credit_notes.credit_year") => Unique::CreditNumber,
        None if message.contains("stringers.handle") => Unique::Handle,
        None => Unique::Other,
    }
}

impl From<DbError> for Error {
    /// A database failure as the user meets it: retryable, connection lost, schema missing,
    /// or plain (exit 1). Failures that need more context (a read-only file, a full disk, a
    /// number collision) are explained by the code that has it.
    fn from(error: DbError) -> Self {
        match classify(&error) {
            Failure::Busy(busy) => Error::Busy(busy),
            Failure::ConnectionLost(message) => Error::ConnectionLost(message),
            Failure::NotMigrated => Error::NotMigrated,
            _ => Error::Database(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unique_indexes_are_told_apart_on_both_backends() {
        assert_eq!(unique_index(Some("orders_receipt_number_key"), ""), Unique::ReceiptNumber);
        assert_eq!(
            unique_index(None, "UNIQUE constraint failed: orders.stringer_id, orders.receipt_number"),
            Unique::ReceiptNumber
        );
        assert_eq!(unique_index(None, "UNIQUE constraint failed: stringers.handle"), Unique::Handle);
        assert_eq!(unique_index(Some("orders_v1_key"), ""), Unique::Other);
    }
}
