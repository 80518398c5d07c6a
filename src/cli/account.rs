//! `receipts account`: the counter's accounts added, listed, given a new password,
//! disabled.

use super::output::{self, Listed};
use super::{Context, StringerOpt};
use crate::db::accounts::{self, Role};
use crate::db::Access;
use crate::domain::{format_utc, Language};
use crate::ops;
use crate::Error;
use clap::{Args, Subcommand};
use serde::Serialize;
use std::io::{BufRead, IsTerminal};
use tabled::Tabled;

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum Command {
    /// An account for the counter in the browser (`receipts serve`), working for one
    /// stringer; the password is read twice from the terminal
    Add(AddOpts),
    /// Every account: its stringer, role, language, open sessions
    List(ListOpts),
    /// A new password for an account; its open sessions end
    Passwd(PasswdOpts),
    /// The account can no longer log in; its open sessions end
    Disable(DisableOpts),
}

#[derive(Debug, Args)]
pub struct AddOpts {
    /// The name it logs in with: letters a-z, digits, '.', '_' and '-'
    username: String,
    #[command(flatten)]
    stringer: StringerOpt,
    /// staff: the day's work; owner: also voids, the profile and bank files
    #[arg(long, default_value = "staff", value_parser = super::one_of::<Role>(super::names::<Role>()))]
    role: Role,
    /// The language of its pages [default: the browser's, else the stringer's]
    #[arg(long, value_parser = super::one_of::<Language>(super::names::<Language>()))]
    language: Option<Language>,
    #[command(flatten)]
    password: PasswordOpt,
}

#[derive(Debug, Args)]
pub struct PasswdOpts {
    /// The account's username
    username: String,
    #[command(flatten)]
    password: PasswordOpt,
}

#[derive(Debug, Args)]
pub struct DisableOpts {
    /// The account's username
    username: String,
}

#[derive(Debug, Args)]
pub struct ListOpts {
    /// A table for people, JSON for scripts, or CSV for spreadsheets
    #[arg(long, value_enum, default_value_t)]
    format: Listed,
}

#[derive(Debug, Args)]
struct PasswordOpt {
    /// Read the password as one line from standard input (for scripts)
    #[arg(long)]
    password_stdin: bool,
}

impl PasswordOpt {
    /// The password: one line of stdin, or typed twice at the terminal without echo.
    fn read(&self) -> Result<String, Error> {
        if self.password_stdin {
            let mut line = String::new();
            std::io::stdin()
                .lock()
                .read_line(&mut line)
                .map_err(|e| Error::InputFile(format!("the password from standard input: {e}")))?;
            return Ok(line.trim_end_matches(['\r', '\n']).to_string());
        }
        if !std::io::stdin().is_terminal() {
            return Err(Error::Usage(
                "the password is typed at a terminal, or given with --password-stdin".into(),
            ));
        }
        let typed = rpassword::prompt_password("password: ")
            .map_err(|e| Error::InputFile(format!("the password: {e}")))?;
        let again = rpassword::prompt_password("the same again: ")
            .map_err(|e| Error::InputFile(format!("the password: {e}")))?;
        if typed != again {
            return Err(Error::BadInput("the two passwords differ: nothing changed".into()));
        }
        Ok(typed)
    }
}

pub fn run(cmd: Command, ctx: &Context) -> anyhow::Result<()> {
    match cmd {
        Command::Add(opts) => {
            let username = accounts::check_username(&opts.username)?;
            let password = opts.password.read()?;
            let mut db = ctx.open(Access::Write)?;
            let tenant = opts.stringer.whose().required(&mut db)?;
            ops::accounts::add(&mut db, &tenant, &username, &password, opts.role, opts.language)?;
            eprintln!("account {username} added for {} ({})", tenant.handle(), opts.role.code());
        }
        Command::List(opts) => {
            let mut db = ctx.open(Access::Read)?;
            let rows: Vec<AccountRow> =
                ops::accounts::list(&mut db)?.into_iter().map(AccountRow::from).collect();
            output::rows(opts.format, &rows)?;
        }
        Command::Passwd(opts) => {
            let password = opts.password.read()?;
            let mut db = ctx.open(Access::Write)?;
            ops::accounts::passwd(&mut db, &opts.username, &password)?;
            eprintln!("new password for {}; its sessions ended", opts.username.trim().to_ascii_lowercase());
        }
        Command::Disable(opts) => {
            let mut db = ctx.open(Access::Write)?;
            let name = opts.username.trim().to_ascii_lowercase();
            if ops::accounts::disable(&mut db, &opts.username)? {
                eprintln!("account {name} disabled; its sessions ended");
            } else {
                eprintln!("account {name} was disabled already");
            }
        }
    }
    Ok(())
}

#[derive(Serialize, Tabled)]
struct AccountRow {
    username: String,
    stringer: String,
    role: &'static str,
    #[tabled(display = "output::optional")]
    language: Option<String>,
    #[tabled(display = "output::optional")]
    disabled_at: Option<String>,
    sessions: i64,
}

impl From<accounts::Account> for AccountRow {
    fn from(account: accounts::Account) -> AccountRow {
        AccountRow {
            username: account.username,
            stringer: account.stringer,
            role: account.role.code(),
            language: account.language.map(|l| l.code().to_string()),
            disabled_at: account.disabled_at.map(format_utc),
            sessions: account.sessions,
        }
    }
}
