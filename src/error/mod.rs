//! Failures a user can act on, each with its documented exit code and its wording in one
//! place. Refusals carry their data (tests match on the data, people read the sentence);
//! database failures arrive here already classified by `db::failure`.

use crate::domain::{CreditNumber, LastReminder, NoCredit, NoReminder, OrderId, ReceiptNumber};
use std::fmt;
use std::process::ExitCode;

mod class;
mod reasons;
mod sentences;
pub use class::Class;
use sentences::*;

/// Exit codes of the command-line contract.
pub mod exit {
    pub const FAILURE: u8 = 1;
    pub const USAGE: u8 = 2;
    pub const BAD_INPUT: u8 = 65;
    pub const NO_INPUT: u8 = 66;
    pub const UNAVAILABLE: u8 = 69;
    /// An output file exists and holds something else: nothing is ever overwritten.
    pub const CANNOT_CREATE: u8 = 73;
    pub const TEMPORARY: u8 = 75;
    /// The database belongs to another user, or cannot be reached for permissions.
    pub const NO_PERMISSION: u8 = 77;
    /// The configuration file is missing, unreadable or has a line that is no setting.
    pub const CONFIG: u8 = 78;
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Usage(String),

    #[error("there is no stringer \"{0}\" (see `receipts stringer list`)")]
    NoSuchStringer(String),

    /// An order id that does not exist, or not for the stringer named.
    #[error("{}", match .stringer { Some(s) => format!("stringer {s} has no order {order}"), None => format!("there is no order {order}") })]
    NoSuchOrder { order: OrderId, stringer: Option<String> },

    /// A customer id that does not exist, or not for the stringer named.
    #[error("{}", match .stringer { Some(s) => format!("stringer {s} has no customer {customer}"), None => format!("there is no customer {customer}") })]
    NoSuchCustomer { customer: crate::domain::CustomerId, stringer: Option<String> },

    /// A racket (by id or tag) that does not exist, or not for the stringer named.
    #[error("{}", match .stringer { Some(s) => format!("stringer {s} has no racket {racket}"), None => format!("there is no racket {racket}") })]
    NoSuchRacket { racket: String, stringer: Option<String> },

    /// A racket tag another racket of the stringer has.
    #[error("the tag \"{tag}\" is racket {racket}'s already: tags tell a stringer's rackets apart")]
    TagTaken { tag: String, racket: crate::domain::RacketId },

