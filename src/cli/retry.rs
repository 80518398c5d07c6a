//! `--retry-for`: a command that is safe to repeat is run again, on a new connection, while
//! the database is unreachable or busy (exit 69 or 75: a failover, a lock held too long),
//! until the deadline; so a failover of a few seconds is a short wait at the counter.

use super::{Cli, Command};
use crate::error::{exit, exit_number_of};
use clap::Parser;
use std::io::{self};
use std::time::{Duration, Instant};

/// Whether the error came after the mail server accepted a message: running again would
/// send it twice.
fn after_sending(error: &anyhow::Error) -> bool {
    error
        .chain()
        .any(|cause| matches!(cause.downcast_ref::<crate::Error>(), Some(crate::Error::AfterSending(_))))
}

impl Command {
    /// Whether running the command twice does what running it once does: reads, the mint
    /// of an order (it prints the number the order has), a full credit, a send (until the mail server has
    /// the message), a bank file (each transaction is applied once). Never what adds.
    fn safe_to_repeat(&self) -> bool {
        use super::{customer, order, payments, racket, stringer, strings};
        match self {
            Command::Mint(_)
            | Command::Receipt(_)
            | Command::Send(_)
            | Command::Notify(_)
            | Command::Queue(_)
            | Command::Takings(_)
            | Command::Audit(_)
            | Command::Export(_)
            | Command::Journal(_)
            | Command::VatReport(_) => true,
            // A full credit prints the credit note that completed it; a part would add another.
            Command::Credit(opts) => opts.safe_to_repeat(),
            Command::Stringer(cmd) => matches!(cmd, stringer::Command::List(_) | stringer::Command::Show(_)),
            Command::Order(cmd) => matches!(cmd, order::Command::List(_) | order::Command::Show(_)),
            Command::Payments(cmd) => !matches!(cmd, payments::Command::Settle(_)),
            Command::Customer(cmd) => matches!(cmd, customer::Command::List(_) | customer::Command::Show(_)),
            Command::Racket(cmd) => matches!(cmd, racket::Command::List(_) | racket::Command::Show(_)),
            Command::Strings(cmd) => matches!(cmd, strings::Command::List(_)),
            _ => false,
        }
    }
}

/// Runs the command, and again while it fails in a way worth retrying and the deadline
/// allows; each attempt parses the same command line anew and opens its own connection.
///
/// What the waiting says stays one line: on a terminal a status line, replaced as it goes and
/// cleared at the end; then the error alone when it failed for good, or one warning naming the
/// first failure when it succeeded after all.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    let started = Instant::now();
    let deadline = started + cli.retry_for;
    let safe = cli.command.safe_to_repeat();
    let mut cli = cli;
    let mut pause = Duration::from_millis(250);
    let mut first_failure: Option<String> = None;
    let status = Status::new();
    loop {
        let error = match super::run_once(cli) {
            Ok(()) => {
                status.clear();
                if let Some(failure) = first_failure {
                    eprintln!(
                        "warning: {failure}; succeeded on trying again after {:.1} s",
                        started.elapsed().as_secs_f64()
                    );
                }
                return Ok(());
            }
            Err(error) => error,
        };
        let worth_it = safe
            && matches!(exit_number_of(&error), exit::UNAVAILABLE | exit::TEMPORARY)
            && !super::output::beyond_repeat_reached()
            && !after_sending(&error)
            && Instant::now() + pause < deadline;
        if !worth_it {
            status.clear();
            return Err(error);
        }
        let message = format!("{error:#}");
        let left = deadline.saturating_duration_since(Instant::now()).as_secs();
        status.show(&format!("{message}; trying again (for up to {left} s more)"));
        first_failure.get_or_insert(message);
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_secs(2));
        cli = Cli::parse();
    }
}

/// A status line on stderr while a command waits to try again: shown on a terminal only.
struct Status {
    terminal: bool,
}

impl Status {
    fn new() -> Status {
        use std::io::IsTerminal;
        Status { terminal: io::stderr().is_terminal() }
    }

    fn show(&self, text: &str) {
        if self.terminal {
            // Back to the line's start, the line cleared: the status replaces the last one.
            eprint!("\r\x1b[Kwaiting: {text}");
        }
    }

    fn clear(&self) {
        if self.terminal {
            eprint!("\r\x1b[K");
        }
    }
}
