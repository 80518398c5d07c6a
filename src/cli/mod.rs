//! The command line: one module per command. Each validates its arguments, calls the
//! library, and prints: tables for people on stdout (or JSON with `--format json`), created
//! identifiers alone on stdout, and everything meant for people on stderr.

mod account;
mod audit;
mod backup;
mod close;
mod credit;
mod customer;
mod database;
mod einvoice;
mod export;
mod journal;
mod key;
mod label;
mod man;
mod migrate_v1;
mod mint;
mod notify;
mod order;
mod order_view;
mod output;
mod payments;
mod queue;
mod racket;
mod receipt;
mod remind;
mod resync;
mod retry;
mod send;
mod serve;
mod setup;
mod stringer;
mod strings;
mod takings;
mod vat_report;
mod void;

use crate::db::{Access, DatabaseUrl, Db};
use crate::domain::parse_day;
use crate::error::Error;
use crate::ops::Whose;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, CommandFactory, Parser, Subcommand};
use std::io::Write;
use std::process::ExitCode;
use std::str::FromStr;
use std::time::Duration;

/// Receipt numbers for racket stringers: YYYY-NNNN per stringer and year, gapless, on SQLite or PostgreSQL.
#[derive(Debug, Parser)]
#[command(name = "receipts", version, propagate_version = true, max_term_width = 100)]
pub struct Cli {
    /// Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path
    /// [default: receipts.db in the platform's data directory]
    #[arg(long, env = "DATABASE_URL", hide_env_values = true, global = true, value_name = "URL",
          help_heading = GLOBAL)]
    pub database_url: Option<String>,

    /// Seconds a change waits for a lock held by someone else before giving up (exit 75)
    #[arg(long, env = "RECEIPTS_LOCK_TIMEOUT", hide_env_values = true, global = true, value_name = "SECONDS",
          default_value = "5", value_parser = parse_seconds, help_heading = GLOBAL)]
    pub lock_timeout: Duration,

    /// Seconds to keep trying a command that is safe to repeat (a mint by order id, reads,
    /// send until the mail server has the message, payments import) while the database is
    /// unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short
    /// wait [default: 0, never]
    #[arg(long, env = "RECEIPTS_RETRY_FOR", hide_env_values = true, global = true, value_name = "SECONDS",
          default_value = "0", hide_default_value = true, value_parser = parse_seconds, help_heading = GLOBAL)]
    pub retry_for: Duration,

    /// KEY=value settings for what no flag or variable says [default:
    /// /etc/receipts/receipts.conf]
    #[arg(long, env = "RECEIPTS_CONFIG", global = true, value_name = "FILE", help_heading = GLOBAL)]
    pub config: Option<std::path::PathBuf>,

    #[command(subcommand)]
    pub command: Command,
}

/// The heading of the options every command takes, shown after a command's own.
const GLOBAL: &str = "Global options";

/// A value parser for one of a domain type's names, so that clap stays out of `domain`.
fn one_of<T>(values: impl IntoIterator<Item = PossibleValue>) -> impl TypedValueParser<Value = T>
where
    T: FromStr<Err = String> + Clone + Send + Sync + 'static,
{
    PossibleValuesParser::new(values).try_map(|name| name.parse::<T>())
}

