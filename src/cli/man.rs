//! `receipts man`: a manual page for the program and one for every subcommand, each with the
//! exit status, the environment, the files and examples; `--out-dir` writes them all.

use super::Cli;
use crate::Error;
use clap::{Args, CommandFactory};
use clap_mangen::roff::{bold, roman, Roff};
use clap_mangen::Man;
use std::io::Write;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct Opts {
    /// The subcommand whose page to print (e.g. `order add`) [default: the program's]
    #[arg(value_name = "COMMAND")]
    command: Vec<String>,
    /// Write every page (receipts.1, receipts-order.1, receipts-order-add.1, ...) into this
    /// directory instead
    #[arg(long, value_name = "DIR", conflicts_with = "command")]
    out_dir: Option<PathBuf>,
}

const EXIT_STATUS: &[(&str, &str)] = &[
    ("0", "Success."),
    ("1", "Failure: the state of the data forbids what was asked (and audit found problems)."),
    ("2", "Usage error: an unknown option, or a value that is not of its kind."),
    ("65", "Bad input data: a value that is implausible, or a file with problems. Nothing was written."),
    ("66", "An input file (or the SQLite database of a command that only reads) is missing or unreadable."),
    ("69", "The database or the mail server cannot be reached, or the connection was lost while committing: run the same command again to learn whether it was saved."),
    ("73", "An output file exists and holds something else: nothing is ever overwritten."),
    ("75", "A temporary failure worth retrying: a lock held longer than --lock-timeout, a collision, or a state that a synchronous standby could not confirm yet."),
    ("77", "The SQLite database belongs to another user (run the command as that user: sudo -u receipts receipts ...), or this user may not reach it."),
    ("78", "The configuration file named is missing or unreadable, or a line of it is neither KEY=value nor a comment."),
];

const ENVIRONMENT: &[(&str, &str)] = &[
    ("DATABASE_URL", "The database, as --database-url: postgres://... or postgresql://... for PostgreSQL, sqlite://PATH, file:PATH or a path for SQLite."),
    ("RECEIPTS_CONFIG", "The configuration file, as --config (default /etc/receipts/receipts.conf, read when it exists)."),
    ("RECEIPTS_LISTEN", "The address serve answers on, as --listen (default 127.0.0.1:8080)."),
    ("RECEIPTS_BACKUP_DIR", "The directory of backup without FILE or --out-dir: the shop's daily backup."),
    ("RECEIPTS_BACKUP_KEEP", "How many backups that daily backup keeps, as --keep."),
    ("RECEIPTS_STRINGER", "The stringer a command acts for, as --stringer."),
    ("RECEIPTS_LOCK_TIMEOUT", "Seconds a statement waits for a lock, as --lock-timeout (default 5)."),
    ("RECEIPTS_RETRY_FOR", "Seconds to keep retrying a command that is safe to repeat, as --retry-for (default 0)."),
    ("RECEIPTS_SMTP_URL", "The mail server of send, as --smtp-url."),
    ("TZ", "The time zone of a new stringer when --timezone is not given (then the machine's, then UTC)."),
];

const FILES: &[(&str, &str)] = &[
    ("/etc/receipts/receipts.conf", "The shop's configuration: KEY=value lines (the variables above) that every command and the service read, below the flags and the environment."),
    ("receipts/receipts.db in the platform's data directory", "The SQLite database used when no database is given (on Linux ~/.local/share/receipts/receipts.db), made by the first command that writes."),
    (".env", "Read from the working directory at start: KEY=value lines that set the environment above."),
];

/// Examples, each under the command it shows.
const EXAMPLES: &[(&str, &str, &str)] = &[
    ("stringer add", "receipts stringer add stefan --name \"Stefan Muster\" --timezone Europe/Zurich", "A stringer, in the zone whose calendar decides the year of his receipts."),
    ("order add", "receipts order add --stringer stefan --customer Roger --string \"RPM Blast 1.25\" --tension 24/23 --price 35.50", "Takes an order; prints its id."),
    ("mint", "receipts mint --order 42", "The racket is strung: prints its receipt number, 2026-0001; again, the same number."),
    ("receipt", "receipts receipt 42 -o receipt.pdf", "The document the customer keeps: PDF/A, with its payment part while unpaid."),
    ("send", "receipts send 42", "E-mails the document, once."),
    ("payments import", "receipts payments import camt054.xml --dry-run", "What the bank's file would apply; nothing changes."),
    ("order list", "receipts order list --status overdue", "Invoices past their due date, with the reminder each reached."),
    ("remind", "receipts remind --due --out-dir post/", "Every reminder that is due, once each: e-mailed, or a PDF for the post."),
    ("export", "receipts export --year 2026 -o ledger-2026.csv", "The accountant's year."),
    ("audit", "receipts audit", "1..N per stringer and year? Exit 1 if not."),
    ("backup", "receipts backup receipts-2026-11-25.db", "A verified copy of the SQLite file, while in use."),
];

pub fn run(opts: Opts) -> anyhow::Result<()> {
    let mut cli = Cli::command().disable_help_subcommand(true);
    cli.build();
    if let Some(dir) = &opts.out_dir {
        let written = write_all(&cli, dir)?;
        eprintln!("wrote {written} manual pages to {}", dir.display());
        return Ok(());
    }
    let mut page = &cli;
    for name in &opts.command {
        page = page.find_subcommand(name).ok_or_else(|| {
            Error::Usage(format!(
                "receipts has no command \"{}\" (see `receipts --help`)",
                opts.command.join(" ")
            ))
        })?;
    }
    let mut out = Vec::new();
    render(page, &opts.command.join(" "), &mut out)?;
    super::output::Stdout.write_all(&out)?;
    Ok(())
}

/// The page of `command` (named `path` under receipts, "" for the program itself).
fn render(command: &clap::Command, path: &str, out: &mut Vec<u8>) -> std::io::Result<()> {
    Man::new(command.clone()).render(out)?;
    let mut roff = Roff::default();
    let section = |roff: &mut Roff, title: &str, items: &[(&str, &str)]| {
        roff.control("SH", [title]);
        for (term, text) in items {
            roff.control("TP", []).text([bold(*term)]).text([roman(*text)]);
        }
    };
    section(&mut roff, "EXIT STATUS", EXIT_STATUS);
    section(&mut roff, "ENVIRONMENT", ENVIRONMENT);
    section(&mut roff, "FILES", FILES);
    let examples: Vec<_> =
        EXAMPLES.iter().filter(|(under, _, _)| path.is_empty() || under.starts_with(path)).collect();
    if !examples.is_empty() {
        roff.control("SH", ["EXAMPLES"]);
        for (_, line, says) in examples {
            roff.control("TP", []).text([bold(*line)]).text([roman(*says)]);
        }
    }
    roff.to_writer(out)
}

/// Every page, the program's and each subcommand's, into `dir`, each whole or not at all.
fn write_all(command: &clap::Command, dir: &std::path::Path) -> Result<usize, Error> {
    fn walk(command: &clap::Command, path: &str, dir: &std::path::Path) -> Result<usize, Error> {
        let mut out = Vec::new();
        render(command, path, &mut out)?;
        let file = dir.join(format!("{}.1", command.get_display_name().unwrap_or(command.get_name())));
        crate::files::write_new(&file, &out, "man --out-dir")?;
        let mut written = 1;
        for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
            let path = if path.is_empty() {
                sub.get_name().to_string()
            } else {
                format!("{path} {}", sub.get_name())
            };
            written += walk(sub, &path, dir)?;
        }
        Ok(written)
    }
    walk(command, "", dir)
}
