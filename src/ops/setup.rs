//! The first run (SPEC 25): the shop's stringer, its profile and the owner's account, asked
//! once at the terminal (`receipts setup`) or in the browser (`/setup`), each answer checked
//! as `stringer edit` and `account add` check it, all written in one journaled transaction.

use crate::db::accounts::{self, Login, Role};
use crate::db::events::{self, Change, Event};
use crate::db::stringers::{self, ProfileEdit, Stringer};
use crate::db::{closures, Db, DbConn, Tenant};
use crate::domain::{
    check_country, check_email, check_vat_number, local_date, now_utc, parse_timezone, validate_handle,
    Currency, Language,
};
use crate::error::Error;
use crate::payment::{check_qr_text, Iban, QR_LIMITS};
use crate::receipt::pdf::check_printable;
use crate::signing::{self, SigningKey};
use chrono::Datelike;
use chrono_tz::Tz;
use std::path::{Path, PathBuf};

/// The questions, in the order they are asked. Each is also the name of its flag and of
/// its form field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::VariantArray, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
pub enum Question {
    Language,
    Name,
    Handle,
    Country,
    Timezone,
    Currency,
    Address,
    Email,
    VatNumber,
    TaxNumber,
    Iban,
    Owner,
    Password,
}

impl Question {
    /// Its flag's and its form field's name: `vat-number`.
    pub fn field(self) -> &'static str {
        self.into()
    }

    /// Whether it may be left empty.
    pub fn optional(self) -> bool {
        matches!(
            self,
            Question::Address | Question::Email | Question::VatNumber | Question::TaxNumber | Question::Iban
        )
    }

    /// The question as a person reads it, in `language`.
    pub fn asked(self, language: Language) -> &'static str {
        use crate::domain::Language::{De, En, Fr, It};
        use Question as Q;
        match (self, language) {
            (Q::Language, _) => "Language / Sprache / Langue / Lingua (en, de, fr, it)",
            (Q::Name, En) => "The shop's name (as documents print it)",
            (Q::Name, De) => "Name des Geschäfts (wie ihn die Belege drucken)",
            (Q::Name, Fr) => "Nom du magasin (tel que l'impriment les documents)",
            (Q::Name, It) => "Nome del negozio (come lo stampano i documenti)",
            (Q::Handle, En) => "Short name for the command line (letters, digits, - and _)",
            (Q::Handle, De) => "Kurzname für die Befehlszeile (Buchstaben, Ziffern, - und _)",
            (Q::Handle, Fr) => "Nom court pour la ligne de commande (lettres, chiffres, - et _)",
            (Q::Handle, It) => "Nome breve per la riga di comando (lettere, cifre, - e _)",
            (Q::Country, En) => "Country (two letters: CH, DE, AT, FR, IT, ...)",
            (Q::Country, De) => "Land (zwei Buchstaben: CH, DE, AT, FR, IT, ...)",
            (Q::Country, Fr) => "Pays (deux lettres : CH, DE, AT, FR, IT, ...)",
            (Q::Country, It) => "Paese (due lettere: CH, DE, AT, FR, IT, ...)",
            (Q::Timezone, En) => "Time zone",
            (Q::Timezone, De) => "Zeitzone",
            (Q::Timezone, Fr) => "Fuseau horaire",
            (Q::Timezone, It) => "Fuso orario",
            (Q::Currency, En) => "Currency (CHF, EUR, ...)",
            (Q::Currency, De) => "Währung (CHF, EUR, ...)",
            (Q::Currency, Fr) => "Monnaie (CHF, EUR, ...)",
            (Q::Currency, It) => "Valuta (CHF, EUR, ...)",
            (Q::Address, En) => {
                "Address: street and number, postcode and town (Bahnhofstrasse 1, 8001 Zürich)"
            }
            (Q::Address, De) => "Adresse: Strasse und Nummer, PLZ und Ort (Bahnhofstrasse 1, 8001 Zürich)",
            (Q::Address, Fr) => "Adresse : rue et numéro, NPA et localité (Rue du Lac 1, 1003 Lausanne)",
            (Q::Address, It) => "Indirizzo: via e numero, NAP e località (Via Nassa 1, 6900 Lugano)",
            (Q::Email, En) => "E-mail",
            (Q::Email, De) => "E-Mail",
            (Q::Email, Fr) => "E-mail",
            (Q::Email, It) => "E-mail",
            (Q::VatNumber, En) => "VAT number (empty if the shop is not registered for VAT)",
            (Q::VatNumber, De) => "MWST-/USt-Nummer (leer, wenn nicht mehrwertsteuerpflichtig)",
            (Q::VatNumber, Fr) => "Numéro de TVA (vide si le magasin n'y est pas assujetti)",
            (Q::VatNumber, It) => "Partita IVA (vuota se il negozio non è soggetto all'IVA)",
            (Q::TaxNumber, En) => "Tax number",
            (Q::TaxNumber, De) => "Steuernummer",
            (Q::TaxNumber, Fr) => "Numéro fiscal",
            (Q::TaxNumber, It) => "Codice fiscale",
            (Q::Iban, En) => "IBAN invoices are paid to",
            (Q::Iban, De) => "IBAN für Zahlungen von Rechnungen",
            (Q::Iban, Fr) => "IBAN où les factures sont payées",
            (Q::Iban, It) => "IBAN su cui si pagano le fatture",
            (Q::Owner, En) => "The owner's account name (to log in at the counter)",
            (Q::Owner, De) => "Kontoname der Inhaberin / des Inhabers (Anmeldung an der Theke)",
            (Q::Owner, Fr) => "Nom du compte du patron (pour se connecter au comptoir)",
            (Q::Owner, It) => "Nome dell'account del titolare (per accedere al banco)",
            (Q::Password, En) => "Password (at least 10 characters)",
            (Q::Password, De) => "Passwort (mindestens 10 Zeichen)",
            (Q::Password, Fr) => "Mot de passe (au moins 10 caractères)",
            (Q::Password, It) => "Password (almeno 10 caratteri)",
        }
    }

    /// The refusal of an answer: the field named, as `stringer edit` names its flags.
    fn refused(self, problem: impl Into<String>) -> Error {
        Error::Invalid { field: self.field(), problem: problem.into() }
    }
}