/// The names of a domain type's values, as clap offers them.
fn names<T: strum::VariantArray + Copy + Into<&'static str>>() -> Vec<PossibleValue> {
    T::VARIANTS.iter().map(|value| PossibleValue::new(Into::<&'static str>::into(*value))).collect()
}

#[derive(Debug, Subcommand)]
// Each command's arguments are defined only when that command runs (or help, completions
// and the manual ask for them all): a process starts without building the whole tree.
#[command(defer = true)]
pub enum Command {
    /// The shop's first run: the stringer, its profile and the owner's account, asked at the
    /// terminal or given as flags; --link prints the browser's one-time setup address
    Setup(setup::Opts),
    /// Add, list, show and edit stringers
    #[command(subcommand)]
    Stringer(stringer::Command),
    /// Add, list, show and edit orders; unstring, restring or delete one
    #[command(subcommand)]
    Order(order::Command),
    /// The customer register: add, edit, find, show, merge and forget customers
    #[command(subcommand)]
    Customer(customer::Command),
    /// Customers' rackets: add, edit, list, and show one with its jobs
    #[command(subcommand)]
    Racket(racket::Command),
    /// The day's work: open orders by promised time (the overdue first), then the rackets
    /// waiting for pickup
    Queue(queue::Opts),
    /// A PDF label for the racket (62 x 100 mm or 4 x 6 in) with a QR code of the order; or
    /// one per open order
    Label(label::Opts),
    /// Mark an order strung and give it the next receipt number (prints the number)
    Mint(mint::Opts),
    /// Void a numbered order, or document a number whose order was lost: the number stays
    /// taken, with the reason on record
    Void(void::Opts),
    /// Take back a document the customer holds, in full or in part: a credit note numbered
    /// C-YYYY-NNNN in its own series (prints the number)
    Credit(credit::Opts),
    /// Render the receipt of a numbered order (text or PDF/A), or every receipt of a year
    Receipt(receipt::Opts),
    /// An Italian stringer's document as the FatturaPA file for SdI
    /// (IT{partita IVA}_{progressivo}.xml), or every document of a year
    Einvoice(einvoice::Opts),
    /// E-mail the document of a numbered order (the PDF attached) over the stringer's mail
    /// server, once unless asked again; or every document not sent yet
    Send(send::Opts),
    /// Chase an unpaid invoice: its next reminder (levels 1-3, a PDF with the payment part
    /// for the open amount), or every reminder that is due; once per invoice and level
    Remind(remind::Opts),
    /// String stock: record reels bought, and see what is left
    #[command(subcommand)]
    Strings(strings::Command),
    /// Tell the customer by e-mail that the racket is ready, once unless asked again; or
    /// every customer not told yet
    Notify(notify::Opts),
    /// Payments from the bank: mark invoices paid from its camt files
    #[command(subcommand)]
    Payments(payments::Command),
    /// Import an export of the V1 system, numbering its strung orders per stringer and year
    MigrateV1(migrate_v1::Opts),
    /// After a restore: set each counter to the highest number in use (never lower unless asked)
    ResyncCounters(resync::Opts),
    /// Check every stringer's numbering: 1..N, no duplicates, voids explained, gaps and
    /// collisions named (exit 1 on any problem)
    Audit(audit::Opts),
    /// Close the business day: the events since the last closure summed per series, method,
    /// currency and VAT rate, added to perpetual grand totals, signed, and chained
    Close(close::Opts),
    /// The signing key of the day's closures: init, rotate
    #[command(subcommand)]
    Key(key::Command),
    /// The accountant's ledger of a year: every issued number, voids included (CSV or JSON),
    /// with totals per stringer and currency on stderr
    Export(export::Opts),
    /// The journal: every mint, void, recount and import, and every change, e-mail and
    /// payment of a numbered order, oldest first
    Journal(journal::Opts),
    /// The day's payments per method and currency (the evening count of the till), VAT per
    /// rate beside them
    Takings(takings::Opts),
    /// What the VAT return asks for: receipts, gross, VAT and net per stringer, currency and
    /// rate for a year, quarter, half or month
    VatReport(vat_report::Opts),
    /// Copy the SQLite database to a new file while it is in use, and verify the copy
    Backup(backup::Opts),
    /// The counter in the browser: pages for the day's work on this database
    Serve(serve::Opts),
    /// Accounts of the counter in the browser: add, list, new password, disable
    #[command(subcommand)]
    Account(account::Command),
    /// Manage the database schema
    #[command(subcommand)]
    Db(database::Command),
    /// Print a completion script for a shell (bash, zsh, fish, ...)
    Completions {
        /// The shell the script is for
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff) of the program or of one of its commands, or write them all
    Man(man::Opts),
}

// `--stringer H`: whose orders a command acts on. (No doc comment: a flattened struct's
// would become the help's summary of the command it is flattened into.)
#[derive(Debug, Clone, Args)]
pub struct StringerOpt {
    /// The stringer's handle [env: RECEIPTS_STRINGER]
    #[arg(long, env = "RECEIPTS_STRINGER", hide_env = true, value_name = "HANDLE")]
    pub stringer: Option<String>,
}

impl StringerOpt {
    /// The stringer named, for the shop's verbs (`ops::Whose` looks it up).
    fn whose(&self) -> Whose<'_> {
        Whose::Named(self.stringer.as_deref())
    }
}

/// What every command needs besides its own options.
pub struct Context {
    database_url: Option<String>,
    lock_timeout: Duration,
    /// The SQLite file this command created, removed again if the command fails.
    created: std::cell::RefCell<Option<std::path::PathBuf>>,
}

