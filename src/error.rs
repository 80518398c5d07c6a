//! Failures a user can act on, each with its documented exit code. Everything else is a
//! plain database failure (exit 1) reported with its context.

use std::process::ExitCode;

/// Exit codes of the command-line contract.
pub mod exit {
    pub const FAILURE: u8 = 1;
    pub const USAGE: u8 = 2;
    pub const BAD_INPUT: u8 = 65;
    pub const NO_INPUT: u8 = 66;
    pub const UNAVAILABLE: u8 = 69;
    pub const TEMPORARY: u8 = 75;
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Usage(String),

    #[error("there is no stringer \"{0}\" (see `receipts stringer list`)")]
    NoSuchStringer(String),

    /// An order id that does not exist, or not for the stringer named.
    #[error("{}", match .stringer { Some(s) => format!("stringer {s} has no order {order}"), None => format!("there is no order {order}") })]
    NoSuchOrder { order: crate::domain::OrderId, stringer: Option<String> },

    #[error("stringer {stringer} has no receipt {number}")]
    NoSuchReceipt { number: crate::domain::ReceiptNumber, stringer: String },

    #[error("{0}")]
    Refused(String),

    #[error("{0}")]
    BadInput(String),

    #[error("{0}")]
    InputFile(String),

    #[error("cannot reach the database at {url}: {reason}")]
    Unreachable { url: String, reason: String },

    #[error("lost the connection to the database: {0}")]
    ConnectionLost(String),

    #[error("the database has no receipts schema yet, or an older one: run `receipts db migrate` first")]
    NotMigrated,

    /// The database file itself is the problem: read-only, full, unopenable.
    #[error("the database {path} {problem}")]
    DatabaseFile { path: String, problem: String },

    /// Lock waits that ran out, serialization failures, deadlocks: trying again may work.
    #[error("{0}; nothing was changed, try again")]
    Busy(String),

    #[error(
        "receipt number {number} is already taken by another order of stringer {stringer}: \
         the counter for {year} is behind the orders (was the database restored?); \
         nothing was changed: run `receipts resync-counters`"
    )]
    CounterBehind { stringer: String, year: i32, number: String },

    /// The audit found what it reports; the report itself went to stdout.
    #[error("{0}")]
    AuditFailed(String),

    #[error("{}", one_line(.0))]
    Database(diesel::result::Error),

    /// Writing the output failed (or its reader went away: `receipts order list | head`).
    #[error("cannot write the output")]
    Output(#[from] std::io::Error),
}

impl Error {
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Usage(_) => exit::USAGE,
            Error::BadInput(_) => exit::BAD_INPUT,
            Error::InputFile(_) => exit::NO_INPUT,
            Error::Unreachable { .. } | Error::ConnectionLost(_) => exit::UNAVAILABLE,
            Error::Busy(_) => exit::TEMPORARY,
            Error::NoSuchStringer(_)
            | Error::NoSuchOrder { .. }
            | Error::NoSuchReceipt { .. }
            | Error::Refused(_)
            | Error::NotMigrated
            | Error::DatabaseFile { .. }
            | Error::CounterBehind { .. }
            | Error::AuditFailed(_)
            | Error::Output(_)
            | Error::Database(_) => exit::FAILURE,
        }
    }
}

impl From<diesel::result::Error> for Error {
    /// Sorts database failures into what the user can do about them, by their kind (the
    /// SQLSTATE class diesel reports) and never by a server's message, which may be in any
    /// language. Lock waits that ran out on PostgreSQL arrive as serialization failures
    /// (`receipts_begin` and `receipts_mint` report them so); SQLite's busy error has a fixed
    /// English text. A missing schema is found by asking the server (`Db::explain`).
    fn from(error: diesel::result::Error) -> Self {
        use diesel::result::{DatabaseErrorKind as Kind, Error as DbError};
        let DbError::DatabaseError(kind, info) = &error else {
            return Error::Database(error);
        };
        let message = info.message();
        match kind {
            Kind::SerializationFailure if message == "receipts: lock timeout" => {
                Error::Busy("another transaction held a lock for longer than the lock timeout".into())
            }
            Kind::SerializationFailure if message == "receipts: deadlock" => {
                Error::Busy("the transaction deadlocked with another one".into())
            }
            Kind::SerializationFailure => Error::Busy("the transaction collided with another one".into()),
            Kind::ClosedConnection | Kind::UnableToSendCommand => {
                Error::ConnectionLost(crate::db::first_line(message))
            }
            // SQLite's own texts (SQLITE_BUSY, SQLITE_LOCKED), which it never translates.
            _ if message == "database is locked" || message.starts_with("database table is locked") => {
                Error::Busy(
                    "another process kept the database locked for longer than the lock timeout".into(),
                )
            }
            _ if message.starts_with("no such table") => Error::NotMigrated,
            _ => Error::Database(error),
        }
    }
}

/// The exit code for an error that reached `main`: the first `Error` in its chain decides.
pub fn exit_code_of(error: &anyhow::Error) -> ExitCode {
    let code =
        error.chain().find_map(|cause| cause.downcast_ref::<Error>()).map_or(exit::FAILURE, Error::exit_code);
    ExitCode::from(code)
}

/// A database failure in one line: a client library's message may run over several.
fn one_line(error: &diesel::result::Error) -> String {
    crate::db::first_line(&error.to_string())
}
