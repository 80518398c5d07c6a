//! `receipts setup`: the shop's first run at the terminal (questions in the chosen language,
//! each asked again while refused) or from flags for scripts; `--link` prints the browser's
//! one-time setup address instead.

use super::Context;
use crate::db::Access;
use crate::domain::{default_timezone, Language};
use crate::ops::setup::{self, FirstRun, Question};
use crate::Error;
use clap::Args;
use std::io::{BufRead, IsTerminal, Write};

#[derive(Debug, Args)]
pub struct Opts {
    /// Print a new one-time address of the setup in the browser (the one before stops working)
    #[arg(long, conflicts_with_all = ["language", "handle", "name", "country", "timezone", "currency", "address", "email", "vat_number", "tax_number", "iban", "owner", "password_stdin"])]
    link: bool,
    /// The language of the questions and of the documents (en, de, fr, it) [default: LANG's]
    #[arg(long)]
    language: Option<String>,
    /// The stringer's short name, used with --stringer
    #[arg(long)]
    handle: Option<String>,
    /// The shop's name, as documents print it
    #[arg(long)]
    name: Option<String>,
    /// The country (ISO 3166, e.g. CH)
    #[arg(long, value_name = "CC")]
    country: Option<String>,
    /// The IANA time zone [default: the machine's]
    #[arg(long, value_name = "TZ")]
    timezone: Option<String>,
    /// The currency (ISO 4217) [default: the country's]
    #[arg(long)]
    currency: Option<String>,
    /// The address: street and number, postcode and town ("Bahnhofstrasse 1, 8001 Zürich")
    #[arg(long)]
    address: Option<String>,
    /// The shop's e-mail
    #[arg(long)]
    email: Option<String>,
    /// The VAT number, for a VAT-registered shop
    #[arg(long)]
    vat_number: Option<String>,
    /// The national tax number
    #[arg(long)]
    tax_number: Option<String>,
    /// The IBAN invoices are paid to
    #[arg(long)]
    iban: Option<String>,
    /// The owner's account at the counter
    #[arg(long, value_name = "USERNAME")]
    owner: Option<String>,
    /// Read the owner's password as one line from standard input
    #[arg(long)]
    password_stdin: bool,
}

pub fn run(opts: Opts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Write)?;
    if opts.link {
        let Some(code) = setup::new_code(&mut db)? else {
            return Err(set_up_already(&mut db)?.into());
        };
        eprintln!("the setup address, good once (an older one no longer works):");
        super::output::line(&format!("{}/setup?code={code}", counter_address()))?;
        return Ok(());
    }
    // Refused before a question is asked.
    if setup::is_set_up(&mut db)? {
        return Err(set_up_already(&mut db)?.into());
    }
    let first = answers(&opts)?;
    let (stringer, key) = setup::set_up(&mut db, &first, None)?;
    eprintln!(
        "the shop is set up: stringer {} ({}), owner {}, the closures' signing key in {}; start the counter with `receipts serve` (the package's service does)",
        stringer.handle,
        stringer.business.name,
        first.owner,
        key.display()
    );
    super::output::line(&counter_address())?;
    Ok(())
}

/// The refusal of a second first run, naming the stringer there is.
fn set_up_already(db: &mut crate::db::Db) -> Result<Error, Error> {
    let stringer = crate::ops::stringers::list(db)?.into_iter().next().map(|s| s.handle);
    Ok(Error::SetUpAlready { stringer: stringer.unwrap_or_else(|| "none yet, but an account".into()) })
}

/// Where the counter answers: the configured address, else the one `serve` listens on.
fn counter_address() -> String {
    if let Some(base) = std::env::var("RECEIPTS_BASE_URL").ok().filter(|b| !b.is_empty()) {
        return base.trim_end_matches('/').to_string();
    }
    let listen = std::env::var("RECEIPTS_LISTEN").ok().filter(|l| !l.is_empty());
    format!("http://{}", listen.as_deref().unwrap_or("127.0.0.1:8080"))
}