/// The structured address the first run takes: what a QR-bill needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Address {
    pub street: String,
    pub house_number: Option<String>,
    pub postcode: String,
    pub town: String,
}

/// Every answer, checked.
#[derive(Debug, Clone)]
pub struct FirstRun {
    pub language: Language,
    pub name: String,
    pub handle: String,
    pub country: String,
    pub zone: Tz,
    pub currency: Currency,
    pub address: Option<Address>,
    pub email: Option<String>,
    pub vat_number: Option<String>,
    pub tax_number: Option<String>,
    pub iban: Option<String>,
    pub owner: String,
    pub password: String,
}

/// A text answer with its surrounding spaces gone; None when nothing is left.
fn given(text: &str) -> Option<&str> {
    Some(text.trim()).filter(|t| !t.is_empty())
}

pub fn language(text: &str) -> Result<Language, Error> {
    text.trim().to_ascii_lowercase().parse().map_err(|e: String| Question::Language.refused(e))
}

pub fn name(text: &str) -> Result<String, Error> {
    let name = given(text).ok_or_else(|| Question::Name.refused("is empty"))?;
    check_printable("name", name)?;
    Ok(name.to_string())
}

pub fn handle(text: &str) -> Result<String, Error> {
    validate_handle(text.trim()).map(|h| h.to_ascii_lowercase()).map_err(|e| Question::Handle.refused(e))
}

pub fn country(text: &str) -> Result<String, Error> {
    check_country(text).map_err(|e| Question::Country.refused(e))
}

pub fn timezone(text: &str) -> Result<Tz, Error> {
    parse_timezone(text).map_err(|e| Question::Timezone.refused(e))
}

pub fn currency(text: &str) -> Result<Currency, Error> {
    text.trim().to_ascii_uppercase().parse().map_err(|e: String| Question::Currency.refused(e))
}

/// The currency a country's shops take, offered as the answer.
pub fn currency_of(country: &str) -> Option<Currency> {
    const EURO: &[&str] = &[
        "AT", "BE", "CY", "DE", "EE", "ES", "FI", "FR", "GR", "HR", "IE", "IT", "LT", "LU", "LV", "MC", "MT",
        "NL", "PT", "SI", "SK", "SM", "VA", "AD", "ME", "XK",
    ];
    let code = match country {
        "CH" | "LI" => "CHF",
        c if EURO.contains(&c) => "EUR",
        "GB" => "GBP",
        "US" => "USD",
        "SE" => "SEK",
        "DK" => "DKK",
        "NO" => "NOK",
        "PL" => "PLN",
        "CZ" => "CZK",
        "HU" => "HUF",
        _ => return None,
    };
    code.parse().ok()
}