impl Context {
    /// The database and the lock timeout, for a command that opens connections of its own
    /// (`serve`'s pool).
    pub fn database(&self) -> Result<(DatabaseUrl, Duration), Error> {
        Ok((self.url(Access::Read)?, self.lock_timeout))
    }

    /// The database's URL; the default SQLite file's directory is made for a command that
    /// writes.
    fn url(&self, access: Access) -> Result<DatabaseUrl, Error> {
        Ok(match self.database_url.as_deref() {
            Some(url) => DatabaseUrl::parse(url)?,
            None => {
                let url = DatabaseUrl::default_sqlite()?;
                if let (DatabaseUrl::Sqlite(path), true) = (&url, access != Access::Read) {
                    if let Some(dir) = path.parent() {
                        std::fs::create_dir_all(dir).map_err(|e| Error::DatabaseFile {
                            path: path.display().to_string(),
                            problem: format!("cannot be created: its directory cannot be made: {e}"),
                        })?;
                    }
                }
                url
            }
        })
    }

    /// The database, opened for what the command does: a command that only reads never
    /// creates, migrates or writes an SQLite file.
    /// Only the default location is made by the program; a path given is taken as it is, so
    /// a typo names a directory that does not exist instead of starting a second numbering.
    pub fn open(&self, access: Access) -> Result<Db, Error> {
        let url = self.url(access)?;
        let db = Db::open(&url, access, self.lock_timeout)?;
        if db.is_new() {
            eprintln!("created a new database at {}", url.redacted());
            if let DatabaseUrl::Sqlite(path) = &url {
                *self.created.borrow_mut() = Some(path.clone());
            }
        }
        Ok(db)
    }

    /// After a failed command: the database file it created, if it still holds no stringer
    /// (nothing was written; somebody else may have begun using it meanwhile), is removed
    /// with its journal files, so a mistake leaves nothing behind.
    fn remove_created(&self) {
        let Some(path) = self.created.borrow_mut().take() else { return };
        let url = DatabaseUrl::Sqlite(path.clone());
        let empty = Db::open(&url, Access::Read, self.lock_timeout)
            .and_then(|mut db| Ok(crate::ops::stringers::list(&mut db)?.is_empty()));
        if matches!(empty, Ok(true)) {
            for suffix in ["", "-wal", "-shm"] {
                let mut file = path.clone().into_os_string();
                file.push(suffix);
                let _ = std::fs::remove_file(file);
            }
            eprintln!("removed the new database {} again: the command failed", path.display());
        }
    }
}

/// Reads the command line. Help and the version print as clap renders them; a mistake is
/// reported in one line (clap's first) with the usage exit code.
pub fn parse() -> Result<Cli, ExitCode> {
    use clap::error::ErrorKind;
    Cli::try_parse().map_err(|err| match err.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = err.print();
            ExitCode::from(if err.use_stderr() { crate::error::exit::USAGE } else { 0 })
        }
        _ => {
            eprintln!("{}", one_line_usage_error(&err.render().to_string()));
            ExitCode::from(crate::error::exit::USAGE)
        }
    })
}

/// clap's message up to its usage hint, in one line: "error: the following required
/// arguments were not provided: --at <TIMESTAMP>".
fn one_line_usage_error(rendered: &str) -> String {
    let said: Vec<&str> = rendered
        .lines()
        .map(str::trim)
        .take_while(|line| !line.is_empty() && !line.starts_with("Usage:"))
        .collect();
    if said.is_empty() {
        "error: invalid arguments (see --help)".to_string()
    } else {
        said.join(" ")
    }
}

/// Runs the command, retrying it within `--retry-for` when that is safe.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    retry::run(cli)
}

fn run_once(cli: Cli) -> anyhow::Result<()> {
    let ctx = Context {
        database_url: cli.database_url,
        lock_timeout: cli.lock_timeout,
        created: Default::default(),
    };
    let outcome = run_command(cli.command, &ctx);
    if outcome.is_err() {
        ctx.remove_created();
    }
    outcome
}