/// Every answer: from its flag (checked, 65 when refused), else asked at the terminal (again
/// while refused), else its default; a required one missing without a terminal is 2.
fn answers(opts: &Opts) -> Result<FirstRun, Error> {
    let terminal = std::io::stdin().is_terminal() && !opts.password_stdin;
    let mut ask = Asker { terminal, language: Language::En };
    let from_lang =
        std::env::var("LANG").ok().and_then(|l| l.get(..2).and_then(|code| code.parse::<Language>().ok()));
    let offered = from_lang.unwrap_or(Language::En).code().to_string();
    let language = ask.one(Question::Language, &opts.language, Some(offered), setup::language)?;
    ask.language = language;
    let name = ask.one(Question::Name, &opts.name, None, setup::name)?;
    let suggested = crate::domain::validate_handle(&name.to_ascii_lowercase().replace(' ', "-")).ok();
    let handle = ask.one(Question::Handle, &opts.handle, suggested.filter(|_| terminal), setup::handle)?;
    let country = ask.one(Question::Country, &opts.country, None, setup::country)?;
    let zone = default_timezone().ok().map(|z| z.name().to_string());
    let zone = ask.one(Question::Timezone, &opts.timezone, zone, setup::timezone)?;
    let currency = setup::currency_of(&country).map(|c| c.to_string());
    let currency = ask.one(Question::Currency, &opts.currency, currency, setup::currency)?;
    let address = ask.one(Question::Address, &opts.address, None, setup::address)?;
    let email = ask.one(Question::Email, &opts.email, None, setup::email)?;
    let vat_number = ask.one(Question::VatNumber, &opts.vat_number, None, setup::vat_number)?;
    let tax_number = ask.one(Question::TaxNumber, &opts.tax_number, None, setup::tax_number)?;
    let iban = ask.one(Question::Iban, &opts.iban, None, setup::iban)?;
    let owner = ask.one(Question::Owner, &opts.owner, None, setup::owner)?;
    let password = if opts.password_stdin {
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .map_err(|e| Error::InputFile(format!("the password from standard input: {e}")))?;
        setup::password(line.trim_end_matches(['\r', '\n']))?
    } else {
        ask.password()?
    };
    FirstRun {
        language,
        name,
        handle,
        country,
        zone,
        currency,
        address,
        email,
        vat_number,
        tax_number,
        iban,
        owner,
        password,
    }
    .check()
}

/// Asks at the terminal, in the language chosen.
struct Asker {
    terminal: bool,
    language: Language,
}

impl Asker {
    /// One answer: the flag's, else typed (offered `default`), else `default`.
    fn one<T>(
        &self,
        question: Question,
        flag: &Option<String>,
        default: Option<String>,
        check: fn(&str) -> Result<T, Error>,
    ) -> Result<T, Error> {
        if let Some(given) = flag {
            return check(given);
        }
        if !self.terminal {
            return match default {
                Some(default) => check(&default),
                None if question.optional() => check(""),
                None => Err(Error::Usage(format!(
                    "--{} is required without a terminal (or run `receipts setup` at one)",
                    question.field()
                ))),
            };
        }
        loop {
            let offered = default.as_deref().map(|d| format!(" [{d}]")).unwrap_or_default();
            eprint!("{}{offered}: ", question.asked(self.language));
            std::io::stderr().flush()?;
            let mut line = String::new();
            if std::io::stdin().lock().read_line(&mut line)? == 0 {
                return Err(Error::Usage(
                    "the questions ended before they were answered: nothing was written".into(),
                ));
            }
            let typed = line.trim();
            let answer = if typed.is_empty() { default.as_deref().unwrap_or("") } else { typed };
            if answer.is_empty() && !question.optional() {
                continue;
            }
            match check(answer) {
                Ok(value) => return Ok(value),
                Err(refused) => eprintln!("  {refused}"),
            }
        }
    }

    /// The password, typed twice without echo, asked again while refused or different.
    fn password(&self) -> Result<String, Error> {
        if !self.terminal {
            return Err(Error::Usage(
                "the owner's password is typed at a terminal, or given with --password-stdin".into(),
            ));
        }
        loop {
            let prompt = format!("{}: ", Question::Password.asked(self.language));
            let typed = rpassword::prompt_password(prompt)
                .map_err(|e| Error::InputFile(format!("the password: {e}")))?;
            if let Err(refused) = setup::password(&typed) {
                eprintln!("  {refused}");
                continue;
            }
            let again = rpassword::prompt_password(format!("{}: ", again(self.language)))
                .map_err(|e| Error::InputFile(format!("the password: {e}")))?;
            if typed == again {
                return Ok(typed);
            }
            eprintln!("  {}", differ(self.language));
        }
    }
}

fn again(language: Language) -> &'static str {
    match language {
        Language::En => "The same again",
        Language::De => "Nochmals dasselbe",
        Language::Fr => "Encore une fois",
        Language::It => "Di nuovo lo stesso",
    }
}

fn differ(language: Language) -> &'static str {
    match language {
        Language::En => "the two differ: once more",
        Language::De => "die beiden sind verschieden: nochmals",
        Language::Fr => "les deux diffèrent : encore une fois",
        Language::It => "i due sono diversi: ancora una volta",
    }
}