/// `Bahnhofstrasse 1, 8001 Zürich` (or the two parts on lines of their own): the street
/// with its number, then the postcode and the town.
pub fn address(text: &str) -> Result<Option<Address>, Error> {
    let Some(text) = given(text) else { return Ok(None) };
    let shape = "write the street and number, then the postcode and town: \"Bahnhofstrasse 1, 8001 Zürich\"";
    let text = text.replace("\\n", "\n");
    let lines: Vec<&str> = text.split(['\n', ',']).map(str::trim).filter(|p| !p.is_empty()).collect();
    let [street, place] = lines[..] else { return Err(Question::Address.refused(shape)) };
    let (street, house_number) = match street.rsplit_once(' ') {
        Some((street, number)) if number.starts_with(|c: char| c.is_ascii_digit()) => {
            (street.trim(), Some(number.to_string()))
        }
        _ => (street, None),
    };
    let (postcode, town) = place.split_once(' ').ok_or_else(|| Question::Address.refused(shape))?;
    let address = Address {
        street: street.to_string(),
        house_number,
        postcode: postcode.trim().to_string(),
        town: town.trim().to_string(),
    };
    for (field, text, limit) in [
        ("street", Some(&address.street), QR_LIMITS.street),
        ("house number", address.house_number.as_ref(), QR_LIMITS.house_number),
        ("postcode", Some(&address.postcode), QR_LIMITS.postcode),
        ("town", Some(&address.town), QR_LIMITS.town),
    ] {
        if let Some(text) = text {
            check_qr_text(field, text, limit)?;
            check_printable(field, text)?;
        }
    }
    Ok(Some(address))
}

/// An optional answer checked by `check` (the check of `stringer edit`).
fn optional(
    question: Question,
    text: &str,
    check: impl FnOnce(&str) -> Result<String, String>,
) -> Result<Option<String>, Error> {
    given(text).map(|t| check(t).map_err(|e| question.refused(e))).transpose()
}

pub fn email(text: &str) -> Result<Option<String>, Error> {
    optional(Question::Email, text, check_email)
}

pub fn vat_number(text: &str) -> Result<Option<String>, Error> {
    optional(Question::VatNumber, text, check_vat_number)
}

pub fn tax_number(text: &str) -> Result<Option<String>, Error> {
    let number = optional(Question::TaxNumber, text, |t| Ok(t.to_string()))?;
    if let Some(number) = &number {
        check_printable("tax number", number)?;
    }
    Ok(number)
}

pub fn iban(text: &str) -> Result<Option<String>, Error> {
    optional(Question::Iban, text, |t| Iban::parse(t).map(|iban| iban.as_str().to_string()))
}

pub fn owner(text: &str) -> Result<String, Error> {
    accounts::check_username(text).map_err(|e| Question::Owner.refused(e.to_string()))
}

pub fn password(text: &str) -> Result<String, Error> {
    if text.chars().count() < accounts::MIN_PASSWORD {
        return Err(
            Question::Password.refused(format!("must have at least {} characters", accounts::MIN_PASSWORD))
        );
    }
    Ok(text.to_string())
}

impl FirstRun {
    /// What depends on more than one answer: a Swiss IBAN's QR-bill needs the address.
    pub fn check(self) -> Result<FirstRun, Error> {
        let swiss = self.iban.as_deref().and_then(|i| Iban::parse(i).ok()).is_some_and(|i| i.is_swiss());
        if swiss && self.address.is_none() {
            return Err(Question::Iban
                .refused("a Swiss IBAN's QR-bill needs the shop's address: give the address too"));
        }
        Ok(self)
    }

    /// The profile `stringer edit` would write for these answers.
    fn profile(&self) -> ProfileEdit {
        let address = self.address.clone();
        ProfileEdit {
            name: Some(self.name.clone()),
            language: Some(self.language),
            country: Some(self.country.clone()),
            currency: Some(self.currency.clone()),
            email: self.email.clone(),
            vat_number: self.vat_number.clone(),
            tax_number: self.tax_number.clone(),
            iban: self.iban.clone(),
            street: address.as_ref().map(|a| a.street.clone()),
            house_number: address.as_ref().and_then(|a| a.house_number.clone()),
            postcode: address.as_ref().map(|a| a.postcode.clone()),
            town: address.map(|a| a.town),
            ..ProfileEdit::default()
        }
    }
}