fn run_command(command: Command, ctx: &Context) -> anyhow::Result<()> {
    // `serve` finishes the requests under way when interrupted; every other command stops.
    if !matches!(command, Command::Serve(_)) {
        crate::interrupt::stop_on_interrupt();
    }
    let outcome = match command {
        Command::Stringer(cmd) => stringer::run(cmd, ctx),
        Command::Order(cmd) => order::run(cmd, ctx),
        Command::Customer(cmd) => customer::run(cmd, ctx),
        Command::Racket(cmd) => racket::run(cmd, ctx),
        Command::Queue(opts) => queue::run(opts, ctx),
        Command::Label(opts) => label::run(opts, ctx),
        Command::Mint(opts) => mint::run(opts, ctx),
        Command::Void(opts) => void::run(opts, ctx),
        Command::Credit(opts) => credit::run(opts, ctx),
        Command::Receipt(opts) => receipt::run(opts, ctx),
        Command::Einvoice(opts) => einvoice::run(opts, ctx),
        Command::Send(opts) => send::run(opts, ctx),
        Command::Notify(opts) => notify::run(opts, ctx),
        Command::Remind(opts) => remind::run(opts, ctx),
        Command::Strings(cmd) => strings::run(cmd, ctx),
        Command::Serve(opts) => serve::run(opts, ctx),
        Command::Setup(opts) => setup::run(opts, ctx),
        Command::Account(cmd) => account::run(cmd, ctx),
        Command::Payments(cmd) => payments::run(cmd, ctx),
        Command::MigrateV1(opts) => migrate_v1::run(opts, ctx),
        Command::ResyncCounters(opts) => resync::run(opts, ctx),
        Command::Audit(opts) => audit::run(opts, ctx),
        Command::Close(opts) => close::run(opts, ctx),
        Command::Key(cmd) => key::run(cmd, ctx),
        Command::Export(opts) => export::run(opts, ctx),
        Command::Journal(opts) => journal::run(opts, ctx),
        Command::Takings(opts) => takings::run(opts, ctx),
        Command::VatReport(opts) => vat_report::run(opts, ctx),
        Command::Backup(opts) => backup::run(opts, ctx),
        Command::Db(cmd) => database::run(cmd, ctx),
        Command::Completions { shell } => {
            // Written whole through the program's own stdout, so a reader that goes away is
            // no failure (`receipts completions bash | head -1`).
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "receipts", &mut script);
            Ok(output::Stdout.write_all(&script)?)
        }
        Command::Man(opts) => man::run(opts),
    };
    crate::interrupt::settle();
    outcome
}

/// Whether the error is stdout closed early by the reader (`receipts order list | head`).
pub fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error
        .chain()
        .filter_map(|cause| cause.downcast_ref::<std::io::Error>())
        .any(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
}

/// Seconds from 0 (do not wait at all) to a day.
fn parse_seconds(text: &str) -> Result<Duration, String> {
    match text.trim().parse::<f64>() {
        Ok(secs) if secs.is_finite() && (0.0..=86_400.0).contains(&secs) => Ok(Duration::from_secs_f64(secs)),
        _ => Err(format!("\"{text}\" is not a number of seconds from 0 to 86400")),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_command_line_is_well_formed() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }

    /// Every option and argument of every command says what it is for in `--help`.
    #[test]
    fn every_option_has_a_help_line() {
        use clap::CommandFactory;
        fn missing(command: &clap::Command, path: &str, found: &mut Vec<String>) {
            for arg in command.get_arguments() {
                let builtin = matches!(arg.get_id().as_str(), "help" | "version");
                if !builtin && arg.get_help().is_none() && arg.get_long_help().is_none() {
                    found.push(format!("{path} {}", arg.get_id()));
                }
            }
            for sub in command.get_subcommands() {
                missing(sub, &format!("{path} {}", sub.get_name()), found);
            }
        }
        let mut command = super::Cli::command();
        command.build();
        let mut found = Vec::new();
        missing(&command, "receipts", &mut found);
        assert_eq!(found, Vec::<String>::new());
    }

    #[test]
    fn usage_errors_keep_what_clap_names_in_one_line() {
        use clap::Parser;
        let err = super::Cli::try_parse_from(["receipts", "mint", "--order", "1", "--backdate"]).unwrap_err();
        assert_eq!(
            super::one_line_usage_error(&err.render().to_string()),
            "error: the following required arguments were not provided: --at <TIMESTAMP>"
        );
    }

    #[test]
    fn a_lock_timeout_is_zero_to_a_day() {
        assert_eq!(super::parse_seconds("0"), Ok(std::time::Duration::ZERO));
        assert_eq!(super::parse_seconds("0.25"), Ok(std::time::Duration::from_millis(250)));
        for bad in ["-1", "86401", "NaN", "inf", "soon"] {
            assert!(super::parse_seconds(bad).is_err(), "{bad}");
        }
    }
}