    /// A name several customers of the register have: which one is meant.
    #[error(
        "{} customers are called \"{name}\": say which with --customer-id ID ({})",
        .candidates.len(),
        .candidates.join("; ")
    )]
    SeveralCustomers { name: String, candidates: Vec<String> },

    /// A name no customer has, while some have one like it (asked at the counter before a
    /// near-duplicate is added).
    #[error(
        "no customer is called \"{name}\", but {} a name like it: {}; take one of them, or confirm a new customer",
        if .similar.len() == 1 { "one has".to_string() } else { format!("{} have", .similar.len()) },
        .similar.iter().map(|(id, name)| format!("{name} ({id})")).collect::<Vec<_>>().join("; ")
    )]
    SimilarCustomers { name: String, similar: Vec<(crate::domain::CustomerId, String)> },

    /// A racket of one customer named for another's order.
    #[error("racket {racket} is not customer {customer}'s: name one of theirs, or add it (`receipts racket add --customer {customer}`)")]
    RacketOfAnotherCustomer { racket: crate::domain::RacketId, customer: crate::domain::CustomerId },

    /// `--same` for a racket that was never strung.
    #[error(
        "racket {racket} has no strung order to copy: give --string, --tension and --price instead of --same"
    )]
    NothingToCopy { racket: crate::domain::RacketId },

    /// A customer without a name.
    #[error("a customer needs a name: the name given is empty")]
    BlankName,

    #[error("customer {customer} was forgotten on {on}: nothing of them is left to forget")]
    AlreadyForgotten { customer: crate::domain::CustomerId, on: chrono::NaiveDate },

    #[error("stringer {stringer} has no receipt {number}")]
    NoSuchReceipt { number: ReceiptNumber, stringer: String },

    #[error("there is already a stringer \"{handle}\" (handles ignore case)")]
    HandleTaken { handle: String },

    /// A stored time zone this program's time-zone table does not have.
    #[error("stringer {stringer} has a time zone this program does not know: \"{zone}\"")]
    UnknownZone { stringer: String, zone: String },

    /// The order has no receipt number, and what was asked needs one.
    #[error("{}", unnumbered(*.order, *.wanted))]
    Unnumbered { order: OrderId, wanted: Wanted },

    /// A void order is final: it can be restrung into a new order, nothing else.
    #[error(
        "order {order} ({number}) is void ({reason}) and cannot be {action}; \
         for a new order of the same racket run `receipts order restring {order}`"
    )]
    VoidIsFinal { order: OrderId, number: ReceiptNumber, reason: String, action: &'static str },

    #[error("order {order} ({number}) is already void: {reason}")]
    AlreadyVoid { order: OrderId, number: ReceiptNumber, reason: String },

    #[error(
        "order {order} holds receipt {number} and can never be deleted: void it instead \
         (`receipts void --order {order} --reason ...`)"
    )]
    NumberedIsKept { order: OrderId, number: ReceiptNumber },

    #[error("order {order} cannot be deleted: order {copy} restrings it")]
    RestrungBy { order: OrderId, copy: OrderId },

    /// `void --number` of numbers that orders hold: they are not lost.
    #[error("{}", held_numbers(.numbers, .stringer, .held, *.more))]
    NumbersHeld { numbers: String, stringer: String, held: Vec<(ReceiptNumber, OrderId)>, more: bool },

    /// `void --number C-...` of credit numbers that credit notes hold: they are not lost.
    #[error(
        "{numbers} of stringer {stringer} includes numbers that credit notes hold, so they are not lost: {}; \
         void only the numbers no credit note holds (`receipts audit` lists them as gaps)",
        .held.join(", ")
    )]
    CreditNumbersHeld { numbers: String, stringer: String, held: Vec<String> },

    /// A new time zone would move issued receipts into another year.
    #[error("{}", zone_moves(.stringer, .from, .to, .moved, *.count))]
    ZoneMovesReceipts { stringer: String, from: String, to: String, moved: Vec<String>, count: i64 },

    /// A VAT rate from a date on or before issued receipts would change the rate they show.
    #[error("{}", rate_moves(.stringer, .shown, *.count))]
    RateMovesReceipts { stringer: String, shown: Vec<String>, count: usize },

    /// An order strung again after `unstring` keeps its number, so it keeps its year.
    #[error(
        "order {order} holds receipt {number}, so it can only be strung again in {}, \
         not on {at} ({year}); for a new number run `receipts order restring {order}`",
        .number.year
    )]
    StrungOutsideYear { order: OrderId, number: ReceiptNumber, at: String, year: i32 },

    /// A numbered order's document is fixed: a correction is a void (while the document
    /// never left the shop) or a credit note, and a new order.
    #[error(
        "order {order} holds receipt {number}, and what its document shows ({}) cannot change: {}, \
         then `receipts order restring {order}` for a corrected new order",
        .fields.join(", "),
        match .left_the_shop {
            Some(how) => format!("it {how}, so take it back with a credit note (`receipts credit {order} --reason ...`)"),
            None => format!("void it (`receipts void --order {order} --reason ...`)"),
        }
    )]
    DocumentFrozen {
        order: OrderId,
        number: ReceiptNumber,
        fields: Vec<&'static str>,
        left_the_shop: Option<&'static str>,
    },

    /// An order no credit note can take back, and why.
    #[error("order {order} cannot be credited: {why}")]
    NotCreditable { order: OrderId, why: NoCredit },

    /// An order no reminder goes to now, and why.
    #[error("order {order} gets no reminder: {}{why}", last.as_ref().map(|l| format!("{l}; ")).unwrap_or_default())]
    NotRemindable { order: OrderId, last: Option<LastReminder>, why: NoReminder },

    #[error("stringer {stringer} has no credit note {number}")]
    NoSuchCreditNote { number: CreditNumber, stringer: String },

    /// A void of a document the customer has: only a credit note takes it back.
    #[error(
        "order {order} ({number}) {how}, so its document is the customer's and a void cannot take it \
         back: issue a credit note (`receipts credit {order} --reason ...`)"
    )]
    LeftTheShop { order: OrderId, number: ReceiptNumber, how: &'static str },

    /// A racket that is not strung is not ready: no pickup, no ready notice.
    #[error(
        "order {order} is not strung, so its racket is not ready: mint it when it is \
         (`receipts mint --order {order}`)"
    )]
    NotReady { order: OrderId },

    /// A racket back with its owner: nothing about its pickup changes any more.
    #[error("order {order} was picked up on {on}: {what}")]
    PickedUp { order: OrderId, on: String, what: &'static str },

    /// A stringer's own racket is not picked up, nor told it is ready.
    #[error("order {order} is the stringer's own racket: nobody picks it up or is told it is ready")]
    OwnRacket { order: OrderId },

    /// A payment (at pickup or not) of an order paid before.
    #[error("order {order} was paid on {on}{}: {}", .method.as_ref().map(|m| format!(" ({m})")).unwrap_or_default(),
            if *.at_pickup { "pick it up without --paid" } else { "nothing is left to pay" })]
    AlreadyPaid { order: OrderId, on: String, method: Option<String>, at_pickup: bool },

    /// A ready notice for an order without the customer's e-mail address.
    #[error(
        "order {order} has no customer e-mail address: set it with `receipts order edit {order} --email ...`"
    )]
    NoEmail { order: OrderId },

    /// A document to send for an order without the customer's e-mail address, and no `--to`.
    #[error(
        "order {order} has no customer e-mail address: pass --to ADDRESS, or set it with `receipts order edit {order} --email ...`"
    )]
    NoEmailToSend { order: OrderId },

    /// A time given by hand before last year, without `--backdate`.
    #[error("{at} is in {year}, not in {this_year} or {}: pass --backdate if it really was {done} then", .this_year - 1)]
    LongAgo { at: String, year: i32, this_year: i32, done: &'static str },

    /// Mail to send for a stringer without an address of its own.
    #[error("stringer {stringer} has no e-mail address to send from: set it with `receipts stringer edit {stringer} --email ...`")]
    NoSender { stringer: String },

    /// A Swiss IBAN (paid through QR-bills) without the stringer's structured address.
    #[error(
        "a Swiss IBAN pays through QR-bills, which need the stringer's structured address: set it with \
         `receipts stringer edit {stringer} --street ... --house-number ... --postcode ... --town ... --country ...`"
    )]
    NoStructuredAddress { stringer: String },

    /// An SQLite file to read that is not there.
    #[error("there is no database at {path}: check --database-url or DATABASE_URL")]
    NoDatabase { path: String },

    /// An SQLite file to write in a directory that is not there (a typo must not start a
    /// second numbering elsewhere).
    #[error("there is no directory {dir} for the database {path}: check --database-url or DATABASE_URL")]
    NoDatabaseDirectory { dir: String, path: String },

    /// `backup` of a PostgreSQL database: its own tools back it up.
    #[error(
        "backup copies an SQLite file; back PostgreSQL up with pg_dump \
         (pg_dump --format=custom --file=receipts.dump \"$DATABASE_URL\"), see docs/RESTORE.md"
    )]
    NotSqlite,

    /// A command that needs a stringer on a database of several, none named.
    #[error("say whose this is: pass --stringer HANDLE or set RECEIPTS_STRINGER")]
    WhoseUnsaid,

    /// An order named by neither its id nor a receipt number.
    #[error("\"{given}\" is not an order id (a positive integer), or a receipt number YYYY-NNNN (with --stringer)")]
    NotAnOrder { given: String },

    /// `notify` of an order whose customer was told before, without `--again`.
    #[error("the customer of order {order} was told on {on} ({to}) that the racket is ready: pass --again to tell them once more")]
    AlreadyNotified { order: OrderId, on: String, to: String },

    /// A client's receipt without an amount is no receipt.
    #[error(
        "order {order} has no price, and a client's receipt needs one: set it with \
         `receipts order edit {order} --price ...`, then mint"
    )]
    NoPrice { order: OrderId },

    /// An invoice above the small-amount limit of a VAT-registered stringer names the
    /// customer's address (Swiss MWSTV art. 57: CHF 400; German UStDV § 33: EUR 250).
    #[error(
        "order {order} is over the small-amount limit ({amount}) and its invoice must name the customer's \
         address: set it with `receipts order edit {order} --customer-address ...`, or mint with \
         --without-address (the journal records it)"
    )]
    AddressRequired { order: OrderId, amount: String },

    /// Numbers follow time: a strung time before the last issued number of the year.
    #[error(
        "{at} is before {previous}, strung {previous_at}: numbers follow time; to enter an earlier \
         racket after later ones on purpose, add --backdate (the journal records it)"
    )]
    OutOfOrder { at: String, previous: ReceiptNumber, previous_at: String },

    /// A credit note dated before the last one of its year, without `--backdate`.
    #[error("--at {at} is before {previous} of {previous_at}: credit notes follow time (pass --backdate if that is meant)")]
    CreditOutOfOrder { at: String, previous: CreditNumber, previous_at: String },

    /// A payment cleared without saying why.
    #[error("clearing the payment of order {order} needs a reason for the journal: pass --reason TEXT")]
    ReasonRequired { order: OrderId },

    /// Text the document's fonts cannot print, refused where it is entered.
    #[error(
        "the {field} holds \"{character}\" (U+{:04X}), which receipts cannot print: write it in Latin, \
         Greek or Cyrillic letters",
        *.character as u32
    )]
    Unprintable { field: &'static str, character: char },

    /// A document that shows VAT needs the rate in force.
    #[error(
        "stringer {stringer} has a VAT number but no VAT rate in force on {date}, and a document that \
         shows VAT needs its rate: set it with `receipts stringer edit {stringer} --vat-rate PERCENT --vat-from DATE`"
    )]
    NoVatRate { stringer: String, date: chrono::NaiveDate },

    /// Text that a QR-bill cannot carry (character set or length): banks reject such bills.
    #[error("the {field} {problem}")]
    NotForQrBill { field: &'static str, problem: String },

    /// The mail server refused the message (a recipient, the sender, the login).
    #[error("the mail server {server} refused the message: {reason}")]
    MailRefused { server: String, reason: String },

    /// Mail was asked of a counter started without a mail server.
    #[error("no mail server: start `receipts serve` with --smtp-url")]
    NoMailServer,

    /// The mail server could not be reached, or stopped answering.
    #[error("cannot reach the mail server {server}: {reason}")]
    MailUnreachable { server: String, reason: String },

    /// An instant whose local year the receipt numbers cannot hold.
    #[error("{at} is in the year {year}: receipts are numbered in the years {} to {}", crate::domain::YEARS.start(), crate::domain::YEARS.end())]
    YearOutOfRange { at: String, year: i32 },

    /// Bank transactions of a file that could not be applied (each listed with its reason).
    #[error(
        "{} of {file} could not be applied (see the reasons listed): nothing was changed for {}; \
         once handled, `receipts payments settle BANK_REF --reason ...`",
        if *.count == 1 { "1 payment".to_string() } else { format!("{} payments", .count) },
        if *.count == 1 { "it" } else { "them" }
    )]
    PaymentsNeedAttention { file: String, count: usize },

    /// `payments settle` of a bank transaction no import listed.
    #[error(
        "no import listed bank transaction {bank_reference} as needing attention (see `receipts payments list`)"
    )]
    NotListed { bank_reference: String },

    /// `payments settle` of a bank transaction listed for several stringers, none named.
    #[error("bank transaction {bank_reference} is listed for several stringers ({}): say whose with --stringer", .stringers.join(", "))]
    ListedForSeveral { bank_reference: String, stringers: Vec<String> },

    #[error("bank transaction {bank_reference} was settled already on {on}: {reason}")]
    AlreadySettled { bank_reference: String, on: chrono::NaiveDate, reason: String },

    /// An output file that exists and differs: nothing is ever overwritten.
    #[error("{path} exists already and {what} never overwrites a file: choose another name")]
    OutputExists { path: String, what: &'static str },

    /// A document whose receipt number outgrows the payment reference's fields.
    #[error("receipt {number} of {stringer} has no payment reference: its number is beyond the reference's fields")]
    NoReference { number: ReceiptNumber, stringer: String },

    /// `send` of a document sent before, without `--again`.
    #[error("credit note {number} was sent on {on} to {to}; pass --again to send it once more")]
    AlreadySentCredit { number: CreditNumber, on: String, to: String },

    #[error("receipt {number} (order {order}) was sent on {on} to {to}: pass --again to send it once more")]
    AlreadySent { number: ReceiptNumber, order: OrderId, on: String, to: String },

    /// Some documents of a batch could not go out or be written; the others did.
    #[error(
        "{} could not be {} (first: {first}); {}",
        if *.count == 1 { "1 document".to_string() } else { format!("{} documents", .count) },
        if *.sending { "sent" } else { "written" },
        if *.sending { "running the command again sends only those" } else { "the others were" }
    )]
    NotAll { count: usize, first: String, sending: bool },

    /// A backup that does not check out as a copy of the database.
    #[error("the backup {path} {why}; it was removed")]
    BackupUnsound { path: String, why: String },

    /// The embedded migrations could not be applied or read.
    #[error("cannot migrate the database: {0}")]
    CannotMigrate(String),

    /// Something the program itself got wrong (a library's failure it cannot explain better):
    /// what it was doing, and what it was told.
    #[error("{what}: {detail}")]
    Internal { what: &'static str, detail: String },

    #[error("{0}")]
    BadInput(String),

    /// A signing key missing, not the one recorded, or recorded already.
    #[error("{0}")]
    KeyProblem(String),

    /// A payment at the counter the stringer's country wants recorded by a certified till.
    #[error("{method} payments at the counter in {country} must go through a certified till ({law}), which this program is not: record it with --{way} till once the shop's till has taken it")]
    TillRequired { method: String, country: &'static str, law: &'static str, way: &'static str },

    /// A payment entered without its method where only a certified till may take some.
    #[error("a payment in {country} needs its method, since some may only be taken by a certified till ({law}): pass --method (till, if the shop's till took it)")]
    MethodRequired { country: &'static str, law: &'static str },

    /// A document EN 16931 or FatturaPA cannot carry as it is (SPEC 24).
    #[error("document {number} cannot be an e-invoice: its {field} {problem}")]
    NotForEinvoice { number: String, field: &'static str, problem: String },

    /// A value given for one input that cannot be taken: `--tension "abc" is not a tension`.
    /// The command line names the flag; a form shows the problem beside its field.
    #[error("--{} {problem}", .field.replace('_', "-"))]
    Invalid { field: &'static str, problem: String },

    /// A file with problems, each of its line (the first of them are listed before the error).
    #[error(
        "the file has {} problem{}; nothing was written (the first {} listed above)",
        .total,
        if *.total == 1 { "" } else { "s" },
        if .listed.len() == 1 { "is".to_string() } else { format!("{} are", .listed.len()) }
    )]
    FileProblems { total: usize, listed: Vec<String> },

    #[error("{0}")]
    InputFile(String),

    #[error("cannot reach the database at {url}: {reason}")]
    Unreachable { url: String, reason: String },

    #[error("lost the connection to the database: {0}")]
    ConnectionLost(String),

    /// The connection died while COMMIT was on its way: whether the change was saved is
    /// unknown until the command is run again (every change a retry may repeat finds out).
    #[error(
        "lost the connection to the database while committing ({0}): the change may or may not \
         have been saved; run the same command again to find out (a mint prints the number it \
         gave, or mints it now)"
    )]
    InDoubt(String),

    /// What was read could not be confirmed as stored on a synchronous standby (lost while
    /// the confirmation waited), so a failover could take it back: nothing is reported until
    /// it can be.
    #[error(
        "the database lost its synchronous standby while confirming that what it shows is stored \
         there (a standby gone, or a failover under way), so a failover could take it back: nothing \
         was printed; run the same command again (--retry-for waits)"
    )]
    NotDurable,

    #[error("the database has no receipts schema yet, or an older one: run `receipts db migrate` first")]
    NotMigrated,

    /// A database migrated by a newer program (a package downgraded, a newer machine's backup
    /// restored): refused before anything is read or written.
    #[error(
        "this database was migrated by a newer receipts (its newest migration is {database}); \
         this program knows up to {program}: install the newer version"
    )]
    NewerSchema { database: String, program: String },

    /// The configuration file named cannot be read, or a line of it is no `KEY=value`.
    #[error("the configuration {}{}: {problem}", .file, match .line { Some(n) => format!(" line {n}"), None => String::new() })]
    Config { file: String, line: Option<usize>, problem: String },

    /// An SQLite file of another user: opening it would leave files of ours beside it
    /// (`-wal`, `-shm`) that its owner, the service, cannot open.
    #[error("the database {path} belongs to {owner}: run it as that user (sudo -u {owner} receipts …)")]
    OtherUsersDatabase { path: String, owner: String },

    /// A database this user may not reach at all (a directory's permissions).
    #[error("the database {path} cannot be reached by this user: {reason}")]
    NoPermission { path: String, reason: String },

    /// The first run on a shop that has a stringer already.
    #[error("this shop is set up already (stringer {stringer}): change it with `receipts stringer edit`, add accounts with `receipts account add`; nothing changed")]
    SetUpAlready { stringer: String },

    /// The database file itself is the problem: read-only, full, unopenable.
    #[error("the database {path} {problem}")]
    DatabaseFile { path: String, problem: String },

    /// Lock waits that ran out, serialization failures, deadlocks: trying again may work.
    #[error("{0}; nothing was changed, try again")]
    Busy(Busy),

    #[error(
        "receipt number {number} is already taken by another order of stringer {stringer}: \
         the counter for {} is behind the orders (was the database restored?); \
         nothing was changed: run `receipts resync-counters`",
        .number.year
    )]
    CounterBehind { stringer: String, number: ReceiptNumber },

    #[error(
        "credit note number {number} is already taken by another credit note of stringer {stringer}: \
         the credit note counter for {} is behind (was the database restored?); nothing was changed: \
         run `receipts resync-counters`",
        .number.0.year
    )]
    CreditCounterBehind { stringer: String, number: CreditNumber },

    /// The audit found what it reports; the report itself went to stdout.
    #[error("{0}")]
    AuditFailed(String),

    #[error("{}", first_line(&.0.to_string()))]
    Database(diesel::result::Error),

    /// The mail server accepted a message, then this failed (its journal entry): running the
    /// command again would send it twice, so it is never retried by itself.
    #[error("{0}")]
    AfterSending(Box<Error>),

    /// Writing the output failed (or its reader went away: `receipts order list | head`).
    #[error("cannot write the output")]
    Output(#[from] std::io::Error),
}