/// Sets the shop up: the stringer, its profile (each value a journaled `profile` event, as
/// `stringer edit` writes them), the owner's account and the stringer's signing key (its
/// file, 0600, in `key_dir` or where `key init` puts it; its public key journaled), in one
/// transaction; the setup code is used up. Refused on a database that has a stringer
/// already. Returns the stringer and where its key is.
pub fn set_up(db: &mut Db, first: &FirstRun, key_dir: Option<&Path>) -> Result<(Stringer, PathBuf), Error> {
    with_key(first, key_dir, |key| db.write(|conn| set_up_in(conn, first, key)))
}

/// The browser's way: with the one-time `code` (checked in the same transaction: None when
/// it does not hold), `set_up`, and the owner signed in (the new session's token).
pub fn set_up_and_sign_in(
    db: &mut Db,
    code: &str,
    first: &FirstRun,
    key_dir: Option<&Path>,
) -> Result<Option<String>, Error> {
    if !code_holds(db, code)? {
        return Ok(None);
    }
    let signed_in = with_key(first, key_dir, |key| {
        db.write(|conn| {
            if !accounts::setup_code_holds(conn, code)? {
                return Err(Error::SetUpAlready { stringer: first.handle.clone() });
            }
            set_up_in(conn, first, key)?;
            match accounts::login(conn, &first.owner, &first.password)? {
                Login::Welcome { token } => Ok(token),
                Login::Refused | Login::Throttled => Err(Error::Internal {
                    what: "signing the new owner in",
                    detail: "the login was refused".into(),
                }),
            }
        })
    })?;
    Ok(Some(signed_in.0))
}

/// Makes the stringer's signing key, runs `write` with it, and removes the key file again
/// when `write` fails: a first run refused leaves no key behind.
fn with_key<T>(
    first: &FirstRun,
    key_dir: Option<&Path>,
    write: impl FnOnce(&SigningKey) -> Result<T, Error>,
) -> Result<(T, PathBuf), Error> {
    let path = match key_dir {
        Some(dir) => dir.join(signing::key_file_name(&first.handle)),
        None => signing::default_key_file(&first.handle)?,
    };
    let key = SigningKey::create(&path)?;
    match write(&key) {
        Ok(done) => Ok((done, path)),
        Err(e) => {
            let _ = std::fs::remove_file(&path);
            Err(e)
        }
    }
}

fn set_up_in(conn: &mut DbConn, first: &FirstRun, key: &SigningKey) -> Result<Stringer, Error> {
    if let Some(existing) = stringers::list(conn)?.into_iter().next() {
        return Err(Error::SetUpAlready { stringer: existing.handle });
    }
    stringers::add(conn, &first.handle, &first.handle, first.zone)?;
    let tenant = Tenant::load(conn, &first.handle)?;
    stringers::edit(conn, &tenant, &first.profile())?;
    accounts::add(conn, &tenant, &first.owner, &first.password, Role::Owner, Some(first.language))?;
    let year = local_date(now_utc(), first.zone).year();
    let account = format!("{} (owner)", first.owner);
    events::record_all(
        conn,
        &[Event::profile(tenant.id(), year, Change { field: "account", old: None, new: Some(&account) })],
    )?;
    closures::record_key(conn, &tenant, key, None)?;
    accounts::end_setup_code(conn)?;
    stringers::profile(conn, &tenant)
}

/// Whether the shop exists (a stringer or an account): then there is no first run.
pub fn is_set_up(db: &mut Db) -> Result<bool, Error> {
    db.read(accounts::shop_exists)
}

/// A new one-time code for `/setup`; the one before stops working. None when the shop is set
/// up already.
pub fn new_code(db: &mut Db) -> Result<Option<String>, Error> {
    db.write(
        |conn| if accounts::shop_exists(conn)? { Ok(None) } else { accounts::new_setup_code(conn).map(Some) },
    )
}

/// Whether `code` opens the first run now.
pub fn code_holds(db: &mut Db, code: &str) -> Result<bool, Error> {
    db.read(|conn| accounts::setup_code_holds(conn, code))
}
