//! What kind of failure each error is: its class, and the exit code and HTTP status that
//! follow from it.

use super::{exit, Error};

impl Error {
    /// What kind of failure this is; the exit code and the web's HTTP status follow from it.
    pub fn class(&self) -> Class {
        match self {
            Error::AfterSending(failure) => failure.class(),
            Error::Usage(_)
            | Error::ReasonRequired { .. }
            | Error::WhoseUnsaid
            | Error::NotSqlite
            | Error::NotAnOrder { .. }
            | Error::ListedForSeveral { .. } => Class::Usage,
            Error::BadInput(_)
            | Error::Invalid { .. }
            | Error::NotForEinvoice { .. }
            | Error::BlankName
            | Error::SeveralCustomers { .. }
            | Error::SimilarCustomers { .. }
            | Error::NothingToCopy { .. }
            | Error::NoEmail { .. }
            | Error::NoEmailToSend { .. }
            | Error::NoSender { .. }
            | Error::NoStructuredAddress { .. }
            | Error::FileProblems { .. }
            | Error::StrungOutsideYear { .. }
            | Error::YearOutOfRange { .. }
            | Error::NoPrice { .. }
            | Error::AddressRequired { .. }
            | Error::OutOfOrder { .. }
            | Error::CreditOutOfOrder { .. }
            | Error::LongAgo { .. }
            | Error::Unprintable { .. }
            | Error::NotForQrBill { .. }
            | Error::NoVatRate { .. } => Class::BadInput,
            Error::InputFile(_) | Error::NoDatabase { .. } | Error::NoDatabaseDirectory { .. } => {
                Class::NoInput
            }
            Error::NoSuchStringer(_)
            | Error::NoSuchOrder { .. }
            | Error::NoSuchReceipt { .. }
            | Error::NoSuchCreditNote { .. }
            | Error::NoSuchCustomer { .. }
            | Error::NoSuchRacket { .. } => Class::NotFound,
            Error::OutputExists { .. } => Class::Exists,
            Error::Unreachable { .. }
            | Error::ConnectionLost(_)
            | Error::InDoubt(_)
            | Error::MailUnreachable { .. }
            | Error::NoMailServer => Class::Unavailable,
            Error::Busy(_) | Error::NotDurable => Class::Temporary,
            Error::OtherUsersDatabase { .. } | Error::NoPermission { .. } => Class::NoPermission,
            Error::Config { .. } => Class::Config,
            Error::TagTaken { .. }
            | Error::RacketOfAnotherCustomer { .. }
            | Error::AlreadyForgotten { .. }
            | Error::HandleTaken { .. }
            | Error::DocumentFrozen { .. }
            | Error::NotCreditable { .. }
            | Error::NotRemindable { .. }
            | Error::LeftTheShop { .. }
            | Error::NotReady { .. }
            | Error::PickedUp { .. }
            | Error::OwnRacket { .. }
            | Error::AlreadyPaid { .. }
            | Error::AlreadyNotified { .. }
            | Error::MailRefused { .. }
            | Error::Unnumbered { .. }
            | Error::VoidIsFinal { .. }
            | Error::AlreadyVoid { .. }
            | Error::NumberedIsKept { .. }
            | Error::NotListed { .. }
            | Error::PaymentsNeedAttention { .. }
            | Error::AlreadySettled { .. }
            | Error::RestrungBy { .. }
            | Error::NumbersHeld { .. }
            | Error::CreditNumbersHeld { .. }
            | Error::ZoneMovesReceipts { .. }
            | Error::RateMovesReceipts { .. }
            | Error::NoReference { .. }
            | Error::AlreadySent { .. }
            | Error::AlreadySentCredit { .. }
            | Error::NotAll { .. }
            | Error::BackupUnsound { .. }
            | Error::KeyProblem(_)
            | Error::TillRequired { .. }
            | Error::MethodRequired { .. }
            | Error::SetUpAlready { .. }
            | Error::AuditFailed(_) => Class::Refused,
            Error::UnknownZone { .. }
            | Error::CannotMigrate(_)
            | Error::Internal { .. }
            | Error::NotMigrated
            | Error::NewerSchema { .. }
            | Error::DatabaseFile { .. }
            | Error::CounterBehind { .. }
            | Error::CreditCounterBehind { .. }
            | Error::Output(_)
            | Error::Database(_) => Class::Internal,
        }
    }
}

/// The kinds of failure, each with its exit code (the command line's contract).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// The command was asked wrongly (a flag, a setting).
    Usage,
    /// What was given is not acceptable as it is.
    BadInput,
    /// An input file cannot be read.
    NoInput,
    /// No such stringer, order, customer, racket or receipt (for whoever asks).
    NotFound,
    /// Understood, and refused by the state of things (picked up already, void, sent).
    Refused,
    /// An output file exists and differs: nothing is overwritten.
    Exists,
    /// The database or the mail server cannot be reached.
    Unavailable,
    /// Trying again may work (a lock, a collision, a failover under way).
    Temporary,
    /// The program or its set-up is at fault, not the user.
    Internal,
    /// This user may not use the database (it belongs to another).
    NoPermission,
    /// The configuration file cannot be used.
    Config,
}

impl Class {
    pub fn exit_code(self) -> u8 {
        match self {
            Class::Usage => exit::USAGE,
            Class::BadInput => exit::BAD_INPUT,
            Class::NoInput => exit::NO_INPUT,
            Class::Unavailable => exit::UNAVAILABLE,
            Class::Exists => exit::CANNOT_CREATE,
            Class::Temporary => exit::TEMPORARY,
            Class::NoPermission => exit::NO_PERMISSION,
            Class::Config => exit::CONFIG,
            Class::NotFound | Class::Refused | Class::Internal => exit::FAILURE,
        }
    }
}