/// What was asked of an order that has no receipt number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wanted {
    Void,
    Restring,
    Receipt,
    Send,
}

/// Why trying again may work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Busy {
    /// PostgreSQL: a lock held by another transaction for longer than the lock timeout.
    LockTimeout,
    Deadlock,
    /// A serialization failure.
    Collision,
    /// SQLite: another process kept the file locked.
    FileLocked,
    /// Another import created a stringer of the file while this one was planned.
    ConcurrentImport,
}

impl fmt::Display for Busy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Busy::LockTimeout => "another transaction held a lock for longer than the lock timeout",
            Busy::Deadlock => "the transaction deadlocked with another one",
            Busy::Collision => "the transaction collided with another one",
            Busy::FileLocked => "another process kept the database locked for longer than the lock timeout",
            Busy::ConcurrentImport => {
                "another import created a stringer of this file while this one was planned"
            }
        })
    }
}

/// A time given by hand that is not taken: the parser's words, or before last year.
impl From<crate::domain::Unlikely> for Error {
    fn from(unlikely: crate::domain::Unlikely) -> Error {
        match unlikely {
            crate::domain::Unlikely::Wrong(text) => Error::BadInput(text),
            crate::domain::Unlikely::LongAgo { at, year, this_year, done } => {
                Error::LongAgo { at, year, this_year, done }
            }
        }
    }
}

/// The operating system gave no random bytes (for a session, a form's token, a one-time code).
impl From<getrandom::Error> for Error {
    fn from(e: getrandom::Error) -> Error {
        Error::Internal { what: "drawing a random token", detail: e.to_string() }
    }
}

impl Error {
    /// An input file that cannot be opened or read: "cannot read x.csv: no such file".
    pub fn cannot_read(path: &std::path::Path, e: &std::io::Error) -> Error {
        let reason = match e.kind() {
            std::io::ErrorKind::NotFound => "no such file".to_string(),
            std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
            _ => e.to_string(),
        };
        Error::InputFile(format!("cannot read {}: {reason}", path.display()))
    }

    pub fn exit_code(&self) -> u8 {
        self.class().exit_code()
    }

    /// The input a refusal is about, by the name its flag and its form field share
    /// (`tension`, `item`, `customer`), so that a form shows it beside that field.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            Error::Invalid { field, .. } => Some(field),
            Error::BlankName | Error::SeveralCustomers { .. } | Error::SimilarCustomers { .. } => {
                Some("customer")
            }
            Error::RacketOfAnotherCustomer { .. } | Error::NothingToCopy { .. } | Error::TagTaken { .. } => {
                Some("racket")
            }
            Error::NoPrice { .. } => Some("price"),
            Error::Unprintable { field, .. } | Error::NotForQrBill { field, .. } => {
                ["customer", "racket", "string", "tension", "item"]
                    .into_iter()
                    .find(|name| field.starts_with(name))
            }
            _ => None,
        }
    }
}

/// The exit code for an error that reached `main`: the first `Error` in its chain decides.
pub fn exit_code_of(error: &anyhow::Error) -> ExitCode {
    ExitCode::from(exit_number_of(error))
}

/// The exit code of an error, as a number.
pub fn exit_number_of(error: &anyhow::Error) -> u8 {
    error.chain().find_map(|cause| cause.downcast_ref::<Error>()).map_or(exit::FAILURE, Error::exit_code)
}

/// The first line of a client library's message, trimmed: errors are one line.
pub fn first_line(text: &str) -> String {
    text.lines().map(str::trim).find(|line| !line.is_empty()).unwrap_or_default().to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn library_messages_are_cut_to_one_line() {
        assert_eq!(
            super::first_line("\nserver closed the connection unexpectedly\n\tThis probably means..."),
            "server closed the connection unexpectedly"
        );
    }
}
